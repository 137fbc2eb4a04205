# SPDX-License-Identifier: GPL-2.0
"""The cost section of a bench summary: DIR/cost.csv, written by
scripts/bench-guest.sh's cost part in a 1-vCPU guest booted with
--icount, where a virtual ns is an instruction (scripts/cost.sh says how
the count is split).

Every set-up ran the same number of times, interleaved; per set-up and
frame size the table gives the median over those runs of guest
instructions per frame the NIC received, and the spread of the total,
(max - min) / median: what the instrument resolves.
"""
import csv
import os
import statistics

COLS = ("total", "rx", "reader_sys", "reader_user", "other")

# Targets on instructions per frame (docs/BENCHMARKS.md): set-up, its
# reference, the column compared, the most the ratio may be, what it is.
TARGETS = (
    ("vio_xdp", "vio_drop", "rx", 1.11,
     "virtio-net, XDP mode 2 + ringcount: receive path against XDP_DROP's"),
    ("vio_xdp", "vio_af", "total", 0.75,
     "virtio-net, XDP mode 2 + ringcount: total against AF_PACKET tcpdump's"),
    ("vio_m1", "vio_af", "total", 1.10,
     "virtio-net, XDP mode 1 + ringcount (the stack too): total against "
     "AF_PACKET tcpdump's"),
    # The 1.10x above cannot be met on virtio_net: an XDP_PASS program
    # that captures nothing costs more than that (BENCHMARKS.md, run 5).
    # What ringcap's mode 1 controls is what it adds to that path.
    ("vio_m1", "vio_pass", "total", 1.10,
     "virtio-net, XDP mode 1 + ringcount against XDP_PASS without capture "
     "(what capture adds to the stack under XDP)"),
    ("vio_pass", "vio_af", "total", None,
     "virtio-net, XDP_PASS without capture against AF_PACKET tcpdump (the "
     "stack under XDP against the stack with a tap)"),
    ("vio_xdp", "vio_redir", "total", None,
     "virtio-net, XDP mode 2: the copy path's total against the redirect's"),
    ("vio_xdp", "vio_redir", "rx", None,
     "virtio-net, XDP mode 2: the copy path's receive path against the "
     "redirect's"),
    # The share target (a 3-member cluster of tcpdumps through ringcap
    # at 1.3x netsniff-ng's fanout) in instructions: at most 1/1.3.
    ("vio_cluster", "vio_fanout", "total", 0.77,
     "virtio-net, 3 tcpdumps through a ringcap cluster (mode 2, XDP) "
     "against netsniff-ng's 3-socket fanout, total"),
    ("vio_rccl", "vio_fanout", "total", None,
     "virtio-net, 3 ringcounts in a ringcap cluster against netsniff-ng's "
     "3-socket fanout, total"),
    ("rc_cutoff", "rc_pcapng", "total", 0.20,
     "82574L mode 2, ringcount writing pcapng with a 1500 B per-flow "
     "cut-off against the same without one: total (at least 5x fewer)"),
    ("zc_zc", "zc_copy", "total", 1.0,
     "82574L zero-copy against copy mode, total"),
    ("zc_zc256", "zc_copy", "total", None,
     "82574L zero-copy with 256 buffers a queue (the default before "
     "1024) against copy mode, total"),
    ("zc_zc4k", "zc_copy", "total", 1.0,
     "82574L zero-copy with a copy ring's memory in buffers against copy "
     "mode, total"),
)


