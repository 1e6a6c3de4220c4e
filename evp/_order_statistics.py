r"""The exact distribution of uniform order statistics, behind the CDF bands.

Private: :mod:`evp.bands` builds on it and re-exports :func:`band_coverage`;
:mod:`evp.comparison` reads its ranks.
Three parts:

* :func:`coverage` — the probability that n sorted Uniform(0, 1) draws all lie in
  their intervals [l_i, u_i], exactly, by a Poisson-process recursion over the
  sorted interval ends (Moscovich and Nadler 2017); a band symmetric about 1/2 is
  walked half way.
* :class:`BetaIntervals` — equal-tailed or highest-density intervals of Beta(i, n +
  1 - i), i = 1..n, at a pointwise level (Learned-Miller and DeStefano 2008).
* :func:`band_bounds` — a band's bounds for n, the confidence and the method,
  cached: DKW and KS in closed form, LD with the pointwise level solved so that
  the intervals hold simultaneously with exactly the confidence.

References
----------
Moscovich and Nadler (2017). Fast calculation of boundary crossing probabilities
for Poisson processes. Statistics & Probability Letters 123.

Learned-Miller and DeStefano (2008). A Probabilistic Upper Bound on Differential
Entropy. IEEE Transactions on Information Theory 54(11).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from evp._validation import as_scores

# scipy.special and scipy.optimize are imported inside the functions that use
# them: at import time they would add a third to the cost of `import evp`.

_EPS = np.finfo(float).eps


# ------------------------------------------------------------ exact coverage


def _poisson_pmf(lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Poisson(lam) probabilities of 0, 1, … per row, and how many terms of each
    to keep: the rest has mass below 1e-17 (so 2n increments lose under 1e-11)."""
    from scipy import special

    if lam.size == 0:
        return np.empty((0, 1)), np.empty(0, dtype=np.int64)
    most = int(np.ceil(lam.max() + 8.0 * np.sqrt(lam.max()) + 18.0))
    k = np.arange(most)
    with np.errstate(under="ignore"):
        pmf = np.exp(special.xlogy(k, lam[:, None]) - lam[:, None]
                     - special.gammaln(k + 1))
    # Mass from term k on (summed from the far end: no cancellation).
    tail = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
    terms = np.maximum((tail >= 1e-17).sum(axis=1), 1)
    return pmf, terms


def coverage(lower: np.ndarray, upper: np.ndarray) -> float:
    """P(lower_i ≤ U_(i) ≤ upper_i for all i), U_(i) sorted Uniform(0, 1) draws.

    Inputs are 1-D float arrays of equal length n ≥ 1 with values in [0, 1]; see
    :func:`band_coverage` for the method.
    """
    n = lower.shape[0]
    # U_(i) is non-decreasing in i, so l_i ≤ U_(i) for all i iff max_{k≤i} l_k ≤
    # U_(i), and U_(i) ≤ u_i for all i iff U_(i) ≤ min_{k≥i} u_k: the monotone
    # envelopes describe the same event.
    lower = np.maximum.accumulate(lower)
    upper = np.minimum.accumulate(upper[::-1])[::-1]
    grid = np.unique(np.concatenate(([0.0, 1.0], lower, upper)))
    # N(t) = #{U ≤ t}. U_(i) ≤ u_i iff N(u_i) ≥ i, and U_(i) ≥ l_i iff N(l_i) ≤ i-1
    # (almost surely). N is non-decreasing, so the event holds iff at every grid
    # point t: N(t) ≥ #{i : u_i ≤ t} and N(t) ≤ #{i : l_i < t}.
    floor = np.searchsorted(upper, grid, side="right")
    ceiling = np.searchsorted(lower, grid, side="left")
    if (floor > ceiling).any():
        return 0.0
    # Poissonise: N is a Poisson process of rate n, conditioned on N(1) = n at the
    # end. Between grid points the increments are independent Poisson(n Δt).
    if n > 1 and np.array_equal(upper, 1.0 - lower[::-1]):
        joint = _symmetric_joint(grid, floor, ceiling, n)
    else:
        prob, base = _walk(grid, floor, ceiling, n)
        # At t = 1 the window is [n, n] or empty (u_i ≤ 1 forces N(1) ≥ n).
        joint = prob[n - base] if floor[-1] <= n <= ceiling[-1] else 0.0
    log_pmf_n = n * math.log(n) - n - math.lgamma(n + 1)
    return float(min(max(joint / math.exp(log_pmf_n), 0.0), 1.0))


