#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench_stats.py: the intervals the bench's tables and targets
# give. TAP.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec /usr/bin/python3 - "$here/.." <<'EOF_PY'
import sys
sys.path.insert(0, sys.argv[1])
n = 0
fails = 0


def ok(cond, what):
    global n, fails
    n += 1
    if not cond:
        fails += 1
    print("%sok %d - %s" % ("" if cond else "not ", n, what))


try:
    import bench_stats
except ImportError as e:
    print("1..1\nnot ok 1 - import bench_stats: %s (scripts/deps.sh "
          "installs python3-scipy)" % e)
    sys.exit(1)
print("1..6")
m, lo, hi = bench_stats.median_ci([5, 5, 5, 5, 5, 5, 5])
ok((m, lo, hi) == (5, 5, 5), "equal values: the interval is the value")
m, lo, hi = bench_stats.median_ci([0.10, 0.30])
ok((m, lo, hi) == (0.2, 0.10, 0.30), "two values: the range (%s)" % ((m, lo, hi),))
xs = [0.18, 0.20, 0.21, 0.19, 0.35, 0.05, 0.20]
m, lo, hi = bench_stats.median_ci(xs)
ok(m == 0.20 and lo <= m <= hi and min(xs) <= lo and hi <= max(xs) and
   hi - lo < max(xs) - min(xs),
   "7 values: the median's interval holds it, inside the range, narrower "
   "than it (%.3f %.3f-%.3f)" % (m, lo, hi))
ok(bench_stats.median_ci(xs) == (m, lo, hi), "the same values give the same interval")
a = {"1": 0.30, "2": 0.10, "3": 0.20}
b = {"1": 0.15, "2": 0.05, "3": 0.10, "4": 0.5}
r = bench_stats.paired_ratio_ci(a, b)
ok(r is not None and r[0] == 2.0 and r[1] == 2.0 and r[2] == 2.0 and r[3] == 3,
   "ratios are taken per repetition, only where both ran (%s)" % (r,))
ok(bench_stats.paired_ratio_ci({"1": 1.0}, {"2": 1.0}) is None,
   "no repetition in common: no ratio")
sys.exit(1 if fails else 0)
EOF_PY
