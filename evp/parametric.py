r"""Parametric tails of the score distribution: the (noisy) quadratic distribution.

Near its optimum a smooth loss surface is close to its second-order Taylor
expansion. Random search over a continuous search distribution then produces
scores whose *tail* (the best scores) follows a **quadratic distribution**
(Lourie, He and Cho 2025). For maximising (the concave form),

.. math::

    Y \sim \mathcal{Q}(a, b, c): \qquad
    F(y) = 1 - \left(\frac{b - y}{b - a}\right)^{c/2}, \qquad a \le y \le b,

with :math:`b` the best achievable score, :math:`a` the lower end of the support
and :math:`c` the *effective number of hyperparameters* (an integer, 1 to 10
here, as in opda). Equivalently :math:`Y = b - (b - a) T^2` with
:math:`P(T \le t) = t^c` on [0, 1]. When the score itself is noisy (a random
seed, a finite validation set), the **noisy quadratic distribution** adds
independent normal noise of standard deviation :math:`o`:

.. math::

    Y = b - (b - a) T^2 + o E, \quad E \sim N(0, 1), \qquad
    F(y) = \int_0^1 \Phi\!\left(\frac{y - b + (b - a) t^2}{o}\right)
           c\, t^{c-1}\, dt .

The convex form (minimising a loss) is the mirror image:
:math:`Y \sim \mathcal{Q}_{\min}(a, b, c) \iff -Y \sim \mathcal{Q}_{\max}(-b, -a, c)`,
so that :math:`a` is then the best achievable loss.

What this module offers:

* :class:`QuadraticDistribution` and :class:`NoisyQuadraticDistribution` with
  ``pdf``, ``cdf``, ``sf``, ``ppf``, ``sample``, ``quantile_tuning_curve`` and
  ``mean_tuning_curve`` (real budgets allowed), and the classmethod ``fit``:
  maximum product spacing with censoring and constraints, as opda documents it.
  Everything is computed to about 1e-10 without simulation: closed forms where
  they exist, otherwise Gauss–Legendre quadrature on panels placed where the
  normal kernel varies, and adaptive Gauss–Legendre quadrature for the mean
  tuning curve of the noisy distribution.
* :func:`confidence_set`: every parameter value whose CDF stays inside an exact
  simultaneous CDF band (:func:`evp.cdf_band`) above a threshold; from it, an
  interval for the best achievable score, for the noise and the plausible
  effective numbers of hyperparameters, and bounds for tuning curves at any
  budget, extrapolation included.
* :func:`goodness_of_fit` (does a fitted CDF stay inside the band over the tail?)
  and :func:`choose_threshold` (a data-driven threshold beside the manual one).

References
----------
Lourie, He and Cho (2025). Hyperparameter Loss Surfaces Are Simple Near their
Optima. COLM. arXiv:2510.02721.

Lourie, Cho and He (2024). Show Your Work with Confidence: Confidence Bands for
Tuning Curves. NAACL. arXiv:2311.09480.

Cheng and Amin (1983). Estimating Parameters in Continuous Univariate
Distributions with a Shifted Origin. JRSS B 45(3). Ranneby (1984). The Maximum
Spacing Method. Scandinavian Journal of Statistics 11(2). (Maximum spacing.)

Titterington (1985). Comment on "Estimating Parameters in Continuous Univariate
Distributions". JRSS B 47(1). (Maximum spacing as grouped likelihood.)

Ekström (2008). Alternatives to maximum likelihood estimation based on spacings
and the Kullback–Leibler divergence. Journal of Statistical Planning and
Inference 138(6).
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from evp._validation import EmptyConfidenceSetWarning, ParameterError, _describe

# scipy is imported inside the functions that need it: `import evp` stays fast.

__all__ = [
    "ConfidenceSet",
    "GoodnessOfFit",
    "NoisyQuadraticDistribution",
    "QuadraticDistribution",
    "Threshold",
    "choose_threshold",
    "confidence_set",
    "fit_tail",
    "goodness_of_fit",
    "in_tail",
]

C_MIN, C_MAX = 1, 10

# The normal kernel is treated as 0 below -_Z and 1 above _Z standard deviations:
# Phi(-10) = 7.6e-24.
_Z = 10.0
# Panels x nodes of the Gauss-Legendre rule: (8, 10) gives about 1e-14 on the CDF,
# (5, 10) about 1e-11 (used inside the fit, where it is evaluated most often).
_FINE = (8, 10)
_FAST = (5, 10)
# The fewest scores inside the limits that a fit accepts.
MIN_OBSERVED = 5


# ----------------------------------------------------------------- the numerics


@functools.cache
def _gauss_legendre(nodes: int):
    x, w = np.polynomial.legendre.leggauss(nodes)
    return (x + 1) / 2, w / 2


def _standard_noisy(w, D, c, rule=_FINE, derivatives=False):
    r"""The concave noisy quadratic in standard units.

    With :math:`w = (y - b)/o` and :math:`D = (b - a)/o`, returns
    :math:`F = \int_0^1 \Phi(w + D t^2)\, c t^{c-1} dt`, its complement
    :math:`S = 1 - F` (each accurate in its own small tail) and, with
    `derivatives`, :math:`\partial F/\partial w` and :math:`\partial F/\partial D`.

    The kernel :math:`\Phi(w + D t^2)` is 0 or 1 to within :math:`\Phi(-Z)` except
    where :math:`r = D t^2 \in [-Z - w, Z - w]`; that window (clipped to [0, D]) is
    cut into equal panels in r, and each panel gets a Gauss–Legendre rule in t,
    where the integrand is smooth (c t^{c-1} is a polynomial). Outside the window
    the integral is exact: :math:`\int_{t_1}^1 c t^{c-1} dt = 1 - t_1^c`.
    """
    from scipy.special import ndtr

    t_edges, tt, W, z = _noisy_nodes(w, D, c, rule)
    F = (1.0 - t_edges[..., -1] ** c) + np.einsum("...ij,...ij->...", ndtr(z), W)
    S = t_edges[..., 0] ** c + np.einsum("...ij,...ij->...", ndtr(-z), W)
    if not derivatives:
        return F, S
    phi = np.exp(-0.5 * z * z) * (1.0 / math.sqrt(2.0 * math.pi)) * W
    return F, S, phi.sum(axis=(-2, -1)), np.einsum("...ij,...ij->...", phi, tt)


def _noisy_nodes(w, D, c, rule):
    """The quadrature of :func:`_standard_noisy` at points w: the window's edges
    in t, the nodes' t², their weights (times the density c t^{c-1}) and the
    kernel's arguments z = w + D t²."""
    panels, nodes = rule
    x, weights = _gauss_legendre(nodes)
    w = np.asarray(w, dtype=float)[..., None]
    r_lo = np.clip(-_Z - w, 0.0, D)
    r_hi = np.clip(_Z - w, 0.0, D)
    edges = r_lo + (r_hi - r_lo) * (np.arange(panels + 1) / panels)
    t_edges = np.sqrt(edges / D)
    t0 = t_edges[..., :-1, None]
    dt = t_edges[..., 1:, None] - t0
    t = t0 + dt * x
    tt = t * t
    W = (dt * weights) * (c * t ** (c - 1))
    return t_edges, tt, W, w[..., None] + D * tt


def _standard_noisy_side(w, D, c, lower):
    """F where `lower`, else S, and dF/dw, at points w (1-D): the numbers of
    :func:`_standard_noisy` with derivatives, bit for bit, at half its cost
    (one normal CDF per node instead of two, and no dF/dD): a quantile's Newton
    steps read one side at each point."""
    from scipy.special import ndtr

    t_edges, _, W, z = _noisy_nodes(w, D, c, _FINE)
    side = lower[:, None, None]
    G = (np.where(lower, 1.0 - t_edges[..., -1] ** c, t_edges[..., 0] ** c)
         + np.einsum("...ij,...ij->...", ndtr(np.where(side, z, -z)), W))
    phi = np.exp(-0.5 * z * z) * (1.0 / math.sqrt(2.0 * math.pi)) * W
    return G, phi.sum(axis=(-2, -1))


def _adaptive_integral(func, edges, tolerance, *, nodes=10, rounds=60):
    """Integral over [edges[0], edges[-1]] of func, which maps points (m,) to
    values (m, K); adaptive Gauss–Legendre: a panel is accepted when its rule and
    the rule on its two halves agree to within its share of `tolerance`."""
    x, weights = _gauss_legendre(nodes)
    span = edges[-1] - edges[0]

    def rule(lo, hi):
        points = lo[:, None] + (hi - lo)[:, None] * x
        values = func(points.ravel()).reshape(*points.shape, -1)
        return np.einsum("pmk,m->pk", values, weights) * (hi - lo)[:, None]

    lo, hi = np.asarray(edges[:-1], float), np.asarray(edges[1:], float)
    keep = hi > lo
    lo, hi = lo[keep], hi[keep]
    coarse = rule(lo, hi)
    total = np.zeros(coarse.shape[1])
    for _ in range(rounds):
        mid = (lo + hi) / 2
        halves = rule(np.concatenate([lo, mid]), np.concatenate([mid, hi]))
        left, right = np.split(halves, 2)
        fine = left + right
        error = np.max(np.abs(fine - coarse), axis=1)
        done = error <= tolerance * (hi - lo) / span
        total += fine[done].sum(axis=0)
        if done.all():
            return total
        todo = ~done
        lo, hi = np.concatenate([lo[todo], mid[todo]]), np.concatenate([mid[todo],
                                                                        hi[todo]])
        coarse = np.concatenate([left[todo], right[todo]])
    return total + fine[todo].sum(axis=0)


# ----------------------------------------------------------------- validation