def band_coverage(lower, upper) -> float:
    r"""Exact probability that n sorted uniforms lie inside the bounds, all at once.

    Returns :math:`P(l_i \le U_{(i)} \le u_i \ \forall i)`, where
    :math:`U_{(1)} \le \dots \le U_{(n)}` are the order statistics of n i.i.d.
    Uniform(0, 1) variables. For a continuous score distribution F,
    :math:`F(Y_{(i)})` are such order statistics, so this is the exact
    simultaneous coverage of a CDF band with ``lower[i-1]`` and ``upper[i-1]``
    bounding :math:`F(Y_{(i)})`, whatever F is.

    Parameters
    ----------
    lower, upper : array_like, shape (n,)
        Bounds in [0, 1].

    Returns
    -------
    float in [0, 1]

    Notes
    -----
    No simulation. Sort all interval ends into a grid :math:`0 = t_0 < \dots <
    t_m = 1` and let :math:`N(t)` count the uniforms at or below t. Since N is
    non-decreasing, the event is that :math:`N(t_j)` lies in a window
    :math:`[\#\{i : u_i \le t_j\}, \#\{i : l_i < t_j\}]` at every grid point.
    Replace the n uniforms by a Poisson process of rate n, whose increments
    between grid points are independent Poisson(:math:`n \Delta t`); propagate
    the distribution of :math:`N(t_j)` over its window by one short convolution
    per grid point; finally condition on :math:`N(1) = n`, under which the
    Poisson points are n i.i.d. uniforms, by dividing by the Poisson(n)
    probability of n (Moscovich and Nadler 2017). The windows are
    :math:`O(\sqrt n)` wide for the bands here, so the cost is about
    :math:`O(n^{3/2})` and the relative error a few hundred ulps.

    References
    ----------
    Moscovich and Nadler (2017). Fast calculation of boundary crossing
    probabilities for Poisson processes. Statistics & Probability Letters 123.

    Examples
    --------
    >>> from evp.bands import band_coverage
    >>> round(band_coverage([0.1], [0.9]), 12)  # one uniform: the length
    0.8
    >>> round(band_coverage([0.0, 0.5], [0.5, 1.0]), 12)  # one in each half
    0.5
    """
    lower = as_scores(lower, "lower", ndim=(1,))
    upper = as_scores(upper, "upper", ndim=(1,))
    if lower.shape != upper.shape:
        raise ValueError(f"lower and upper must have the same length, got "
                         f"{lower.size} and {upper.size}")
    for name, bound in (("lower", lower), ("upper", upper)):
        if (bound < 0).any() or (bound > 1).any():
            raise ValueError(f"{name} must lie in [0, 1], got values from "
                             f"{bound.min()} to {bound.max()}")
    return coverage(lower, upper)


def _walk(grid, floor, ceiling, n):
    """The distribution of N at the last grid point, on the event that every
    constraint up to it held: (prob, base) with prob[m - base] = P(N = m, …)."""
    pmf, terms = _poisson_pmf(n * np.diff(grid))
    terms = np.minimum(ceiling[1:] - floor[:-1] + 1, terms)
    floor, ceiling, terms = floor.tolist(), ceiling.tolist(), terms.tolist()
    convolve = np.convolve
    prob = np.ones(1)
    base = 0
    for j in range(1, len(floor)):
        lo = floor[j] - base
        hi = ceiling[j] - base + 1
        full = convolve(prob, pmf[j - 1, : terms[j - 1]])
        prob = full[lo:hi]
        if prob.shape[0] < hi - lo:  # counts beyond the truncated Poisson tail
            prob = np.concatenate((prob, np.zeros(hi - lo - prob.shape[0])))
        base = floor[j]
    return prob, base


