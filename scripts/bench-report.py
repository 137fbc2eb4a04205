#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise one `make bench` run: DIR/results.csv, DIR/sim.csv,
DIR/tx.csv, DIR/cost.csv and DIR/explain/ (from scripts/bench-guest.sh;
the last two read by scripts/bench_cost.py and scripts/bench_explain.py)
become DIR/summary.md (Markdown tables:
median and spread over the repetitions) and DIR/*.png (the papers'
figures).

  bench-report.py DIR [--docs docs/BENCHMARKS.md]

--docs replaces the text between the "results:begin" and "results:end"
markers of that file with the summary, plot links made relative to it.

The capture share of a run is what the average capture process captured
divided by what the host offered: frames lost anywhere (on the wire, in
the NIC, in a full ring) count against it, as in the seed papers.

The transmit rate of a run (tx.csv) is what the host received divided by
the sender's own send time: frames a sender counted but the NIC never
sent (trafgen's qdisc bypass drops them silently) do not count.
"""
import os
import statistics
import sys

sys.dont_write_bytecode = True  # nothing left beside the scripts
import bench_cost  # noqa: E402 (scripts/bench_cost.py)
import bench_explain  # noqa: E402 (scripts/bench_explain.py)
# The set-ups' names and the tables' cells (scripts/bench_tables.py), the
# targets (bench_targets.py), the transmit section (bench_tx.py) and the
# figures (bench_plots.py).
from bench_plots import plot  # noqa: E402
from bench_tables import (  # noqa: E402
    SETUP_NAMES, by, cell, groups, interval, load, med, nic_share,
    ns_injected, paths, rate, readers, setups_in, table, total_share)
from bench_targets import pct, targets, verdict  # noqa: E402
from bench_tx import TX_NAMES, transmit  # noqa: E402


def report(d):
    res_path = os.path.join(d, "results.csv")
    # A run of the cost part alone has no results.csv.
    rows = load(res_path) if os.path.exists(res_path) else []
    tx_path = os.path.join(d, "tx.csv")
    # A run without the tx part still writes tx.csv's header.
    txr = load(tx_path) if os.path.exists(tx_path) else []
    if not rows:
        # A run of the tx or explain parts alone has only that to say.
        md = (transmit(txr, alone=True) if txr else "") + \
            bench_cost.section(d, SETUP_NAMES) + \
            bench_explain.section(d, SETUP_NAMES) + \
            bench_explain.tx_section(d, TX_NAMES)
        if not md:
            sys.exit("bench-report: no rows in %s/results.csv" % d)
        return md, {}
    r0 = rows[0]
    reps = max(int(r["rep"]) for r in rows)
    md = ["Kernel %s, ringcap %s, %s; %s frames offered per run at the "
          "generator's full rate, %d repetition(s), the set-ups "
          "interleaved in each: median (95 %% bootstrap interval of the "
          "median; the range with fewer than 3). \"offer\": the "
          "generator's achieved rate, median over the row's runs.\n"
          % (r0["kernel"], r0["git_rev"], r0["date"], r0["offered"], reps)]
    plots = {}

    g = groups(rows, "size")
    if g:
        sizes = sorted({k[1] for k in g})
        md.append("\n### Capture share by frame size (tcpdump -w /dev/null; "
                  "ringcount for ringcount; 1 process)\n\n")
        md.append(table(["set-up"] + ["%d B" % s for s in sizes] +
                        ["offer (%s)" % "/".join("%d B" % s for s in sizes)],
                        [[SETUP_NAMES[s]] + [cell(by(g, s, size=z) or [])
                                             if by(g, s, size=z) else "-"
                                             for z in sizes] +
                         ["/".join(rate(by(g, s, size=z) or [])
                                   for z in sizes)]
                         for s in setups_in(g)]))

    g = groups(rows, "level")
    if g:
        levels = sorted({k[3] for k in g}, key=int)
        md.append("\n### Capture share by application load (packzip level, "
                  "64 B, 1 process)\n\n")
        md.append(table(["set-up"] + ["level %s" % lv for lv in levels] +
                        ["NIC delivered (level 0)", "offer"],
                        [[SETUP_NAMES[s]] +
                         [cell(by(g, s, level=lv)) if by(g, s, level=lv)
                          else "-" for lv in levels] +
                         [cell([dict(share=float(r["nic_rx"]) / float(r["offered"]))
                                for r in by(g, s, level=levels[0])])
                          if by(g, s, level=levels[0]) else "-"] +
                         [rate([r for lv in levels
                                for r in by(g, s, level=lv) or []])]
                         for s in setups_in(g)]))
        plots["level"] = (levels, {s: [interval(by(g, s, level=lv))
                                       if by(g, s, level=lv) else None
                                       for lv in levels]
                                   for s in setups_in(g)})

    gp = groups(rows, "procs")
    gl = groups(rows, "level")
    if gp:
        # ringcount carries no application load: its row (level "-") is
        # shown with every packzip level, for reference.
        gs = groups(rows, "size")
        for level in sorted({k[3] for k in gp if k[3] != "-"}, key=int):
            procs = [1] + sorted({k[4] for k in gp if k[3] == level})
            md.append("\n### Capture share per process with 1-3 concurrent "
                      "processes (packzip level %s, 64 B; ringcount without "
                      "application load)\n\n" % level)
            rows_t, series = [], {}
            for s in setups_in(gp):
                lv = "-" if s == "ringcount" else level
                cells, vals = [], []
                for p in procs:
                    if p > 1:
                        src = by(gp, s, level=lv, procs=p)
                    elif s == "ringcount":
                        src = by(gs, s, size=64)
                    else:
                        src = by(gl, s, level=lv)
                    cells.append(cell(src) if src else "-")
                    vals.append(interval(src) if src else None)
                rows_t.append([SETUP_NAMES[s]] + cells)
                series[s] = vals
            md.append(table(["set-up"] + ["%d" % p for p in procs], rows_t))
            plots["procs-" + level] = (procs, series)

    g = groups(rows, "wakeup")
    if g:
        md.append("\n### Wake-up policy: N=1 (immediate) against the default "
                  "(N a quarter of the ring, or m) (64 B, 1 process)\n\n")
        t, series = [], {}
        for s in setups_in(g):
            for w, label in (("default", "default"), ("n1", "N=1")):
                src = by(g, s, wakeup=w) if w == "n1" else (
                    by(groups(rows, "size"), s, size=64))
                if not src:
                    continue
                # AF_PACKET has no wake-up counter: its poll calls say it.
                t.append([SETUP_NAMES[s], label, cell(src),
                          "-" if s.startswith("af_") else
                          cell(src, "wakeups_per_1k", False),
                          cell(src, "polls_per_1k", False)])
                series.setdefault(s, {})[label] = (
                    med(src, "share"), med(src, "polls_per_1k"))
        md.append(table(["set-up", "wake-up", "share",
                         "wake-ups per 1000 frames",
                         "poll-family calls per 1000 frames"], t))
        plots["wakeup"] = series

    g = groups(rows, "placement")
    if g:
        md.append("\n### Kernel thread and application on one CPU or two "
                  "(RX threads on CPU 0; packzip level 0, 64 B)\n\n")
        md.append(table(["set-up", "application on", "share", "cpu0 sys %",
                         "cpu0 softirq %", "cpu1 user %"],
                        [[SETUP_NAMES[k[0]],
                          "CPU 0 (same)" if k[6] == "same" else "CPU 1 (other)",
                          cell(v), cell(v, "cpu0_sys", False),
                          cell(v, "cpu0_softirq", False),
                          cell(v, "cpu1_user", False)]
                         for k, v in sorted(g.items(), key=lambda kv: kv[0][6],
                                            reverse=True)]))

    for fig, title in (("virtio", "virtio-net: capture share by frame size "
                        "(one reader; the stock virtio_net; NIC delivered "
                        "in brackets, the ringcap path after the slash)"),
                       ("veth", "veth: capture share by frame size (one "
                        "reader; the sender on the peer, in the same "
                        "guest; what veth delivered in brackets, the "
                        "ringcap path after the slash)")):
        g = groups(rows, fig)
        if not g:
            continue
        sizes = sorted({k[1] for k in g})
        md.append("\n### %s\n\n" % title)
        t = []
        for s_ in setups_in(g):
            cells = []
            for z in sizes:
                src = by(g, s_, size=z)
                cells.append("%s [%s] / %s" % (
                    cell(src), cell([nic_share(r) for r in src]),
                    paths(src)) if src else "-")
            t.append([SETUP_NAMES[s_]] + cells +
                     ["/".join(rate(by(g, s_, size=z) or []) for z in sizes)])
        md.append(table(["set-up"] + ["%d B" % z for z in sizes] +
                        ["offer (%s)" % "/".join("%d B" % z for z in sizes)],
                        t))

    g = groups(rows, "multi")
    if g:
        md.append("\n### Three readers: each a copy, a ringcap cluster, an "
                  "AF_PACKET fanout (64 B)\n\n"
                  "Per process: each process's share of the offered frames "
                  "(median over the repetitions of the i-th process); "
                  "total: what all of them captured together, of the "
                  "offered frames and of what the NIC delivered.\n\n")
        t = []
        for s_ in setups_in(g):
            for p in sorted({k[4] for k in g if k[0] == s_}):
                src = by(g, s_, procs=p)
                per = [statistics.median(int(r["captured_per_proc"].split(";")[i])
                                         / float(r["offered"]) for r in src)
                       for i in range(p)]
                t.append([SETUP_NAMES[s_], "%d" % p,
                          " / ".join("%.1f%%" % (100 * x) for x in per),
                          cell([total_share(r) for r in src]),
                          cell([nic_share(r) for r in src]),
                          cell([dict(share=total_share(r)["share"] /
                                     nic_share(r)["share"])
                                for r in src if float(r["nic_rx"])],
                               pct=False, fmt="%.2f"),
                          paths(src), rate(src)])
        md.append(table(["set-up", "processes", "per process",
                         "total of offered", "NIC delivered",
                         "total / NIC delivered", "path", "offer"], t))

    g = groups(rows, "zerocopy")
    if g:
        md.append(zerocopy(g))

    if txr:
        md.append(transmit(txr))

    sim_path = os.path.join(d, "sim.csv")
    # A run without the sim part still writes sim.csv's header.
    sim = load(sim_path) if os.path.exists(sim_path) else []
    if sim:
        md.append("\n### Sim device: the capture path without NIC emulation "
                  "(1 and 3 readers, each reader gets every frame)\n\n")
        names = {"sim_af": "AF_PACKET (tcpdump)", "sim_m0": "ringcap mode 0 "
                 "(ringcount)", "sim_m2": "ringcap mode 2 (ringcount)"}
        t = []
        for s_ in ("sim_af", "sim_m0", "sim_m2"):
            for n in (1, 3):
                src = [r for r in sim if r["setup"] == s_ and readers(r) == n]
                if src:
                    t.append([names[s_], "%d" % n, src[0]["injected"],
                              cell([dict(share=float(r["captured"]) /
                                         float(r["injected"]) / n)
                                    for r in src]),
                              "%.0f" % med(src, "kernel_ns_per_frame"),
                              "%.0f" % statistics.median(
                                  ns_injected(r) for r in src)])
        md.append(table(["reader", "readers", "injected", "captured per "
                         "reader", "kernel ns per captured frame",
                         "kernel ns per injected frame"], t))

    md.append(targets(rows, sim))
    md.append(bench_cost.section(d, SETUP_NAMES))
    md.append(bench_explain.section(d, SETUP_NAMES))
    md.append(bench_explain.tx_section(d, TX_NAMES))
    md.append(headline(rows))
    return "".join(md), plots


# Zero-copy against copy mode at 1500 B: the zero-copy issue's target.
ZC_TARGET = (1500, 1.15)


def zerocopy(g):
    """figure zerocopy: total shares, and the ratios of their medians"""
    sizes = sorted({k[1] for k in g})
    md = ["\n### Zero-copy against copy mode and AF_PACKET (82574L, 64 "
          "flows over its two RX queues)\n\n"
          "Total share: what all processes of a run captured together, "
          "of the offered frames (two ringcounts, one per RX queue, for "
          "zero-copy and copy mode; one netsniff-ng on all queues for "
          "AF_PACKET); NIC delivered in brackets, the ringcap path after "
          "the slash, then each process's share (median; process i on "
          "queue i).\n\n"]
    t = []
    for s_ in setups_in(g):
        cells = []
        for z in sizes:
            src = by(g, s_, size=z)
            if not src:
                cells.append("-")
                continue
            p = int(src[0]["procs"])
            per = [statistics.median(
                int(r["captured_per_proc"].split(";")[i]) / float(r["offered"])
                for r in src) for i in range(p)]
            cells.append("%s [%s] / %s; %s" % (
                cell([total_share(r) for r in src]),
                cell([nic_share(r) for r in src]), paths(src),
                " + ".join("%.1f%%" % (100 * x) for x in per)))
        t.append([SETUP_NAMES[s_]] + cells)
    md.append(table(["set-up"] + ["%d B" % z for z in sizes], t))

    def shares(setup, z):
        """{rep: total share} of one set-up and size"""
        return {r["rep"]: total_share(r)["share"]
                for r in by(g, setup, size=z) or []}

    md.append("\nRatios of the median total shares; in brackets the "
              "range of the ratios within a repetition (the set-ups of "
              "one repetition run one after the other).\n\n")
    t, lines = [], []
    for z in sizes:
        zc, cp, af = (shares(s_, z) for s_ in ("zc_zc", "zc_copy", "zc_af"))
        row = ["%d B" % z]
        for other in (cp, af):
            reps = sorted(set(zc) & set(other))
            per = [zc[r] / other[r] for r in reps if other[r]]
            if not zc or not other or not statistics.median(other.values()):
                row.append("-")
                continue
            x = statistics.median(zc.values()) / statistics.median(
                other.values())
            row.append("%.2fx" % x + (" (%.2f-%.2f)" % (min(per), max(per))
                                      if len(per) > 1 else ""))
        t.append(row)
        if zc or cp:
            a = statistics.median(zc.values()) if zc else None
            b = statistics.median(cp.values()) if cp else None
            lines.append(verdict(
                "82574L %d B, zero-copy against copy mode (total share, two "
                "ringcounts one per queue)" % z, a, b, ">=",
                ZC_TARGET[1] if z == ZC_TARGET[0] else None,
                "%s against %s" % (pct(a), pct(b))))
    md.append(table(["size", "zero-copy / copy mode",
                     "zero-copy / AF_PACKET"], t))
    md.append("\n" + "".join(lines))
    return "".join(md)


def headline(rows):
    """ringcap mode 2 against the AF_PACKET baseline at 64 B"""
    gl, gp = groups(rows, "level"), groups(rows, "procs")
    out = []
    for level in ("0", "9"):
        for p in (1, 3):
            def share(s):
                src = by(gl, s, level=level) if p == 1 else by(
                    gp, s, level=level, procs=p)
                return med(src, "share") if src else None
            a, b = share("rc_m2"), share("af_stock")
            if a is not None and b:
                out.append("- packzip %s, %d process%s: ringcap mode 2 %.1f%%, "
                           "AF_PACKET %.1f%%: **%.2fx**\n"
                           % (level, p, "" if p == 1 else "es", 100 * a,
                              100 * b, a / b))
    if not out:
        return ""
    return ("\n### Headline: capture share, ringcap mode 2 + libpcap-ring "
            "against e1000e + libpcap (AF_PACKET), 64 B\n\n" + "".join(out))


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    d = argv[0]
    md, plots = report(d)
    pngs = plot(d, plots)
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write(md + "".join("\n![%s](%s)\n" % (os.path.basename(p),
                                                os.path.basename(p))
                             for p in pngs))
    print(md)
    if len(argv) == 3 and argv[1] == "--docs":
        doc = argv[2]
        rel = os.path.relpath(d, os.path.dirname(doc))
        body = md + "".join("\n![%s](%s/%s)\n" % (os.path.basename(p), rel,
                                                  os.path.basename(p))
                            for p in pngs)
        text = open(doc).read()
        a, b = "<!-- results:begin -->", "<!-- results:end -->"
        if a not in text or b not in text:
            sys.exit("bench-report: %s has no results markers" % doc)
        text = text[:text.index(a) + len(a)] + "\n" + body + "\n" + \
            text[text.index(b):]
        with open(doc, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