def _as_real(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real | np.ndarray):
        raise ValueError(f"{name} must be a finite number, got {_describe(value)}")
    array = np.asarray(value, dtype=float)
    if array.ndim != 0 or not np.isfinite(array):
        raise ValueError(f"{name} must be a finite number, got {_describe(value)}")
    return float(array)


def _as_c(value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Real | np.ndarray):
        raise ValueError(f"c must be an integer from {C_MIN} to {C_MAX}, got "
                         f"{_describe(value)}")
    c = np.asarray(value, dtype=float)
    if c.ndim != 0 or not np.isfinite(c) or c != np.round(c) or not (
            C_MIN <= c <= C_MAX):
        raise ValueError(f"c must be an integer from {C_MIN} to {C_MAX}, got "
                         f"{_describe(value)}")
    return int(c)


def _as_points(values, name: str) -> tuple[np.ndarray, bool]:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric, got {_describe(values)}") from None
    if np.isnan(array).any():
        raise ValueError(f"{name} must not contain NaN")
    return array, array.ndim == 0


def _as_budgets(ns) -> np.ndarray:
    array, _ = _as_points(ns, "ns")
    if (~np.isfinite(array) | (array <= 0)).any():
        raise ParameterError("ns", f"ns must be positive and finite, got "
                             f"{array[~np.isfinite(array) | (array <= 0)].flat[0]:g}")
    return array


def _as_level(q) -> float:
    if isinstance(q, bool) or not isinstance(q, numbers.Real):
        raise ValueError(f"q must be a number in (0, 1), got {_describe(q)}")
    if not 0.0 < float(q) < 1.0:
        raise ValueError(f"q must lie in (0, 1), got {q!r}")
    return float(q)


def _as_direction(minimize, convex: bool) -> bool:
    if minimize is None:
        return convex
    if not isinstance(minimize, bool | np.bool_):
        raise ValueError(f"minimize must be True, False or None, got "
                         f"{_describe(minimize)}")
    return bool(minimize)


def _as_rng(rng):
    if rng is None:
        return np.random.default_rng()
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator or None, got "
                         f"{_describe(rng)}")
    return rng


# --------------------------------------------------------------- distributions


class QuadraticDistribution:
    r"""The quadratic distribution :math:`\mathcal{Q}(a, b, c)`.

    The limiting distribution of the best scores of random search on a smooth,
    noiseless objective near its optimum (Lourie, He and Cho 2025).

    Parameters
    ----------
    a, b : float
        The ends of the support, :math:`a < b`. Concave (maximising): ``b`` is
        the best achievable score. Convex (minimising): ``a`` is the best
        achievable loss.
    c : int, 1 to 10
        The effective number of hyperparameters.
    convex : bool, default False
        The convex (minimising) form instead of the concave (maximising) one.

    Notes
    -----
    Concave: :math:`F(y) = 1 - ((b - y)/(b - a))^{c/2}` on [a, b], density
    :math:`\tfrac{c}{2(b-a)}((b - y)/(b - a))^{c/2 - 1}`, mean
    :math:`a + 2(b - a)/(c + 2)`, variance :math:`4c(b - a)^2/((c + 2)^2(c + 4))`.
    Convex: :math:`F(y) = ((y - a)/(b - a))^{c/2}`, mean :math:`a + c(b-a)/(c+2)`.
    :math:`c = 2` is the uniform distribution in both forms.

    Tuning curves of the concave form (best of k draws, k > 0 real):

    .. math::

        \text{quantile: } b - (b - a)\,(1 - q^{1/k})^{2/c}, \qquad
        \text{mean: } b - (b - a)\,
        \frac{\Gamma(k + 1)\,\Gamma(1 + 2/c)}{\Gamma(k + 1 + 2/c)} ,

    computed as a ratio by ``scipy.special.poch``, which neither overflows nor
    cancels at large budgets (a difference of log-gammas loses three digits at
    :math:`k = 10^{12}`).

    References
    ----------
    Lourie, He and Cho (2025). Hyperparameter Loss Surfaces Are Simple Near their
    Optima. COLM. arXiv:2510.02721.

    Examples
    --------
    >>> from evp.parametric import QuadraticDistribution
    >>> dist = QuadraticDistribution(0.8, 0.9, 2)
    >>> round(dist.cdf(0.85), 12)
    0.5
    >>> dist.quantile_tuning_curve([1, 3]).round(4)
    array([0.85  , 0.8794])
    """

    _noisy = False

    def __init__(self, a, b, c, convex=False):
        self._set(a, b, c, None, convex)

    def _set(self, a, b, c, o, convex):
        a, b = _as_real(a, "a"), _as_real(b, "b")
        c = _as_c(c)
        if a >= b:
            raise ValueError(f"a must be less than b, got a={a!r} and b={b!r}")
        if not isinstance(convex, bool | np.bool_):
            raise ValueError(f"convex must be True or False, got {_describe(convex)}")
        if o is not None:
            o = _as_real(o, "o")
            if o <= 0:
                raise ValueError(f"o must be positive, got {o!r}; without noise use "
                                 "QuadraticDistribution")
        self.a, self.b, self.c, self.convex = a, b, c, bool(convex)
        if o is not None:
            self.o = o

    # --------------------------------------------------------------- basics
    def _params(self) -> str:
        return f"a={self.a!r}, b={self.b!r}, c={self.c!r}, convex={self.convex!r}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._params()})"

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return repr(self) == repr(other)

    def __hash__(self):
        return hash(repr(self))

    @property
    def mean(self) -> float:
        """The mean, :math:`a + 2(b - a)/(c + 2)` (concave) or
        :math:`a + c(b - a)/(c + 2)` (convex); the noise has mean 0."""
        share = self.c if self.convex else 2
        return self.a + (self.b - self.a) * share / (self.c + 2)

    @property
    def variance(self) -> float:
        """The variance, :math:`4c(b - a)^2/((c + 2)^2 (c + 4))` (plus
        :math:`o^2` with noise)."""
        c = self.c
        spread = 4 * c * (self.b - self.a) ** 2 / ((c + 2) ** 2 * (c + 4))
        return spread + getattr(self, "o", 0.0) ** 2

    # ------------------------------------------------- the CDF in both tails
    def _cdf_sf(self, y):
        """F(y) and 1 - F(y), each accurate in its own tail."""
        a, b, c = self.a, self.b, self.c
        with np.errstate(invalid="ignore"):
            if self.convex:
                F = (np.clip(y, a, b) - a) / (b - a)
                F = F ** (c / 2)
                return F, 1.0 - F
            S = ((b - np.clip(y, a, b)) / (b - a)) ** (c / 2)
            return 1.0 - S, S

    def cdf(self, ys):
        r"""The cumulative probability :math:`F(y) = P(Y \le y)`.

        Parameters
        ----------
        ys : float or array_like

        Returns
        -------
        float or numpy.ndarray
            In [0, 1], of the shape of `ys`.
        """
        ys, scalar = _as_points(ys, "ys")
        F = self._cdf_sf(ys)[0]
        return float(F) if scalar else F

    def sf(self, ys):
        r"""The survival function :math:`1 - F(y) = P(Y > y)`, accurate where it
        is small."""
        ys, scalar = _as_points(ys, "ys")
        S = self._cdf_sf(ys)[1]
        return float(S) if scalar else S

    def pdf(self, ys):
        """The probability density at `ys` (0 outside the support; infinite at the
        best end when c = 1)."""
        ys, scalar = _as_points(ys, "ys")
        a, b, c = self.a, self.b, self.c
        u = (ys - a) / (b - a) if self.convex else (b - ys) / (b - a)
        with np.errstate(divide="ignore", invalid="ignore"):
            density = np.where((u >= 0) & (u <= 1),
                               c / (2 * (b - a)) * np.abs(u) ** (c / 2 - 1), 0.0)
        return float(density) if scalar else density

    def _quantile(self, p, s):
        """The p-quantile, given p and s = 1 - p (each accurate when small)."""
        a, b, c = self.a, self.b, self.c
        if self.convex:
            return a + (b - a) * p ** (2 / c)
        return b - (b - a) * s ** (2 / c)

    def ppf(self, qs):
        r"""The quantile function :math:`\inf\{y : F(y) \ge q\}`.

        Parameters
        ----------
        qs : float or array_like in [0, 1]
        """
        qs, scalar = _as_points(qs, "qs")
        if ((qs < 0) | (qs > 1)).any():
            raise ValueError("qs must lie in [0, 1]")
        ys = self._quantile(qs, 1.0 - qs)
        return float(ys) if scalar else ys

    def sample(self, size=None, *, rng=None):
        """Draw random scores.

        Parameters
        ----------
        size : int or tuple of int, optional
            Output shape; None draws one float.
        rng : numpy.random.Generator, optional
            The source of randomness (a fresh unseeded one by default).

        Returns
        -------
        float or numpy.ndarray
        """
        rng = _as_rng(rng)
        t = rng.uniform(size=size) ** (1 / self.c)
        h = self.b - self.a
        ys = self.a + h * t * t if self.convex else self.b - h * t * t
        if self._noisy:
            ys = ys + self.o * rng.standard_normal(size=size)
        return float(ys) if size is None else ys

    # ------------------------------------------------------------ tuning curves
    def quantile_tuning_curve(self, ns, q=0.5, *, minimize=None):
        r"""The q-quantile of the best score of n draws, for each n in `ns`.

        Best is the maximum, or the minimum when `minimize`. The q-quantile of the
        maximum of n draws is :math:`F^{-1}(q^{1/n})`; of the minimum,
        :math:`F^{-1}(1 - (1 - q)^{1/n})`.

        Parameters
        ----------
        ns : float or array_like
            Budgets, positive reals (fractional budgets interpolate smoothly).
        q : float in (0, 1), default 0.5
            The quantile: 0.5 gives the median tuning curve.
        minimize : bool, optional
            Default: ``self.convex`` (convex distributions describe losses).

        Returns
        -------
        float or numpy.ndarray
            Of the shape of `ns`.
        """
        ns = _as_budgets(ns)
        q = _as_level(q)
        minimize = _as_direction(minimize, self.convex)
        # p = F at the answer, s = 1 - p; both computed without cancellation.
        if minimize:
            s = np.exp(np.log1p(-q) / ns)
            p = -np.expm1(np.log1p(-q) / ns)
        else:
            p = np.exp(np.log(q) / ns)
            s = -np.expm1(np.log(q) / ns)
        ys = self._quantile(p, s)
        return float(ys) if ys.ndim == 0 else ys

    def mean_tuning_curve(self, ns, *, minimize=None):
        r"""The expected best score of n draws, for each n in `ns`.

        Concave distribution, maximising:
        :math:`b - (b - a)\,\Gamma(n + 1)\Gamma(1 + 2/c)/\Gamma(n + 1 + 2/c)`;
        minimising: :math:`b - (b - a)\, n/(n + 2/c)`; the convex form mirrors
        these. (opda calls this the average tuning curve.)

        Parameters
        ----------
        ns : float or array_like
            Budgets, positive reals.
        minimize : bool, optional
            Default: ``self.convex``.
        """
        from scipy.special import gamma, poch

        ns = _as_budgets(ns)
        minimize = _as_direction(minimize, self.convex)
        a, b, c = self.a, self.b, self.c
        # Gamma(n + 1) / Gamma(n + 1 + 2/c) as 1 / poch(n + 1, 2/c): accurate where
        # a difference of log-gammas would cancel (n = 1e12 loses 3 digits).
        toward_best_end = gamma(1 + 2 / c) / poch(ns + 1, 2 / c)
        toward_far_end = ns / (ns + 2 / c)
        if self.convex:
            ys = a + (b - a) * (toward_best_end if minimize else toward_far_end)
        else:
            ys = b - (b - a) * (toward_far_end if minimize else toward_best_end)
        return float(ys) if ys.ndim == 0 else ys

    # --------------------------------------------------------------------- fit
    @classmethod
    def fit(cls, ys, limits=(-np.inf, np.inf), constraints=None, *, rng=None):
        r"""Fit by maximum product spacing, with censoring and constraints.

        Parameters
        ----------
        ys : array_like, shape (n,)
            Scores of n rounds of random search. Values outside `limits` may be
            infinite (they are censored).
        limits : (float, float), default (-inf, inf)
            The left-open interval :math:`(l, u]` fitted. A score
            :math:`\le l` counts only as being below it, a score :math:`> u` only
            as being above it (censoring). To fit the tail of scores you maximise
            use ``(threshold, inf)``; of losses you minimise,
            ``(-inf, threshold)``.
        constraints : mapping, optional
            Maps ``"a"``, ``"b"``, ``"c"``, ``"o"`` (noisy only) and ``"convex"``
            to a fixed value, to a closed interval ``(low, high)``, or (``"c"``
            and ``"convex"``) to a set of allowed values, e.g.
            ``{"b": (0, 1), "c": (1, 5), "convex": False}``. Unconstrained:
            a and b free, c in 1..10, o > 0, both forms tried.
        rng : numpy.random.Generator, optional
            Accepted for compatibility with opda's signature. The fit is
            deterministic and draws no random numbers.

        Returns
        -------
        QuadraticDistribution or NoisyQuadraticDistribution
            The fitted distribution (an instance of the class it is called on).

        Raises
        ------
        ValueError
            `ys` is not a 1-D array of numbers, has NaN, or has an infinite
            value inside `limits`; `limits` is not an increasing pair; fewer than
            ``MIN_OBSERVED`` (5) scores lie inside `limits`; a constraint is
            malformed, names an unknown parameter, or excludes every value (e.g.
            c outside 1–10, or, without noise, a support that cannot contain the
            scores).

        Notes
        -----
        **Objective.** Maximum product spacing (Cheng and Amin 1983; Ranneby
        1984) read as grouped likelihood (Titterington 1985), the variant opda
        documents: the distinct scores inside the limits, the limits themselves
        when scores are censored beyond them, and the ends of the support
        (:math:`\pm\infty` with noise) cut the line into buckets
        :math:`(z_{j-1}, z_j]`; :math:`N_j` scores fall in bucket j, with one
        extra point in the topmost bucket. The fit maximises

        .. math::

            \frac{1}{n + 1} \sum_j N_j
            \log \frac{(n + 1)\,[F(z_j) - F(z_{j-1})]}{N_j},

        an estimate of minus a Kullback–Leibler divergence (Ekström 2008), which
        allows ties and censoring. Scores are first rounded to a thousand times
        their floating-point resolution so that representation noise does not
        split ties. ``spacing_objective`` evaluates this objective.

        **Optimisation.** Every allowed (convex, c) is solved separately: starts
        from probability-plot regressions of the scores on the quantiles of a
        standardised distribution (a grid of noise-to-width ratios), then
        L-BFGS-B with exact gradients on (a, b, log o). The best pair wins. This
        is deterministic, and much faster than opda 0.8.0's differential
        evolution, whose answers it matches or beats on the objective.

        Why spacings rather than likelihood: with c = 1 and no noise the density
        is unbounded at the end of the support, so the likelihood is unbounded
        and maximum likelihood is inconsistent; maximum spacing is not.

        References
        ----------
        Lourie, He and Cho (2025). Hyperparameter Loss Surfaces Are Simple Near
        their Optima. COLM. arXiv:2510.02721.

        Cheng and Amin (1983), JRSS B 45(3); Ranneby (1984), Scand. J. Statist.
        11(2); Titterington (1985), JRSS B 47(1); Ekström (2008), JSPI 138(6).

        Examples
        --------
        >>> import numpy as np
        >>> from evp.parametric import NoisyQuadraticDistribution
        >>> truth = NoisyQuadraticDistribution(0.80, 0.90, 2, 0.004)
        >>> ys = truth.sample(500, rng=np.random.default_rng(0))
        >>> fitted = NoisyQuadraticDistribution.fit(
        ...     ys, limits=(0.85, np.inf), constraints={"convex": False})
        >>> fitted.c, round(fitted.b, 2)
        (2, 0.9)
        """
        del rng  # deterministic
        problem = _Problem(ys, limits, constraints, noisy=cls._noisy)
        best = problem.solve()
        return cls(**best)

    def spacing_objective(self, ys, limits=(-np.inf, np.inf)):
        """The maximum-spacing objective of these parameters on `ys` (see
        :meth:`fit`); higher is better. Useful to compare two fits."""
        problem = _Problem(ys, limits, None, noisy=self._noisy)
        return problem.objective(self)