def _symmetric_joint(grid, floor, ceiling, n):
    """P(every constraint holds and N(1) = n) for a band symmetric about 1/2.

    With u_i = 1 - l_{n+1-i}, the points above 1/2 counted from the top, K(s) =
    #{U > 1 - s}, face the same constraints at s as N does at t = s (N(t) ≥ #{u_i
    ≤ t} becomes K(1-t) ≤ #{l_i < 1-t}, and the other way round), and the Poisson
    process on [0, 1/2] is independent of the one on (1/2, 1]. So one walk to 1/2
    serves both halves: P = Σ_m F(m) G(n - m), with G the distribution of N(1/2)
    under the constraints below 1/2, and F the same with the one at 1/2 too.
    Half the work of the full walk.
    """
    below = int(np.searchsorted(grid, 0.5, side="left"))  # grid points < 1/2
    prob, base = _walk(grid[:below], floor[:below], ceiling[:below], n)
    pmf, terms = _poisson_pmf(np.array([n * (0.5 - grid[below - 1])]))
    last = np.convolve(prob, pmf[0, : terms[0]])  # G, from N = base on
    at_half = last
    if below < grid.size and grid[below] == 0.5:
        m = np.arange(base, base + last.size)
        at_half = np.where((m >= floor[below]) & (m <= ceiling[below]), last, 0.0)
    # Σ_m F(m) G(n - m), over the m where both are stored.
    m = np.arange(base, base + last.size)
    other = n - m
    keep = (other >= base) & (other < base + last.size)
    return float(np.dot(at_half[keep], last[other[keep] - base]))


# ------------------------------------------------------- pointwise intervals