def load(d):
    path = os.path.join(d, "cost.csv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def spread(xs):
    m = statistics.median(xs)
    return (max(xs) - min(xs)) / m if m else 0.0


def paired(rows, a, b, size, col):
    """Per-run ratios a/b of col: run i of a with run i of b, which ran
    in the same repetition of the interleaved loop."""
    by = {}
    for r in rows:
        if int(r["size"]) == size and r["setup"] in (a, b):
            by.setdefault(r["rep"], {})[r["setup"]] = float(r[col])
    return sorted(v[a] / v[b] for v in by.values()
                  if a in v and b in v and v[b])


def verdict(rs, most, fmt):
    """What sorted per-run ratios rs say of a target of at most most."""
    if most is None:
        return "no target"
    if rs[-1] <= most:
        return "met: every run within " + fmt % most
    if rs[0] > most:
        return "not met: every run above " + fmt % most
    return "undecided: the runs straddle " + fmt % most


def targets(rows):
    out = []
    sizes = sorted({int(r["size"]) for r in rows})
    for a, b, col, most, what in TARGETS:
        for size in sizes:
            rs = paired(rows, a, b, size, col)
            if not rs:
                continue
            med = statistics.median(rs)
            out.append("- %s, %d B (%s): %.3fx, runs %.3f-%.3f (%d "
                       "pairs); %s\n" % (what, size, col, med, rs[0], rs[-1],
                                         len(rs), verdict(rs, most, "%.2fx")))
    if not out:
        return ""
    return ("\nTargets, as ratios of each run to the run of its reference "
            "in the same repetition (median, then the lowest and highest "
            "of the pairs):\n\n" + "".join(out))


# Disk bytes per offered byte that the set-up may write at most.
DISK_TARGETS = {"rc_cutoff": 0.01}


def disk(rows, names):
    """What the set-ups that write a capture file wrote, per byte offered
    (frames offered times the frame size, without the FCS)."""
    out = []
    keys = []
    for r in rows:
        k = (r["setup"], int(r["size"]))
        if r.get("disk_bytes") and k not in keys:
            keys.append(k)
    for setup, size in keys:
        rs = sorted(float(r["disk_bytes"]) / (float(r["offered"]) * size)
                    for r in rows if r["setup"] == setup and
                    int(r["size"]) == size and r.get("disk_bytes") and
                    float(r["offered"]))
        if not rs:
            continue
        out.append("- %s, %d B: %.5f of the offered bytes (runs %.5f-%.5f, "
                   "%d runs); %s\n" % (names.get(setup, setup), size,
                                      statistics.median(rs), rs[0], rs[-1],
                                      len(rs),
                                      verdict(rs, DISK_TARGETS.get(setup),
                                              "%g")))
    if not out:
        return ""
    return ("\nDisk: the capture file's bytes per byte offered (frames "
            "offered times their size):\n\n" + "".join(out))


def section(d, names):
    rows = load(d)
    if not rows:
        return ""
    keys = []
    for r in rows:
        k = (r["setup"], int(r["size"]))
        if k not in keys:
            keys.append(k)
    r0 = rows[0]
    reps = max(int(r["rep"]) for r in rows)
    md = ["\n### Cost: guest instructions per frame (icount)\n\n",
          "Kernel %s, ringcap %s, one vCPU under `-icount shift=0`; %s "
          "frames offered per run at %s/s, %d runs of each set-up, "
          "interleaved. Per frame the NIC received, median of the runs; "
          "total: all the CPU ran but the bench's own shell, which "
          "starts the traffic and takes the snapshots; spread = (max - "
          "min) / median of the total. rx: interrupts, "
          "softirqs, NAPI and RX threads, XDP, ringcap outside the "
          "reader; reader kernel/user: the capture processes, split as "
          "the insn-split plugin counted them in the send's window "
          "(`scripts/insn-split.c`); other: kworkers, rcu and "
          "the like.\n\n"
          % (r0["kernel"], r0["git_rev"], r0["offered"],
             r0["offer_pps"].split(".")[0], reps)]
    head = ["set-up", "size", "NIC / offered", "captured / NIC", "total",
            "spread", "rx", "reader kernel", "reader user", "other",
            "path"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    spreads = []
    for setup, size in keys:
        src = [r for r in rows if r["setup"] == setup and
               int(r["size"]) == size]
        total = [float(r["total"]) for r in src]
        s = spread(total)
        spreads.append((s, setup, size, len(src)))
        nic = statistics.median(float(r["nic_rx"]) / float(r["offered"])
                                for r in src if float(r["offered"]))
        # One reader, or the zero-copy pair sharing the queues.
        cap = statistics.median(float(r["captured_sum"]) /
                                float(r["nic_rx"])
                                if float(r["nic_rx"]) else 0.0
                                for r in src)
        med = {c: statistics.median(float(r[c]) for r in src) for c in COLS}
        lines.append("| " + " | ".join(
            [names.get(setup, setup), "%d B" % size, "%.3f" % nic,
             "%.3f" % cap, "%.0f" % med["total"], "%.1f %%" % (100 * s),
             "%.0f" % med["rx"], "%.0f" % med["reader_sys"],
             "%.0f" % med["reader_user"], "%.0f" % med["other"],
             "/".join(sorted({r["path"] for r in src}))]) + " |")
    md.append("\n".join(lines) + "\n")
    spreads.sort()
    best, worst = spreads[0], spreads[-1]
    within = sum(1 for s in spreads if s[0] <= 0.03)
    md.append("\nThe instrument: %d of %d set-ups spread within 3 %% over "
              "their %d runs; the tightest %s at %d B (%.1f %%), the "
              "widest %s at %d B (%.1f %%).\n"
              % (within, len(spreads), best[3], best[1], best[2],
                 100 * best[0], worst[1], worst[2], 100 * worst[0]))
    md.append(targets(rows))
    md.append(disk(rows, names))
    return "".join(md)