class NoisyQuadraticDistribution(QuadraticDistribution):
    r"""The noisy quadratic distribution :math:`\mathcal{Q}(a, b, c, o)`.

    A quadratic distribution plus independent normal noise of standard deviation
    ``o``: :math:`Y = b - (b - a)T^2 + oE` (concave), :math:`P(T \le t) = t^c`,
    :math:`E \sim N(0, 1)`. The limiting distribution of the best scores of random
    search when each score is the objective plus noise (Lourie, He and Cho 2025).

    Parameters
    ----------
    a, b : float
        The ends of the noiseless part's support, :math:`a < b`.
    c : int, 1 to 10
        The effective number of hyperparameters.
    o : float > 0
        The standard deviation of the noise.
    convex : bool, default False
        The convex (minimising) form.

    Notes
    -----
    The CDF is a convolution, written as an integral over t in [0, 1],

    .. math::

        F(y) = \int_0^1 \Phi\!\left(\frac{y - b + (b - a) t^2}{o}\right)
               c\, t^{c-1} \, dt \quad \text{(concave)},

    computed by Gauss–Legendre quadrature on panels covering only the window
    where :math:`\Phi` is neither 0 nor 1 to within :math:`\Phi(-10)`; the rest
    is exact. :math:`F` and :math:`1 - F` are each accurate to about 1e-14 in
    absolute terms and keep their relative accuracy in their small tails. The
    quantile function is solved by safeguarded Newton steps on
    :math:`\log F` or :math:`\log(1 - F)`. The mean tuning curve is
    :math:`L + \int_L^H 1 - F(y)^n \,dy` (maximising), with
    :math:`[L, H] = [a - 10o, b + 10o]`, by adaptive Gauss–Legendre quadrature to
    about 1e-12 (b - a); opda 0.8.0 uses a trapezoidal rule with a looser
    tolerance (its mean at n = 1 is off by a few parts in 1e6).

    References
    ----------
    Lourie, He and Cho (2025). Hyperparameter Loss Surfaces Are Simple Near their
    Optima. COLM. arXiv:2510.02721.

    Examples
    --------
    >>> from evp.parametric import NoisyQuadraticDistribution
    >>> dist = NoisyQuadraticDistribution(0, 1, 2, 0.05)
    >>> round(float(dist.mean_tuning_curve(1)), 10)
    0.5
    """

    _noisy = True

    def __init__(self, a, b, c, o, convex=False):
        self._set(a, b, c, o, convex)

    def _params(self) -> str:
        return (f"a={self.a!r}, b={self.b!r}, c={self.c!r}, o={self.o!r}, "
                f"convex={self.convex!r}")

    def _standard(self, y, rule=_FINE, derivatives=False):
        """Standard coordinates of the concave mirror: (w, D)."""
        D = (self.b - self.a) / self.o
        w = (self.a - y) / self.o if self.convex else (y - self.b) / self.o
        return _standard_noisy(w, D, self.c, rule, derivatives)

    def _cdf_sf(self, y):
        F, S = self._standard(y)
        return (S, F) if self.convex else (F, S)

    def pdf(self, ys):
        """The probability density at `ys` (smooth and positive everywhere)."""
        ys, scalar = _as_points(ys, "ys")
        density = self._standard(ys, derivatives=True)[2] / self.o
        return float(density) if scalar else density

    def _quantile(self, p, s):
        p, s = np.broadcast_arrays(np.asarray(p, float), np.asarray(s, float))
        # In the concave mirror's standard units, solve F(w) = p' (S(w) = s').
        target_p, target_s = (s, p) if self.convex else (p, s)
        w = _standard_quantile(target_p, target_s, (self.b - self.a) / self.o,
                               self.c)
        return self.a - self.o * w if self.convex else self.b + self.o * w

    def mean_tuning_curve(self, ns, *, minimize=None):
        r"""The expected best score of n draws, for each n in `ns`.

        .. math::

            E[\max_{i \le n} Y_i] = L + \int_L^H 1 - F(y)^n \, dy, \qquad
            E[\min_{i \le n} Y_i] = L + \int_L^H (1 - F(y))^n \, dy,

        with :math:`[L, H] = [a - 10 o, b + 10 o]` (outside it F is 0 or 1 to
        within 1e-23), by adaptive Gauss–Legendre quadrature, to about
        1e-12 (b - a). No simulation.

        Parameters
        ----------
        ns : float or array_like
            Budgets, positive reals.
        minimize : bool, optional
            Default: ``self.convex``.
        """
        ns = _as_budgets(ns)
        minimize = _as_direction(minimize, self.convex)
        shape = ns.shape
        flat = ns.ravel()
        a, b, o = self.a, self.b, self.o
        lo, hi = a - _Z * o, b + _Z * o
        marks = [lo, hi, a, b] + [e + k * o for e in (a, b) for k in (-3, -1, 1, 3)]
        edges = np.unique(np.clip(marks, lo, hi))

        def integrand(y):
            F, S = self._cdf_sf(y)
            with np.errstate(divide="ignore"):
                if minimize:
                    log_s = np.where(S > 0.5, np.log1p(-F), np.log(S))
                    return np.exp(np.multiply.outer(log_s, flat))
                log_f = np.where(F > 0.5, np.log1p(-S), np.log(F))
                return -np.expm1(np.multiply.outer(log_f, flat))

        total = _adaptive_integral(integrand, edges, 1e-12 * (b - a + o))
        ys = (lo + total).reshape(shape)
        return float(ys) if ys.ndim == 0 else ys