def _equal_tailed(n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed level-(1-alpha) intervals of Beta(i, n+1-i), i = 1..n."""
    from scipy import special

    i = np.arange(1, n + 1, dtype=float)
    lower = special.betaincinv(i, n + 1 - i, alpha / 2)
    # Beta(n+1-i, i) is the mirror image of Beta(i, n+1-i): u_i = 1 - l_{n+1-i}.
    # Computing it this way keeps the band exactly symmetric.
    return lower, 1.0 - lower[::-1]


def _highest_density(
    n: int, alpha: float, start: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Highest-density level-(1-alpha) intervals of Beta(i, n+1-i), i = 1..n.

    Returns (lower, upper, start) where `start` is the solution in the internal
    parametrisation, to warm-start the next call at a nearby alpha.

    For a = i, b = n+1-i with a < b (the left half; the right half is the mirror
    image), parametrise the interval by the log of its lower tail mass,
    s = log p, p in (0, alpha): x1 = ppf(p), x2 = ppf(p + 1 - alpha). The interval
    is the highest-density one when the densities at its ends agree,
    h(s) = log f(x1) - log f(x2) = 0. h increases through its root (below it, x1
    sits further down the rising flank than x2 sits down the falling one), so a
    Newton iteration on s, vectorised over i and guarded by a bracket with
    geometric bisection, converges in a few steps. i = 1 (a = 1 < b) has a
    decreasing density: the interval is [0, 1 - alpha**(1/n)]. When n is odd the
    middle Beta(a, a) is symmetric and its interval is the equal-tailed one.
    """
    from scipy import special

    half = n // 2
    lower = np.empty(n)
    upper = np.empty(n)
    if n % 2:  # symmetric middle (and n = 1, where every interval of length
        # 1 - alpha is as short as any other: take the central one)
        a = (n + 1) / 2
        middle = special.betaincinv(a, a, alpha / 2)
        lower[half], upper[half] = middle, 1.0 - middle
    if half == 0:
        return lower, upper, np.empty(0)
    # Left half i = 1..half holds (x1, 1 - x2); the right half mirrors it:
    # i' = n + 1 - i has interval [1 - x2, 1 - x1].
    x1 = np.zeros(half)
    y2 = np.empty(half)  # 1 - x2, kept separately for precision near 1
    y2[0] = math.exp(math.log(alpha) / n)
    if half > 1:
        a = np.arange(2, half + 1, dtype=float)
        b = n + 1 - a
        x1[1:], y2[1:], start = _hd_newton(a, b, alpha, start)
    else:
        start = np.empty(0)
    lower[:half], upper[:half] = x1, 1.0 - y2
    lower[n - half :], upper[n - half :] = y2[::-1], 1.0 - x1[::-1]
    return lower, upper, start


def _hd_newton(a, b, alpha, start, *, max_iter=100):
    """Solve h(s) = 0 (see _highest_density) for Beta(a, b), 2 ≤ a < b."""
    from scipy import special

    log_alpha = math.log(alpha)
    log_beta = special.betaln(a, b)
    # Bracket on s = log p: s_lo and s_hi are points where h < 0 and h > 0. At
    # s = log alpha the upper end is 1 and h = +inf; no lower point is known yet
    # (the root is near log(alpha**2 / 2) for a = 2, higher for larger a).
    s_hi = np.full(a.shape, log_alpha)
    s_lo = np.full(a.shape, -np.inf)
    if start is None or start.shape != a.shape:
        s = np.full(a.shape, log_alpha - math.log(2.0))  # equal tails
    else:
        s = np.minimum(start + log_alpha, log_alpha - 1e-3)

    def evaluate(s):
        p = np.exp(s)
        x1 = special.betaincinv(a, b, p)
        y2 = special.betaincinv(b, a, alpha - p)  # 1 - x2 (mirror distribution)
        with np.errstate(divide="ignore"):
            log_f1 = (a - 1) * np.log(x1) + (b - 1) * np.log1p(-x1)
            log_f2 = (a - 1) * np.log1p(-y2) + (b - 1) * np.log(y2)
        return x1, y2, log_f1 - log_f2, log_f1, log_f2

    for _ in range(max_iter):
        x1, y2, h, log_f1, log_f2 = evaluate(s)
        s_lo = np.where(h < 0, s, s_lo)
        s_hi = np.where(h > 0, s, s_hi)
        # dh/ds = p (g(x1)/f(x1) - g(x2)/f(x2)), g = (log f)', since dx/dp = 1/f.
        x2 = 1.0 - y2
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            g1 = (a - 1) / x1 - (b - 1) / (1 - x1)
            g2 = (a - 1) / x2 - (b - 1) / y2
            slope = g1 * np.exp(s + log_beta - log_f1) - g2 * np.exp(
                s + log_beta - log_f2
            )
            step = np.where(np.isfinite(h), h / slope, np.nan)
            proposal = s - step
        bad = ~np.isfinite(proposal) | (proposal <= s_lo) | (proposal >= s_hi)
        # Fall back to bisection, or a long step down while no lower point is known.
        fallback = np.where(np.isfinite(s_lo), 0.5 * (s_lo + s_hi),
                            s_hi - max(2.0, -log_alpha))
        proposal = np.where(bad, fallback, proposal)
        change = proposal - s
        if np.all(np.abs(change) <= 1e-6 * np.maximum(1.0, np.abs(s))):
            # Newton converges quadratically: after a step this small the root is
            # known to about 1e-12, and first order carries the ends there without
            # two more incomplete-beta inversions (dx/ds = p / f).
            x1 = x1 + change * np.exp(s + log_beta - log_f1)
            y2 = y2 - change * np.exp(s + log_beta - log_f2)
            return x1, y2, proposal - log_alpha
        s = proposal
    x1, y2, *_ = evaluate(s)
    return x1, y2, s - log_alpha


class BetaIntervals:
    """Level-(1 - alpha) intervals of Beta(i, n + 1 - i), i = 1..n, for any alpha.

    kind is "equal_tailed" or "highest_density". The highest-density intervals
    are solved by Newton's method, started from the previous call's solution:
    the levels the root finder tries lie close together.
    """

    def __init__(self, n: int, kind: str):
        self.n, self.kind = n, kind
        self._start = None

    def __call__(self, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        if self.kind == "equal_tailed":
            return _equal_tailed(self.n, alpha)
        lower, upper, self._start = _highest_density(self.n, alpha, self._start)
        return lower, upper


def solve_alpha(intervals: BetaIntervals, confidence: float) -> float:
    """Pointwise miss probability alpha = 1 - gamma giving simultaneous coverage.

    Solve f(x) = log(1 - coverage(alpha)) - log(1 - confidence) = 0 in x = log
    alpha, to |f| ≤ 1e-10 (the coverage then equals the confidence to about 1e-10
    relative to 1 - confidence). The root lies in [log((1-c)/n), log(1-c)]: at the
    left end the Bonferroni inequality gives coverage ≥ c, at the right end
    coverage ≤ gamma = c. On this scale f is close to x + const, so a first step
    of slope one from a rough guess, then secant steps, land in three to five
    evaluations of the coverage (each costs one exact computation); a step that
    would leave the bracket falls back to Brent's method on it.
    """
    n = intervals.n
    if n == 1:  # the one interval covers with probability gamma itself
        return 1.0 - confidence
    target = math.log1p(-confidence)

    def excess(x):
        lower, upper = intervals(math.exp(x))
        miss = 1.0 - coverage(lower, upper)
        return math.log(max(miss, 1e-300)) - target

    # Widen the bracket a little: Bonferroni can be an equality (n = 2, where the
    # two ways to miss are disjoint), and rounding must not flip its sign.
    x_lo = target - math.log(n) - 0.01
    x_hi = target + min(0.01, -target / 2)
    # Solved levels sit near x = target - r log n with r from 1 (n = 2) to about
    # 0.45 (n = 10,000); start in the middle of that and step with slope one.
    x0 = min(max(target - 0.55 * math.log(n), x_lo), x_hi)
    f0 = excess(x0)
    x1 = min(max(x0 - f0, x_lo), x_hi)
    for _ in range(12):
        if abs(f0) <= 1e-10:
            return math.exp(x0)
        f1 = excess(x1)
        if abs(f1) <= 1e-10:
            return math.exp(x1)
        if f1 == f0:
            break
        x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
        if not x_lo <= x2 <= x_hi:
            break
        x0, f0, x1 = x1, f1, x2
    from scipy.optimize import brentq

    x = brentq(excess, x_lo, x_hi, xtol=1e-12, rtol=4 * _EPS)
    return math.exp(x)


class _FromRank:
    """The intervals of `intervals` at ranks `first`..n only; below `first` the
    bounds that the constraint at `first` implies for any sorted sample (U_(i)
    ≥ 0 and U_(i) ≤ U_(first) ≤ u_first), which constrain nothing more."""

    def __init__(self, intervals: BetaIntervals, first: int):
        self.intervals, self.first, self.n = intervals, first, intervals.n

    def __call__(self, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        lower, upper = (bound.copy() for bound in self.intervals(alpha))
        lower[: self.first - 1] = 0.0
        upper[: self.first - 1] = upper[self.first - 1]
        return lower, upper


@functools.lru_cache(maxsize=256)
def band_bounds(n: int, confidence: float, method: str, first: int = 1):
    r"""(lower, upper, pointwise level or None, epsilon or None); arrays read-only.

    With ``first`` > 1 (LD methods only) the band is exact over the order
    statistics of ranks ``first``..n alone: the pointwise level γ is solved so
    that :math:`P(l_i \le U_{(i)} \le u_i,\ i \ge \text{first}) =` confidence,
    and below ``first`` the bounds are the implied ones, 0 and
    :math:`u_{\text{first}}`. Fewer constraints spend the same 1 − confidence, so
    each interval is narrower than the full band's.
    """
    i = np.arange(1, n + 1)
    level = epsilon = None
    if first > 1:
        if method in ("dkw", "ks") or not 1 < first <= n:
            raise ValueError(f"a band over ranks {first}..{n} needs an LD method "
                             f"and 1 < first ≤ n, got method={method!r}")
        intervals = _FromRank(BetaIntervals(n, method.removeprefix("ld_")), first)
        alpha = solve_alpha(intervals, confidence)
        lower, upper = intervals(alpha)
        lower, upper = np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)
        lower.flags.writeable = False
        upper.flags.writeable = False
        return lower, upper, 1.0 - alpha, None
    if method in ("dkw", "ks"):
        if method == "dkw":
            epsilon = math.sqrt(math.log(2.0 / (1.0 - confidence)) / (2.0 * n))
        else:
            from scipy.stats import kstwo  # scipy.stats is slow to import

            epsilon = float(kstwo(n).ppf(confidence))
        lower = np.clip(i / n - epsilon, 0.0, 1.0)
        upper = np.clip((i - 1) / n + epsilon, 0.0, 1.0)
    else:
        intervals = BetaIntervals(n, method.removeprefix("ld_"))
        alpha = solve_alpha(intervals, confidence)
        level = 1.0 - alpha
        lower, upper = intervals(alpha)
        lower, upper = np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)
    lower.flags.writeable = False
    upper.flags.writeable = False
    return lower, upper, level, epsilon


# ------------------------------------------------- intervals for one quantile


def quantile_ranks(size: int, levels: np.ndarray, alpha_low: float,
                   alpha_high: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Ranks (s, r) of the order statistics that bound the p-quantile
    :math:`\xi_p = \min\{x : F(x) \ge p\}` from below and above, one pair per
    level p, from `size` i.i.d. rounds: rank 0 stands for the lower bound a
    and size + 1 for the upper bound b.

    For any F, continuous or not,

    * :math:`Y_{(r)} < \xi_p` exactly when at least r rounds fall below
      :math:`\xi_p`, a count :math:`\mathrm{Bin}(N, F(\xi_p-))` with
      :math:`F(\xi_p-) \le p`, so :math:`P(Y_{(r)} < \xi_p) \le P(\mathrm{Bin}(N,
      p) \ge r)`; r is the least rank with that tail at most `alpha_high`;
    * :math:`Y_{(s)} > \xi_p` exactly when fewer than s rounds fall at or below
      :math:`\xi_p`, a count :math:`\mathrm{Bin}(N, F(\xi_p))` with
      :math:`F(\xi_p) \ge p`, so :math:`P(Y_{(s)} > \xi_p) \le P(\mathrm{Bin}(N,
      p) \le s - 1)`; s is the largest rank with that tail at most `alpha_low`.

    Both bounds are equalities for continuous F (the classical distribution-free
    interval for a quantile, e.g. David and Nagaraja 2003, §7.1) and
    conservative with ties. No rank is tried twice: each side is one search in
    the binomial distribution's tail.
    """
    from scipy import stats

    levels = np.asarray(levels, dtype=float)
    k = np.arange(size + 1)
    with np.errstate(under="ignore"):
        cdf = stats.binom.cdf(k[None, :size], size, levels[:, None])
        sf = stats.binom.sf(k[None, :], size, levels[:, None])  # P(Bin > k)
    # s = #{k < N : P(Bin ≤ k) ≤ α_low} (the cdf rises with k);
    # r = 1 + #{k : P(Bin > k) > α_high}, P(Bin ≥ r) = P(Bin > r - 1).
    low = np.sum(cdf <= alpha_low, axis=1)
    high = 1 + np.sum(sf > alpha_high, axis=1)
    return low.astype(int), np.minimum(high, size + 1).astype(int)
