# SPDX-License-Identifier: GPL-2.0
"""Intervals for the bench's share tables and targets.

Capture shares on these shared 2-core hosts swing 2-5x between
repetitions, so a median alone says little: each one comes with a 95 %
bootstrap interval of the median (scipy.stats.bootstrap, percentile
method, a fixed seed so a report reads the same twice), and a ratio of
two set-ups is taken per repetition, where both ran side by side,
before its median and interval are. Debian's python3-numpy and
python3-scipy (scripts/deps.sh --bench). Below 3 values no resampling
means anything: the interval is then the values' range.
"""
import numpy as np
from scipy import stats

CONFIDENCE = 0.95
RESAMPLES = 4000


def median_ci(xs):
    """(median, low, high) of xs: the median's 95 % bootstrap interval"""
    v = np.asarray([float(x) for x in xs], dtype=float)
    if not len(v):
        return None
    m = float(np.median(v))
    if len(v) < 3 or v.min() == v.max():
        return m, float(v.min()), float(v.max())
    r = stats.bootstrap((v,), np.median, confidence_level=CONFIDENCE,
                        n_resamples=RESAMPLES, method="percentile",
                        random_state=np.random.default_rng(2026))
    ci = r.confidence_interval
    return m, float(ci.low), float(ci.high)


def paired_ratio_ci(a, b):
    """a and b map repetition -> value: the per-repetition ratios a/b
    (where both ran and b is not 0), their median and 95 % interval,
    and how many pairs there were: (median, low, high, n), or None"""
    rs = [a[k] / b[k] for k in a if k in b and b[k]]
    if not rs:
        return None
    m, lo, hi = median_ci(rs)
    return m, lo, hi, len(rs)