@functools.lru_cache(maxsize=512)
def _bracket_table(D, c):
    """(points, F, S) of the standard concave noisy quadratic, F and S made
    monotone, on points dense in probability (the noiseless quantiles) and
    across the noise's width at both ends; read-only. Kept: a confidence set's
    curves ask for the same few (D, c) hundreds of times, for a handful of
    levels each."""
    low_end, high_end = -D - _Z - 1.0, _Z + 1.0
    kernel = np.linspace(-_Z - 1.0, _Z + 1.0, 45)
    grid = np.unique(np.clip(np.concatenate([
        -D * np.linspace(0.0, 1.0, 97) ** (2.0 / c), kernel, kernel - D]),
        low_end, high_end))
    F_t, S_t = _standard_noisy(grid, D, c)
    table = grid, np.maximum.accumulate(F_t), np.minimum.accumulate(S_t)
    for array in table:
        array.flags.writeable = False
    return table


def _standard_quantile(p, s, D, c):
    """w with F(w) = p (equivalently S(w) = s) for the standard concave noisy
    quadratic: bracketed from a table, then safeguarded Newton steps on log F
    (p <= 1/2) or log S (p > 1/2), for the unconverged points only."""
    p, s = np.broadcast_arrays(np.asarray(p, float), np.asarray(s, float))
    shape = p.shape
    p, s = p.ravel(), s.ravel()
    w = np.where(p <= 0, -np.inf, np.inf)
    todo = np.flatnonzero((p > 0) & (s > 0))
    if todo.size == 0:
        return w.reshape(shape)
    low_end, high_end = -D - _Z - 1.0, _Z + 1.0
    grid, F_t, S_t = _bracket_table(float(D), c)
    pp, ss = p[todo], s[todo]
    lower_half = pp <= 0.5
    # Bracket: the table points on either side of the level.
    i = np.where(lower_half, np.searchsorted(F_t, pp, side="left"),
                 grid.size - np.searchsorted(S_t[::-1], ss, side="left"))
    i = np.clip(i, 1, grid.size - 1)
    lo, hi = grid[i - 1], grid[i]
    f_lo = np.where(lower_half, F_t[i - 1], -S_t[i - 1])
    f_hi = np.where(lower_half, F_t[i], -S_t[i])
    goal = np.where(lower_half, pp, -ss)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = lo + (hi - lo) * np.clip((goal - f_lo) / (f_hi - f_lo), 0.0, 1.0)
        x = np.where(np.isfinite(x), x, (lo + hi) / 2)
        lo, hi = np.where(f_lo > goal, low_end, lo), np.where(f_hi < goal, high_end,
                                                              hi)
        target = np.where(lower_half, np.log(pp), np.log(ss))
        active = np.arange(todo.size)
        for _ in range(60):
            half = lower_half[active]
            G, f = _standard_noisy_side(x[active], D, c, half)  # F or S
            gap = np.log(G) - target[active]
            slope = np.where(half, f / G, -f / G)
            below = np.where(half, gap < 0, gap > 0)  # x is below the root
            lo[active] = np.where(below, x[active], lo[active])
            hi[active] = np.where(below, hi[active], x[active])
            step = gap / slope
            new = x[active] - step
            bad = ~np.isfinite(new) | (new < lo[active]) | (new > hi[active])
            new = np.where(bad, (lo[active] + hi[active]) / 2, new)
            converged = np.abs(gap) <= 1e-14
            new = np.where(converged, x[active], new)
            moved = np.abs(new - x[active])
            x[active] = new
            done = converged | (moved <= 1e-12 * np.maximum(1.0, np.abs(new)))
            active = active[~done]
            if active.size == 0:
                break
    w[todo] = x
    return w.reshape(shape)


# ---------------------------------------------------------------------- fitting


@functools.cache
def _quantile_table(c, s):
    """(CDF values, points) of Q(0, 1, c, s) on a grid, for rough quantiles by
    interpolation (starting points of the fit; about 1e-3 accurate)."""
    grid = np.linspace(-6 * s, 1 + 6 * s, 200)
    F = _standard_noisy((grid - 1) / s, 1 / s, c, (3, 8))[0]
    return np.maximum.accumulate(F), grid


def _interval(value, name):
    """A constraint on a real parameter: a number or a closed interval."""
    if isinstance(value, numbers.Real | np.ndarray) and np.ndim(value) == 0:
        x = _as_real(value, f"constraints[{name!r}]")
        return x, x
    try:
        low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"constraints[{name!r}] must be a number or a pair "
                         f"(low, high), got {_describe(value)}") from None
    if math.isnan(low) or math.isnan(high) or low > high:
        raise ValueError(f"constraints[{name!r}] must be a pair low <= high, got "
                         f"{_describe(value)}")
    return low, high


def _choices(value, name, allowed):
    """A constraint on a discrete parameter: one value, a pair (c only: an
    interval) or a set of values."""
    if name == "convex":
        values = [value] if isinstance(value, bool | np.bool_) else list(value) \
            if isinstance(value, set | frozenset | list | tuple) else None
        if not values or not all(isinstance(v, bool | np.bool_) for v in values):
            raise ValueError(f"constraints['convex'] must be True, False or a set "
                             f"of them, got {_describe(value)}")
        return sorted({bool(v) for v in values})
    if isinstance(value, set | frozenset):
        values = sorted({_as_c(v) for v in value})
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        values = [_as_c(value)]
    else:
        low, high = _interval(value, "c")
        values = [c for c in allowed if low <= c <= high]
    if not values:
        raise ValueError(f"constraints['c'] allows no c from {C_MIN} to {C_MAX}, "
                         f"got {_describe(value)}")
    return values


