r"""Score distributions to simulate from, with exact CDFs and exact tuning curves.

Simulation studies need a "true" distribution whose tuning curves are known exactly,
so that estimates and bands can be checked against them without simulation error.

:class:`ReflectedKDE` is a Gaussian kernel density estimate on a bounded interval
[a, b] (scores such as accuracy or F1 live on [0, 1]), made proper by reflecting
every kernel at both ends, as Lourie, Cho and He (2024, §5.1) do for the Reuters
scores of Tang et al. (2020). Reflection is exact: a kernel draw outside [a, b] is
folded back (mirror at a and b, repeatedly), so the density is the sum of the
kernel's images

.. math::

    f(x) = \frac{1}{m} \sum_{j=1}^{m} \sum_{k \in \mathbb{Z}}
        \big[\varphi_h(x - x_j - 2kL) + \varphi_h(x + x_j - 2a - 2kL)\big],
    \qquad L = b - a,

and the CDF is the same sum of normal CDF differences. Images farther than
40 bandwidths away contribute nothing in double precision and are dropped. The
sampler and the CDF therefore describe the same distribution.

For such a distribution the tuning curves are exact integrals: the mean of the best
of n is :math:`a + \int_a^b 1 - F(x)^n \, dx` and the q-quantile of the best of n
is :math:`F^{-1}(q^{1/n})`.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from evp._validation import as_ns, as_probability, as_scores, chunks

__all__ = ["ReflectedKDE"]

# Kernel images farther than this many bandwidths from [a, b] are dropped.
_REACH = 40
# scipy.optimize.brentq's relative tolerance, 4 machine epsilons.
_RTOL = 4 * np.finfo(float).eps

class ReflectedKDE:
    """Gaussian KDE on [a, b] with exact reflection at both ends.

    Parameters
    ----------
    data : array_like, shape (m,)
        Points in [a, b] on which the kernels sit.
    bandwidth : float
        Standard deviation of each Gaussian kernel, in score units.
    bounds : (float, float)
        The interval [a, b]; default [0, 1].
    """

    def __init__(self, data, bandwidth: float, *, bounds=(0.0, 1.0)):
        self.data = as_scores(data, "data", ndim=(1,))
        a, b = (float(v) for v in bounds)
        if not a < b:
            raise ValueError(f"bounds must satisfy a < b, got {bounds}")
        if self.data.min() < a or self.data.max() > b:
            raise ValueError(f"bounds {bounds} must contain data, which spans "
                             f"[{self.data.min()}, {self.data.max()}]")
        if not (np.isfinite(bandwidth) and bandwidth > 0):
            raise ValueError(f"bandwidth must be positive, got {bandwidth}")
        self.bandwidth = float(bandwidth)
        self.bounds = (a, b)
        width = b - a
        reach = int(np.ceil((_REACH * self.bandwidth) / (2 * width))) + 1
        shifts = 2 * width * np.arange(-reach, reach + 1)
        # Centres of every image of every kernel: x_j + 2kL and 2a - x_j + 2kL.
        centres = np.concatenate([
            (self.data[:, None] + shifts).ravel(),
            (2 * a - self.data[:, None] + shifts).ravel(),
        ])
        # An image centred more than 40 bandwidths outside [a, b] adds exactly 0 to
        # the density and to F(x) - F(a) for x in [a, b], in double precision.
        near = (centres > a - _REACH * self.bandwidth) & (
            centres < b + _REACH * self.bandwidth)
        self._centres = centres[near]
        self._cdf_at_a = special.ndtr((a - self._centres) / self.bandwidth)

    def __repr__(self) -> str:
        return (f"ReflectedKDE(m={self.data.size}, bandwidth={self.bandwidth}, "
                f"bounds={self.bounds})")

    def _sum_over_images(self, x, terms):
        """Σ over kernel images of terms(z), z = (x - centre) / h, for every x.

        Runs over x in chunks so that memory stays bounded (about 32 MB) however
        many points and images there are.
        """
        x = np.asarray(x, dtype=float)
        flat = x.ravel()
        total = np.empty(flat.size)
        for part in chunks(flat.size, self._centres.size):  # (points, images)
            z = (flat[part, None] - self._centres) / self.bandwidth
            total[part] = terms(z).sum(axis=1)
        return total.reshape(x.shape)

    def pdf(self, x):
        """Density at x (zero outside [a, b])."""
        x = np.asarray(x, dtype=float)
        density = self._sum_over_images(x, lambda z: np.exp(-0.5 * z**2)) / (
            self.data.size * self.bandwidth * np.sqrt(2 * np.pi))
        a, b = self.bounds
        return np.where((x >= a) & (x <= b), density, 0.0)

    def cdf(self, x):
        """Distribution function at x: the images' normal CDFs between a and x."""
        a, b = self.bounds
        x = np.clip(np.asarray(x, dtype=float), a, b)
        # Differences per image, each in [0, 1], then the sum: no cancellation.
        mass = self._sum_over_images(
            x, lambda z: special.ndtr(z) - self._cdf_at_a) / self.data.size
        return np.clip(mass, 0.0, 1.0)

    def sample(self, size, *, rng: np.random.Generator):
        """Draw scores: pick a kernel, add Gaussian noise, fold back into [a, b]."""
        a, b = self.bounds
        width = b - a
        centres = rng.choice(self.data, size=size)
        draws = centres + self.bandwidth * rng.standard_normal(size)
        folded = np.mod(draws - a, 2 * width)
        return a + np.where(folded > width, 2 * width - folded, folded)

    def ppf(self, p):
        """Quantile function, by bracketed root finding on the exact CDF.

        Brent's method (scipy.optimize.brentq with xtol=1e-14, its rtol and its
        100 iterations) run for every level at once: each step evaluates the CDF
        at all the unsettled levels in one pass over the kernels' images, and
        every level follows brentq's own steps, so the quantiles are brentq's,
        bit for bit, at a fraction of the cost of one call per level.
        """
        p = np.asarray(p, dtype=float)
        a, b = self.bounds
        flat = p.ravel()
        out = np.where(flat <= 0, a, b)
        inside = np.flatnonzero((flat > 0) & (flat < 1))
        if inside.size:
            out[inside] = self._brent(flat[inside], a, b)
        return out.reshape(p.shape)

    def _brent(self, levels, a, b, xtol=1e-14, rtol=_RTOL, maxiter=100):
        """x with cdf(x) = level in [a, b] for every level: scipy's brentq (its
        C code, step for step) on the arrays of all the levels not yet settled."""
        k = levels.size
        roots = np.empty(k)
        xpre, xcur = np.full(k, a), np.full(k, b)
        fpre, fcur = self.cdf(xpre) - levels, self.cdf(xcur) - levels
        settled = (fpre == 0) | (fcur == 0)
        if np.any(~settled & (np.signbit(fpre) == np.signbit(fcur))):
            raise ValueError("f(a) and f(b) must have different signs")
        roots[settled] = np.where(fpre[settled] == 0, a, b)
        todo = np.flatnonzero(~settled)
        xpre, xcur, fpre, fcur, levels = (v[todo] for v in (xpre, xcur, fpre, fcur,
                                                           levels))
        xblk = fblk = spre = scur = np.zeros(todo.size)
        for _ in range(maxiter):
            if todo.size == 0:
                return roots
            flip = (fpre != 0) & (fcur != 0) & (np.signbit(fpre) != np.signbit(fcur))
            xblk, fblk = np.where(flip, xpre, xblk), np.where(flip, fpre, fblk)
            spre = np.where(flip, xcur - xpre, spre)
            scur = np.where(flip, xcur - xpre, scur)
            swap = np.abs(fblk) < np.abs(fcur)
            xpre, xcur, xblk = (np.where(swap, xcur, xpre), np.where(swap, xblk, xcur),
                                np.where(swap, xcur, xblk))
            fpre, fcur, fblk = (np.where(swap, fcur, fpre), np.where(swap, fblk, fcur),
                                np.where(swap, fcur, fblk))
            delta = (xtol + rtol * np.abs(xcur)) / 2
            sbis = (xblk - xcur) / 2
            done = (fcur == 0) | (np.abs(sbis) < delta)
            roots[todo[done]] = xcur[done]
            go = ~done
            todo = todo[go]
            (xpre, xcur, xblk, fpre, fcur, fblk, spre, scur, delta, sbis,
             levels) = (v[go] for v in (xpre, xcur, xblk, fpre, fcur, fblk, spre, scur,
                                        delta, sbis, levels))
            with np.errstate(all="ignore"):
                interpolate = -fcur * (xcur - xpre) / (fcur - fpre)
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                extrapolate = (-fcur * (fblk * dblk - fpre * dpre)
                               / (dblk * dpre * (fblk - fpre)))
            stry = np.where(xpre == xblk, interpolate, extrapolate)
            limit = np.where(np.abs(spre) < 3 * np.abs(sbis) - delta, np.abs(spre),
                             3 * np.abs(sbis) - delta)
            short = ((np.abs(spre) > delta) & (np.abs(fcur) < np.abs(fpre))
                     & (2 * np.abs(stry) < limit))
            spre, scur = np.where(short, scur, sbis), np.where(short, stry, sbis)
            xpre, fpre = xcur, fcur
            xcur = xcur + np.where(np.abs(scur) > delta, scur,
                                   np.where(sbis > 0, delta, -delta))
            fcur = self.cdf(xcur) - levels
        if todo.size:
            raise RuntimeError(f"Failed to converge after {maxiter} iterations")
        return roots

    def mean_tuning_curve(self, ns):
        r"""Exact mean of the best of n draws: :math:`a + \int_a^b 1 - F(x)^n dx`."""
        n, scalar = as_ns(ns, integer=False)
        a, b = self.bounds
        # Integrate on a grid fine against the bandwidth, with Gauss–Legendre nodes
        # per cell: the integrand is smooth, so this is exact to ~1e-12.
        cells = max(256, int(np.ceil(8 * (b - a) / self.bandwidth)))
        nodes, weights = np.polynomial.legendre.leggauss(16)
        edges = np.linspace(a, b, cells + 1)
        half = np.diff(edges) / 2
        x = (edges[:-1, None] + half[:, None] * (nodes + 1)).ravel()
        w = (half[:, None] * weights).ravel()
        F = self.cdf(x)
        curve = a + (1 - F[None, :] ** n[:, None]) @ w
        return curve[0] if scalar else curve

    def quantile_tuning_curve(self, ns, *, q: float = 0.5):
        """Exact q-quantile of the best of n draws: F⁻¹(q^(1/n))."""
        n, scalar = as_ns(ns, integer=False)
        q = as_probability(q, "q")
        curve = self.ppf(q ** (1.0 / n))
        return curve[0] if scalar else curve