class _Problem:
    """Buckets and constraints of one maximum-spacing fit, in standard units."""

    def __init__(self, ys, limits, constraints, *, noisy):
        self.noisy = noisy
        ys = np.asarray(ys.to_numpy() if hasattr(ys, "to_numpy") else ys)
        try:
            ys = np.asarray(ys, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"ys must be numeric, got {_describe(ys)}") from None
        if ys.ndim != 1 or ys.size == 0:
            raise ValueError(f"ys must be a non-empty 1-D array, got shape "
                             f"{ys.shape}")
        if np.isnan(ys).any():
            raise ValueError("ys must not contain NaN")
        try:
            lower, upper = (float(v) for v in limits)
        except (TypeError, ValueError):
            raise ValueError(f"limits must be a pair (lower, upper), got "
                             f"{_describe(limits)}") from None
        if math.isnan(lower) or math.isnan(upper) or not lower < upper:
            raise ValueError(f"limits must be a pair lower < upper, got "
                             f"{_describe(limits)}")
        inside = (ys > lower) & (ys <= upper)
        if not np.isfinite(ys[inside]).all():
            raise ValueError("ys must be finite inside limits (infinite scores are "
                             "allowed only where limits censor them)")
        observed = ys[inside]
        if observed.size < MIN_OBSERVED:
            raise ValueError(
                f"limits {(lower, upper)} leave {observed.size} of {ys.size} scores "
                f"uncensored; a fit needs at least {MIN_OBSERVED}")
        self.n = n = ys.size
        self.n_lower = int(np.sum(ys <= lower))
        self.n_upper = int(np.sum(ys > upper))
        self.limits = (lower, upper)

        # Merge scores equal up to representation noise.
        resolution = np.max(np.spacing(np.abs(observed)))
        decimals = int(-np.floor(np.log10(resolution * 1000)))
        observed = np.round(observed, decimals)
        values, counts = np.unique(observed, return_counts=True)
        # Buckets (z_{j-1}, z_j]: the first from -inf, the last up to +inf.
        edges = list(values)
        bucket_counts = list(counts)
        if self.n_lower:
            if np.round(lower, decimals) < values[0]:
                edges.insert(0, lower)
                bucket_counts.insert(0, self.n_lower)
            else:
                bucket_counts[0] += self.n_lower
        if self.n_upper and np.round(upper, decimals) > values[-1]:
            edges.append(upper)
            bucket_counts.append(0)
        bucket_counts.append(self.n_upper + 1)
        self.edges = np.asarray(edges, float)
        self.counts = np.asarray(bucket_counts, float)
        self.observed_range = (float(values[0]), float(values[-1]))
        # Ranks (mid-ranks for ties) of the distinct scores, for starting points.
        below = self.n_lower + np.concatenate([[0], np.cumsum(counts)[:-1]])
        self.values = values
        self.positions = (below + (counts + 1) / 2) / (n + 1)

        self.constant = float(np.sum(self.counts[self.counts > 0] * np.log(
            (n + 1) / self.counts[self.counts > 0])) / (n + 1))
        self._constraints(constraints)

    # ----------------------------------------------------------- constraints
    def _constraints(self, constraints):
        if constraints is None:
            constraints = {}
        if not isinstance(constraints, Mapping):
            raise ValueError(f"constraints must be a mapping (a dict), got "
                             f"{_describe(constraints)}")
        known = ("a", "b", "c", "o", "convex") if self.noisy else ("a", "b", "c",
                                                                    "convex")
        unknown = [k for k in constraints if k not in known]
        if unknown:
            raise ValueError(f"constraints: unknown parameter {unknown[0]!r}; known "
                             f"parameters: {', '.join(known)}")
        self.a_range = _interval(constraints.get("a", (-np.inf, np.inf)), "a")
        self.b_range = _interval(constraints.get("b", (-np.inf, np.inf)), "b")
        self.cs = _choices(constraints.get("c", (C_MIN, C_MAX)), "c",
                           range(C_MIN, C_MAX + 1))
        self.convexes = _choices(constraints.get("convex", {False, True}), "convex",
                                 None)
        if self.noisy:
            low, high = _interval(constraints.get("o", (0.0, np.inf)), "o")
            if high <= 0:
                raise ValueError(f"constraints['o'] must allow a positive o, got "
                                 f"{_describe(constraints['o'])}")
            self.o_range = (max(low, 0.0), high)
        if self.a_range[0] >= self.b_range[1]:
            raise ValueError("constraints: a must be less than b, but the "
                             "constraints on a and b allow no such pair")
        if not self.noisy:
            low_end = self.edges[0]
            high_end = self.edges[-1]
            if self.a_range[0] >= low_end:
                raise ValueError(
                    f"constraints['a'] must allow a below the lowest score "
                    f"{low_end!r}: without noise the support contains every score")
            if self.b_range[1] <= high_end:
                raise ValueError(
                    f"constraints['b'] must allow b above the highest score "
                    f"{high_end!r}: without noise the support contains every score")

    # ------------------------------------------------------------- objective
    def _masses(self, a, b, o, c, rule, derivatives):
        """Bucket masses (and their gradients in a, b, log o) of the concave
        model on the edges (already mirrored for convex)."""
        e = self._mirrored_edges
        if o is None:
            h = b - a
            u = np.clip((b - e) / h, 0.0, 1.0)
            S = u ** (c / 2)
            F = 1.0 - S
            if derivatives:
                with np.errstate(divide="ignore", invalid="ignore"):
                    g = np.where(u > 0, (c / 2) * u ** (c / 2 - 1), 0.0)
                # dF/da = -dS/da = -(c/2) u^{c/2-1} * u / h; dF/db likewise.
                dF = np.stack([-g * u / h, -g * (1 - u) / h], axis=-1)
                dF = np.where(((u > 0) & (u < 1))[:, None], dF, 0.0)
        else:
            D = (b - a) / o
            w = (e - b) / o
            if derivatives:
                F, S, Fw, FD = _standard_noisy(w, D, c, rule, derivatives=True)
                dF = np.stack([-FD / o, (FD - Fw) / o, -(w * Fw + D * FD)], axis=-1)
            else:
                F, S = _standard_noisy(w, D, c, rule)
        F = np.concatenate([[0.0], F, [1.0]])
        S = np.concatenate([[1.0], S, [0.0]])
        upper = F[1:] > 0.5
        mass = np.where(upper, S[:-1] - S[1:], F[1:] - F[:-1])
        if not derivatives:
            return mass, None
        pad = np.zeros((1, dF.shape[1]))
        dF = np.concatenate([pad, dF, pad])
        return mass, dF[1:] - dF[:-1]

    def _value(self, x, c, rule=_FAST, derivatives=True):
        """Minus the objective at standard-unit parameters x = (a, b[, log o])."""
        a, b = x[0], x[1]
        o = math.exp(x[2]) if self.noisy else None
        k = self._mirrored_counts
        if not b - a > 1e-12:
            value = 1e6 * (1 + a - b)
            if not derivatives:
                return value
            return value, np.array([1e6, -1e6, 0.0][:len(x)])
        mass, dmass = self._masses(a, b, o, c, rule, derivatives)
        positive = k > 0
        safe = np.maximum(mass[positive], 1e-300)
        value = -(np.sum(k[positive] * np.log(safe)) / (self.n + 1) + self.constant)
        if not derivatives:
            return value
        # (Elementwise, not a BLAS product: BLAS threads idling between calls
        # would slow the optimiser down several fold on a busy machine.)
        weights = (k[positive] / safe)[:, None]
        grad = -np.sum(weights * dmass[positive], axis=0) / (self.n + 1)
        return value, grad

    def _orient(self, convex):
        """Mirror data and constraints so that the model is concave."""
        self.convex = convex
        z = (self.edges - self.center) / self.scale
        if convex:
            self._mirrored_edges = -z[::-1]
            self._mirrored_counts = self.counts[::-1]
            values = -(self.values[::-1] - self.center) / self.scale
            self._positions = 1 - self.positions[::-1]
            a_range = tuple(-(v - self.center) / self.scale for v in self.b_range[::-1])
            b_range = tuple(-(v - self.center) / self.scale for v in self.a_range[::-1])
        else:
            self._mirrored_edges = z
            self._mirrored_counts = self.counts
            values = (self.values - self.center) / self.scale
            self._positions = self.positions
            a_range = tuple((v - self.center) / self.scale for v in self.a_range)
            b_range = tuple((v - self.center) / self.scale for v in self.b_range)
        self._values = values
        return a_range, b_range

    def objective(self, dist):
        """The objective (higher is better) of a distribution on these data."""
        self.center, self.scale = 0.0, 1.0
        self._orient(dist.convex)
        if dist.convex:
            a, b = -dist.b, -dist.a
        else:
            a, b = dist.a, dist.b
        if self.noisy:
            x = np.array([a, b, math.log(dist.o)])
        else:
            x = np.array([a, b])
        return -float(self._value(x, dist.c, rule=_FINE, derivatives=False))

    # ---------------------------------------------------------------- solve
    def _starts(self, c, a_range, b_range):
        """Starting points from probability-plot regressions, best first."""
        p = self._positions
        y = self._values
        ratios = [0.0] if not self.noisy else [1e-4, 1e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0,
                                              3.0]
        starts = []
        for s in ratios:
            if s == 0.0:
                g = 1.0 - (1.0 - p) ** (2 / c)
            else:
                g = np.interp(p, *_quantile_table(c, s))
            # Least squares of y on a + h g (two unknowns: closed form).
            g_mean, y_mean = g.mean(), y.mean()
            spread = np.sum((g - g_mean) ** 2)
            h = np.sum((g - g_mean) * (y - y_mean)) / spread if spread > 0 else 0.0
            a = y_mean - h * g_mean
            if not h > 0:
                h = max(y[-1] - y[0], 1e-3)
                a = y[0] - h * g[0]
            b = a + h
            a = min(max(a, a_range[0]), a_range[1])
            b = min(max(b, b_range[0]), b_range[1])
            if not self.noisy:
                a = min(a, self._low_end - 1e-6)
                b = max(b, self._high_end + 1e-6)
            if not b > a:
                continue
            if self.noisy:
                o = min(max(s * (b - a), self._o_box[0]), self._o_box[1])
                x = np.array([a, b, math.log(o)])
            else:
                x = np.array([a, b])
            starts.append((self._value(x, c, derivatives=False), x))
        starts.sort(key=lambda item: item[0])
        return starts

    def _setup(self, convex):
        """Orient the problem for one form; return the optimiser's box."""
        a_range, b_range = self._orient(convex)
        e = self._mirrored_edges
        k = self._mirrored_counts
        self._low_end = e[np.argmax(k[:-1] > 0)]  # the lowest occupied edge
        self._high_end = e[-1]
        box_a = (max(a_range[0], -1e4), min(a_range[1], 1e4))
        box_b = (max(b_range[0], -1e4), min(b_range[1], 1e4))
        if not self.noisy:
            box_a = (box_a[0], min(box_a[1], self._low_end - 1e-12))
            box_b = (max(box_b[0], self._high_end + 1e-12), box_b[1])
        bounds = [box_a, box_b]
        if self.noisy:
            o_low = self.o_range[0] / self.scale
            o_high = self.o_range[1] / self.scale
            self._o_box = (max(o_low, 1e-9), min(o_high, 1e3))
            if self._o_box[0] > self._o_box[1]:
                self._o_box = (o_low, o_high)
            bounds.append((math.log(self._o_box[0]), math.log(self._o_box[1])))
        # A fixed parameter gets a sliver of room: TNC drops variables whose
        # bounds are equal, and then rejects the scales given for all of them.
        return [(low, high if high > low else low + 1e-12 * max(1.0, abs(low)))
                for low, high in bounds]

    def _local(self, x0, c, bounds, tight):
        """A local minimum of minus the objective from x0 (TNC rather than
        L-BFGS-B: the latter calls BLAS, whose worker threads slow it down many
        fold on a busy machine)."""
        from scipy.optimize import minimize

        options = {"maxfun": 1000, "scale": np.ones(len(x0))}
        if tight:
            options.update(ftol=1e-14, xtol=1e-10, gtol=1e-10)
        with np.errstate(all="ignore"):
            result = minimize(self._value, x0, args=(c,), jac=True, method="TNC",
                              bounds=bounds, options=options)
        return float(result.fun), result.x

    def solve(self):
        low, high = self.observed_range
        self.center = (low + high) / 2
        self.scale = (high - low) if high > low else max(abs(low), 1.0)
        # A quick local search for every (form, c) from its best starting points,
        candidates = []
        for convex in self.convexes:
            bounds = self._setup(convex)
            for c in self.cs:
                tried = []
                for value, x0 in self._starts(c, bounds[0], bounds[1])[:2]:
                    if tried and value > tried[0][0] + 0.05:
                        continue
                    tried.append(self._local(x0, c, bounds, tight=False))
                    tried.sort(key=lambda item: item[0])
                if tried:
                    candidates.append((tried[0][0], convex, c, tried[0][1]))
        if not candidates:
            raise ValueError("the fit found no parameters with a finite objective; "
                             "check limits and constraints")
        # then a tight search from the leaders, judged with the fine rule.
        candidates.sort(key=lambda item: item[0])
        self.candidates = candidates
        best = None
        for value, convex, c, x in candidates:
            if value > candidates[0][0] + 1e-3:
                break
            bounds = self._setup(convex)
            _, x = self._local(x, c, bounds, tight=True)
            value = float(self._value(x, c, rule=_FINE, derivatives=False))
            if best is None or value < best[0]:
                best = (value, convex, c, x.copy())
        _, convex, c, x = best
        a, b = x[0] * self.scale + self.center, x[1] * self.scale + self.center
        if convex:
            a, b = self.center - x[1] * self.scale, self.center - x[0] * self.scale
        params = {"a": a, "b": b, "c": c, "convex": convex}
        if self.noisy:
            params["o"] = math.exp(x[2]) * self.scale
        return params


# ------------------------------------------------------------ confidence sets


def _lower_hull(x, y):
    """Vertices of the lower convex hull of the points (x, y), by increasing x."""
    order = np.lexsort((y, x))
    hull: list[int] = []
    for i in order:
        while len(hull) >= 2:
            j, k = hull[-2], hull[-1]
            # Drop k when it lies on or above the segment from j to i.
            if (x[k] - x[j]) * (y[i] - y[j]) - (y[k] - y[j]) * (x[i] - x[j]) <= 0:
                hull.pop()
            else:
                break
        if hull and x[hull[-1]] == x[i]:
            continue  # same x, higher y: never on the lower hull
        hull.append(i)
    return x[hull], y[hull]


def _feasible_vertices(y, g_low, g_high, h_cap):
    r"""Vertices of :math:`\{(a, h): a + h g^-_i \le y_i \le a + h g^+_i, 0 < h \le
    h_{cap}\}`, a convex polygon; returns (a, h, unbounded) or None when empty.

    For fixed h, a lies between :math:`L(h) = \max_i (y_i - h g^+_i)` and
    :math:`U(h) = \min_i (y_i - h g^-_i)`, piecewise-linear functions whose kinks
    are the slopes of the upper hull of :math:`(g^+_i, y_i)` and of the lower
    hull of :math:`(g^-_i, y_i)`. Between kinks everything is linear, so the
    polygon's vertices lie above the kinks and the ends of the feasible h-range.
    """
    if np.isnan(g_low).any() or np.isnan(g_high).any():
        # Dropping a constraint would let every (a, h) in: never silently.
        raise FloatingPointError("a quantile of the standard noisy quadratic is "
                                 "NaN; the confidence set cannot be decided")
    lo = np.isfinite(g_low)  # levels 0 and 1 (infinite quantiles) bind nothing
    hi = np.isfinite(g_high)
    ux, uy = _lower_hull(g_low[lo], y[lo]) if lo.any() else (np.zeros(0),) * 2
    lx, ly = _lower_hull(g_high[hi], -y[hi]) if hi.any() else (np.zeros(0),) * 2
    ly = -ly  # upper hull of (g_high, y)
    kinks = [np.diff(uy) / np.diff(ux), np.diff(ly) / np.diff(lx)]
    hs = np.concatenate([[h_cap * 1e-12, h_cap], *kinks])
    hs = np.unique(hs[(hs > 0) & (hs <= h_cap)])

    def envelopes(h):
        upper = np.min(uy - np.multiply.outer(h, ux), axis=-1) if ux.size else \
            np.full(np.shape(h), np.inf)
        lower = np.max(ly - np.multiply.outer(h, lx), axis=-1) if lx.size else \
            np.full(np.shape(h), -np.inf)
        return lower, upper

    lower, upper = envelopes(hs)
    gap = upper - lower  # concave in h
    ok = gap >= 0
    if not ok.any():
        return None
    first, last = np.flatnonzero(ok)[[0, -1]]
    ends = []
    if first > 0:  # the gap crosses zero between hs[first - 1] and hs[first]
        g0, g1 = gap[first - 1], gap[first]
        ends.append(hs[first - 1] + (hs[first] - hs[first - 1]) * g0 / (g0 - g1))
    if last < hs.size - 1:
        g0, g1 = gap[last], gap[last + 1]
        ends.append(hs[last] + (hs[last + 1] - hs[last]) * g0 / (g0 - g1))
    h = np.concatenate([hs[first:last + 1], ends])
    lower, upper = envelopes(h)
    upper = np.maximum(upper, lower)  # the crossing points, up to rounding
    unbounded = bool(last == hs.size - 1 and np.isfinite(upper[-1] - lower[-1]))
    return np.concatenate([lower, upper]), np.concatenate([h, h]), unbounded


# Resolution and range of the search over s = o / (b - a) in confidence_set.
_STEPS_PER_DECADE = 16
_WALK = (1e-6, 1e2)
# Said where an empty confidence set is shown.
_EMPTY = ("the {confidence:.0%} confidence set is empty: no (noisy) quadratic tail "
          "stays inside the CDF band beyond {threshold:g}, so the model is "
          "rejected there (scores piled at a ceiling do this) and a fit's "
          "extrapolation is not to be trusted; try a threshold nearer the best "
          "scores")

# Below this (subnormal) noise ratio the standard quantiles lose all precision.
_S_MIN = 1e-300


def _searchable(s):
    """Whether the noise ratio s can be decided: 0 (no noise) or a finite
    ratio whose standard quantiles keep their precision."""
    return s == 0 or _S_MIN <= s < np.inf


def _standard_quantiles(levels, c, s):
    """Quantiles of the standard concave Q(0, 1, c, s) (s = 0: no noise) at
    `levels` in [0, 1]: -inf at 0 and +inf at 1 with noise."""
    levels = np.asarray(levels, float)
    if s == 0.0:
        return 1.0 - (1.0 - levels) ** (2 / c)
    return 1.0 + s * _standard_quantile(levels, 1.0 - levels, 1.0 / s, c)


@dataclass(frozen=True, repr=False)
class ConfidenceSet:
    r"""Parameters of the (noisy) quadratic tail compatible with a CDF band.

    Made by :func:`confidence_set`. With probability at least ``confidence``
    the true parameters belong to the set (when the model holds above the
    threshold); so do the intervals below, which are its projections.

    Attributes
    ----------
    best : (float, float)
        Interval for the best achievable score: b when maximising, a (the least
        loss) when minimising. ``inf`` when the data do not bound it.
    o : (float, float)
        Interval for the noise's standard deviation (0: no noise).
    c : tuple of int
        The plausible effective numbers of hyperparameters.
    confidence : float
    threshold : float
    minimize : bool
    n_tail : int
        How many scores lie in the fitted region (above the threshold, or at or
        below it when minimising).
    n : int
        How many scores in all.
    """

    best: tuple
    o: tuple
    c: tuple
    confidence: float
    threshold: float
    minimize: bool
    n_tail: int
    n: int
    _members: tuple = ()

    @property
    def empty(self) -> bool:
        """True when no (noisy) quadratic tail stays inside the band: the
        model is rejected beyond the threshold, and the set bounds nothing."""
        return not self._members

    def __repr__(self) -> str:
        if self.empty:
            return (f"ConfidenceSet({self.confidence:g}: empty, the model is "
                    f"rejected; {self.n_tail} of {self.n} scores beyond "
                    f"{self.threshold:g})")
        name = "a (least loss)" if self.minimize else "b (best score)"
        return (f"ConfidenceSet({self.confidence:g}: {name} in "
                f"[{self.best[0]:.6g}, {self.best[1]:.6g}], o in "
                f"[{self.o[0]:.3g}, {self.o[1]:.3g}], c in {set(self.c)}; "
                f"{self.n_tail} of {self.n} scores beyond {self.threshold:g})")

    def _repr_html_(self) -> str:
        from evp import _display

        title = f"Noisy quadratic tail: {self.confidence:.0%} confidence set"
        fitted = (f"fitted to the {self.n_tail} of {self.n} scores beyond "
                  f"{self.threshold:g}")
        if self.empty:
            return _display.page(title, [fitted, _EMPTY.format(
                confidence=self.confidence, threshold=self.threshold)], [])
        name = "a (the least loss)" if self.minimize else "b (the best score)"
        shown = _display.table({
            "parameter": [name, "o (noise sd)", "c (effective hyperparameters)"],
            f"{self.confidence:.0%} interval": [
                f"[{_display.number(self.best[0])}, {_display.number(self.best[1])}]",
                f"[{_display.number(self.o[0])}, {_display.number(self.o[1])}]",
                "{" + ", ".join(map(str, self.c)) + "}"]})
        return _display.page(title, [fitted], [shown])

    def quantile_tuning_curve(self, ns, q=0.5):
        r"""Lower and upper bounds on the q-quantile tuning curve at budgets `ns`.

        Each bound is the extreme of the curve over the set, so both hold for
        every budget at once (any n > 0, beyond the sample included) with the
        set's confidence. Where a member's curve falls below the threshold (the
        model says nothing there) the bounds become (-inf, threshold]. Best is
        the maximum, or the minimum when minimising. An empty set bounds
        nothing: its bounds are NaN.

        Returns
        -------
        (numpy.ndarray, numpy.ndarray)
            Lower and upper bounds, of the shape of `ns`.
        """
        ns = _as_budgets(ns)
        q = _as_level(q)
        flat = ns.ravel()
        # In the concave mirror image the best is always the maximum.
        p = np.exp(np.log(1 - q if self.minimize else q) / flat)
        lower = np.full(flat.shape, np.inf)
        upper = np.full(flat.shape, -np.inf)
        start = -self.threshold if self.minimize else self.threshold
        for c, s, a, h, center, scale in self._members:
            g = _standard_quantiles(p, c, s)
            values = (a[:, None] + h[:, None] * g[None, :]) * scale + center
            outside = values <= start
            lower = np.minimum(lower, np.where(outside, -np.inf, values).min(axis=0))
            upper = np.maximum(upper, np.where(outside, start, values).max(axis=0))
        if self.empty:
            lower = upper = np.full(flat.shape, np.nan)
        if self.minimize:
            lower, upper = -upper, -lower
        return lower.reshape(ns.shape), upper.reshape(ns.shape)


def _tail_band(ys, threshold, confidence, minimize, method):
    """Sorted tail scores in the concave mirror, with their band bounds (ties
    reduced to their binding bounds)."""
    from evp.bands import cdf_band

    ys = np.asarray(ys.to_numpy() if hasattr(ys, "to_numpy") else ys, dtype=float)
    if ys.ndim != 1 or ys.size == 0 or not np.isfinite(ys).all():
        raise ValueError("ys must be a non-empty 1-D array of finite scores")
    threshold = _as_real(threshold, "threshold")
    # A loss's band is the band of the negated losses (the concave mirror), not
    # the losses' band reflected: with ties the two differ (a step function's
    # reflection moves its jumps to the other side), and a loss must get exactly
    # the answer of its negation, maximised.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # ties: see the docs
        band = cdf_band(-ys if minimize else ys, confidence, method=method)
    y, lower, upper = band.scores, band.lower, band.upper
    inside = y > (-threshold if minimize else threshold)  # strictly beyond it
    y, lower, upper = y[inside], lower[inside], upper[inside]
    if y.size < MIN_OBSERVED:
        raise ValueError(f"threshold {threshold!r} leaves {y.size} of {ys.size} "
                         f"scores in the fitted region; at least {MIN_OBSERVED} "
                         "are needed")
    # For tied scores only the largest lower and the smallest upper bound bind.
    values, first = np.unique(y, return_index=True)
    last = np.append(first[1:], y.size) - 1
    return values, lower[last], upper[first], ys.size, int(inside.sum())


def confidence_set(ys, threshold, confidence=0.8, *, minimize=False,
                   constraints=None, noise_ratios=None,
                   method="ld_highest_density"):
    r"""Exact confidence set for the noisy quadratic tail, from a CDF band.

    A simultaneous CDF band (:func:`evp.cdf_band`) holds the true CDF at every
    order statistic at once with probability ``confidence``. Every parameter
    value :math:`\theta = (a, b, c, o)` whose CDF stays inside the band at the
    order statistics in the fitted region therefore forms a set that contains
    the true :math:`\theta` with probability at least ``confidence``.

    **Assumption:** the scores are i.i.d. (random search) and, in the fitted
    region (above `threshold`; below it when `minimize`), their CDF *is* a
    noisy quadratic CDF (or its no-noise limit, o = 0). Below the threshold
    nothing is assumed. The threshold must be chosen without looking at the
    data for the guarantee to hold exactly (a threshold from
    :func:`choose_threshold` is data-driven).

    Parameters
    ----------
    ys : array_like, shape (n,)
        All the scores (the band needs the ranks among all n).
    threshold : float
        Start of the fitted region: scores above it (below it when minimising)
        are the tail; a score equal to it is not.
    confidence : float in (0, 1), default 0.8
    minimize : bool, default False
        The scores are losses: the convex form, whose best end is a.
    constraints : mapping, optional
        ``{"c": (low, high)}`` or ``{"c": {values}}`` restricts c (default 1 to
        10).
    noise_ratios : sequence of float, optional
        The values of the noise-to-width ratio :math:`s = o/(b - a)` searched.
        By default: s = 0 (no noise), a coarse grid of 11 values from 1e-4 to
        10, and, from every value found in the set and from the maximum-spacing
        fit for each c, a walk up and down a grid of 16 values per decade (from
        1e-6 to 100) until two steps in a row leave the set. For each (c, s)
        the set is exact (see Notes); between grid values of s it is not
        searched.
    method : str, default "ld_highest_density"
        The band's construction (see :func:`evp.cdf_band`).

    Returns
    -------
    ConfidenceSet
        With ``.best``, ``.o`` (intervals), ``.c`` (plausible values) and the
        method ``.quantile_tuning_curve(ns, q)`` giving lower and upper curves
        at any budget, beyond the sample included. The set is ``.empty`` (with
        a RuntimeWarning) when no (noisy) quadratic tail stays inside the band:
        the model is rejected beyond the threshold at this confidence.

    Raises
    ------
    ValueError
        Bad scores, a confidence outside (0, 1), or fewer than 5 scores in the
        fitted region.

    Notes
    -----
    The family is location-scale: :math:`F_\theta(y) = G_{c,s}((y - a)/h)` with
    :math:`h = b - a` and :math:`G_{c,s}` the CDF of
    :math:`\mathcal{Q}(0, 1, c, s)`. The band condition
    :math:`l_i \le F_\theta(Y_{(i)}) \le u_i` is therefore
    :math:`a + h\,G^{-1}(l_i) \le Y_{(i)} \le a + h\,G^{-1}(u_i)`: for each
    (c, s), the set of (a, h) is a convex polygon cut out by 2 half-planes per
    tail score. b = a + h, o = s h and every tuning curve value
    (:math:`a + h\,G^{-1}(q^{1/n})` or :math:`a + h\,M_{c,s}(n)`) are linear in
    (a, h), so their extremes over the polygon are attained at its vertices,
    found exactly from two convex hulls. The union over the (c, s) grid is the
    set. With ties (scores on a grid, such as accuracy on a finite validation
    set) the band's coverage is no longer exact; the tied scores are then held to
    the band's binding bounds.

    References
    ----------
    Lourie, He and Cho (2025). Hyperparameter Loss Surfaces Are Simple Near their
    Optima. COLM. arXiv:2510.02721.

    Lourie, Cho and He (2024). Show Your Work with Confidence. NAACL.

    Examples
    --------
    >>> import numpy as np
    >>> from evp.parametric import NoisyQuadraticDistribution, confidence_set
    >>> truth = NoisyQuadraticDistribution(0.80, 0.90, 2, 0.004)
    >>> ys = truth.sample(300, rng=np.random.default_rng(1))
    >>> found = confidence_set(ys, 0.85, 0.8)
    >>> bool(found.best[0] <= 0.90 <= found.best[1])
    True
    """
    minimize = _as_direction(minimize, False)
    y, lower, upper, n, n_tail = _tail_band(ys, threshold, confidence, minimize,
                                            method)
    constraints = {} if constraints is None else dict(constraints)
    unknown = [k for k in constraints if k != "c"]
    if unknown:
        raise ValueError(f"constraints: only 'c' is supported here, got "
                         f"{unknown[0]!r}")
    cs = _choices(constraints.get("c", (C_MIN, C_MAX)), "c", range(C_MIN, C_MAX + 1))
    center = float(y[0])
    scale = float(y[-1] - y[0]) or 1.0
    z = (y - center) / scale
    levels = np.concatenate([lower, upper])
    found = {}

    def member(c, s):
        if (c, s) not in found:
            g_low, g_high = np.split(_standard_quantiles(levels, c, s), 2)
            found[c, s] = _feasible_vertices(z, g_low, g_high, h_cap=1e6)
        return found[c, s]

    if noise_ratios is not None:
        ratios = sorted({float(v) for v in np.ravel(noise_ratios)})
        if not ratios or not all(map(_searchable, ratios)):
            raise ValueError(f"noise_ratios must be 0 or finite numbers from "
                             f"{_S_MIN:g} up, got {ratios}")
        for c in cs:
            for ratio in ratios:
                member(c, ratio)
    else:
        # Seeds: the maximum-spacing fit for each c, and a coarse grid of s.
        seeds = {c: [] for c in cs}
        try:
            scores = np.asarray(ys, dtype=float)
            fit = _Problem(-scores if minimize else scores,
                           (-threshold if minimize else threshold, np.inf),
                           {"c": set(cs), "convex": False}, noisy=True)
            fit.solve()
            for _, _, c, x in fit.candidates:
                # A local optimum of a c that fits badly may be degenerate
                # (b <= a): its ratio is negative or infinite, no seed.
                width = float(x[1] - x[0])
                if width > 0 and _searchable(seed := math.exp(x[2]) / width):
                    seeds[c].append(seed)
        except ValueError:
            pass
        coarse = [0.0, *np.logspace(-4, 1, 11)]
        step = 10 ** (1 / _STEPS_PER_DECADE)
        for c in cs:
            hits = [ratio for ratio in coarse if member(c, ratio) is not None]
            for seed in seeds[c]:
                # Snap to the fine grid so that walks share evaluations.
                ratio = float(step ** np.round(np.log(seed) / np.log(step)))
                if member(c, ratio) is not None:
                    hits.append(ratio)
            for ratio in hits:
                for direction in (step, 1 / step):
                    current = ratio if ratio > 0 else 1e-4 * step
                    misses = 0
                    while _WALK[0] <= current <= _WALK[1] and misses < 2:
                        current = float(step ** np.round(np.log(current * direction)
                                                         / np.log(step)))
                        misses = 0 if member(c, current) is not None else misses + 1
    members = []
    best = [np.inf, -np.inf]
    noise = [np.inf, -np.inf]
    unbounded = False
    for (c, ratio), vertices in sorted(found.items()):
        if vertices is None:
            continue
        a, h, open_ended = vertices
        unbounded |= open_ended
        members.append((c, ratio, a, h, center, scale))
        b = (a + h) * scale + center
        best = [min(best[0], b.min()), max(best[1], b.max())]
        o = ratio * h * scale
        noise = [min(noise[0], o.min()), max(noise[1], o.max())]
    if not members:
        best = noise = [np.nan, np.nan]
    elif unbounded:
        best[1] = noise[1] = np.inf
    plausible = tuple(sorted({m[0] for m in members}))
    if minimize:
        best = [-best[1], -best[0]]
        threshold = float(threshold)
    if not members:
        warnings.warn(_EMPTY.format(confidence=confidence, threshold=threshold),
                      EmptyConfidenceSetWarning, stacklevel=2)
    return ConfidenceSet(best=tuple(float(v) for v in best),
                         o=tuple(float(v) for v in noise), c=plausible,
                         confidence=float(confidence), threshold=float(threshold),
                         minimize=minimize, n_tail=n_tail, n=n,
                         _members=tuple(members))


def in_tail(ys, threshold, *, minimize=False) -> np.ndarray:
    """Which scores lie beyond `threshold`, in the fitted tail: strictly above it,
    or a loss's strictly below it (a score equal to it is not).

    >>> import numpy as np
    >>> from evp.parametric import in_tail
    >>> ys = np.array([0.3, 0.4, 0.5])
    >>> in_tail(ys, 0.4), in_tail(ys, 0.4, minimize=True)
    (array([False, False,  True]), array([ True, False, False]))
    """
    ys = np.asarray(ys, dtype=float)
    return ys < threshold if minimize else ys > threshold


def fit_tail(ys, threshold, *, minimize=False, constraints=None):
    """The maximum-spacing fit of the noisy quadratic tail beyond `threshold`.

    The scores above `threshold` (a loss's: below it; a score equal to it is not
    in the tail) are fitted; the rest count, censored, as rounds beyond the
    other side. A loss's fit is the mirror image of the fit of the negated
    losses, maximised: a convex :class:`NoisyQuadraticDistribution` with
    :math:`a = -b'` and :math:`b = -a'`, so that a loss and its negation give one
    answer, exactly (as :func:`confidence_set` does).

    Parameters
    ----------
    ys : array_like, shape (n,)
        All the scores.
    threshold : float
    minimize : bool, default False
        The scores are losses.
    constraints : mapping, optional
        As for :meth:`NoisyQuadraticDistribution.fit`, in the scores' own terms
        (``"a"`` bounds a loss's least value); ``convex`` is set from
        `minimize`.

    Returns
    -------
    NoisyQuadraticDistribution
        Convex when `minimize`.

    Examples
    --------
    >>> import numpy as np
    >>> from evp.parametric import NoisyQuadraticDistribution, fit_tail
    >>> ys = NoisyQuadraticDistribution(0.80, 0.90, 2, 0.004).sample(
    ...     300, rng=np.random.default_rng(1))
    >>> score, loss = fit_tail(ys, 0.85), fit_tail(-ys, -0.85, minimize=True)
    >>> bool(loss.convex), loss.a == -score.b, loss.b == -score.a
    (True, True, True)
    """
    minimize = _as_direction(minimize, False)
    threshold = _as_real(threshold, "threshold")
    constraints = dict(constraints or {})
    constraints["convex"] = False
    if not minimize:
        return NoisyQuadraticDistribution.fit(ys, (threshold, np.inf), constraints)
    scores = np.asarray(ys.to_numpy() if hasattr(ys, "to_numpy") else ys)
    try:
        scores = -np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"ys must be numeric, got {_describe(ys)}") from None
    # The mirror's b is the loss's a (its best end), and the other way round.
    ends = {name: constraints.pop(name) for name in ("a", "b") if name in constraints}
    for name, value in ends.items():
        low, high = _interval(value, name)
        constraints["b" if name == "a" else "a"] = (-high, -low)
    fit = NoisyQuadraticDistribution.fit(scores, (-threshold, np.inf), constraints)
    return NoisyQuadraticDistribution(-fit.b, -fit.a, fit.c, fit.o, convex=True)


# ---------------------------------------------------- goodness of fit, threshold


@dataclass(frozen=True)
class GoodnessOfFit:
    """Does a fitted CDF stay inside a simultaneous CDF band over the tail?

    Attributes
    ----------
    passed : bool
        True when the fitted CDF lies inside the band at every order statistic
        of the fitted region.
    worst : float
        The largest distance (in probability) by which the fitted CDF leaves the
        band there; 0 when it passes.
    confidence : float
        The band's confidence.
    n_tail : int
        Scores in the fitted region.
    """

    passed: bool
    worst: float
    confidence: float
    n_tail: int


def goodness_of_fit(dist, ys, threshold, confidence=0.95, *,
                    method="ld_highest_density"):
    """Check a fitted (noisy) quadratic tail against a simultaneous CDF band.

    If the model holds above `threshold` (below it for a convex fit), its
    true CDF lies inside the band at every tail order statistic with probability
    `confidence`; a fitted CDF that leaves the band is evidence against the
    model, or against the threshold (lower it less, raise it more). This is the
    check opda's analyses make by eye with a 95% band.

    Parameters
    ----------
    dist : QuadraticDistribution or NoisyQuadraticDistribution
        The fitted distribution; ``dist.convex`` says whether the tail is below
        (losses) or above (scores) the threshold.
    ys : array_like, shape (n,)
        All the scores.
    threshold : float
    confidence : float in (0, 1), default 0.95
    method : str, default "ld_highest_density"
        The band (see :func:`evp.cdf_band`).

    Returns
    -------
    GoodnessOfFit
    """
    if not isinstance(dist, QuadraticDistribution):
        raise ValueError(f"dist must be a QuadraticDistribution or "
                         f"NoisyQuadraticDistribution, got {_describe(dist)}")
    y, lower, upper, _, n_tail = _tail_band(ys, threshold, confidence, dist.convex,
                                            method)
    # y is in the concave mirror image: F_mirror(v) = 1 - F(-v) for convex fits.
    F = dist.sf(-y) if dist.convex else dist.cdf(y)
    worst = float(np.max(np.maximum(lower - F, F - upper), initial=0.0))
    return GoodnessOfFit(passed=worst <= 0.0, worst=max(worst, 0.0),
                         confidence=float(confidence), n_tail=n_tail)


@dataclass(frozen=True)
class Threshold:
    """A threshold chosen from the data by :func:`choose_threshold`.

    Attributes
    ----------
    threshold : float
        The chosen threshold (None when no candidate passed).
    fit : NoisyQuadraticDistribution or None
        The fit at that threshold.
    candidates : tuple of (float, bool)
        Every threshold tried, in order, with whether its fit passed.
    """

    threshold: float | None
    fit: NoisyQuadraticDistribution | None
    candidates: tuple

    def __repr__(self) -> str:
        shown = "none passed" if self.threshold is None else f"{self.threshold:g}"
        return (f"Threshold({shown}; {sum(p for _, p in self.candidates)} of "
                f"{len(self.candidates)} candidates passed)")


def choose_threshold(ys, *, minimize=False, confidence=0.95,
                     quantiles=(0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9),
                     constraints=None):
    """Choose a threshold from the data: the widest tail the model fits.

    The quadratic approximation holds near the optimum, so a threshold trades
    data (a lower threshold keeps more scores) against bias (the model may not
    hold far from the optimum). The manual choice reads a plot; this is a
    documented data-driven rule: candidate thresholds are the `quantiles` of the
    scores (their complements when minimising), tried from the widest tail to
    the narrowest; the first whose maximum-spacing fit passes
    :func:`goodness_of_fit` at `confidence` is chosen.

    A threshold chosen this way depends on the data, so a
    :func:`confidence_set` computed with it no longer has exactly its nominal
    coverage; choose the threshold on other data (an earlier search, a
    sub-sample) when that matters.

    Parameters
    ----------
    ys : array_like, shape (n,)
    minimize : bool, default False
    confidence : float in (0, 1), default 0.95
        Of the goodness-of-fit band (a high confidence makes the check lenient).
    quantiles : sequence of float in (0, 1)
        The candidates, as quantiles of the scores.
    constraints : mapping, optional
        Passed to :func:`fit_tail` (``convex`` is set from `minimize`).

    Returns
    -------
    Threshold
    """
    scores = np.asarray(ys.to_numpy() if hasattr(ys, "to_numpy") else ys, float)
    minimize = _as_direction(minimize, False)
    levels = sorted(float(_as_level(q)) for q in quantiles)
    tried = []
    for level in levels:
        threshold = float(np.quantile(scores, 1 - level if minimize else level))
        try:
            fit = fit_tail(scores, threshold, minimize=minimize,
                           constraints=constraints)
        except ValueError:
            tried.append((threshold, False))
            continue
        passed = goodness_of_fit(fit, scores, threshold, confidence).passed
        tried.append((threshold, passed))
        if passed:
            return Threshold(threshold=threshold, fit=fit, candidates=tuple(tried))
    return Threshold(threshold=None, fit=None, candidates=tuple(tried))
