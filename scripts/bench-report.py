#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise one `make bench` run: DIR/results.csv and DIR/sim.csv (from
scripts/bench-guest.sh) become DIR/summary.md (Markdown tables: median
and spread over the repetitions) and DIR/*.png (the papers' figures).

  bench-report.py DIR [--docs docs/BENCHMARKS.md]

--docs replaces the text between the "results:begin" and "results:end"
markers of that file with the summary, plot links made relative to it.

The capture share of a run is what the average capture process captured
divided by what the host offered: frames lost anywhere (on the wire, in
the NIC, in a full ring) count against it, as in the seed papers.
"""
import csv
import os
import statistics
import sys

SETUP_NAMES = {
    "af_stock": "e1000e + libpcap (AF_PACKET)",
    "af_rce0": "ringcap_e1000e mode 0 + libpcap (AF_PACKET)",
    "rc_m0": "ringcap_e1000e mode 0 + libpcap-ring",
    "rc_m1": "ringcap_e1000e mode 1 + libpcap-ring",
    "rc_m2": "ringcap_e1000e mode 2 + libpcap-ring",
    "ringcount": "ringcap_e1000e mode 2 + ringcount",
}
ORDER = list(SETUP_NAMES)


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def groups(rows, fig):
    """{(setup, size, app, level, procs, wakeup, placement): [rows]}"""
    out = {}
    for r in rows:
        if r["figure"] != fig:
            continue
        key = (r["setup"], int(r["size"]), r["app"], r["level"],
               int(r["procs"]), r["wakeup"], r["placement"])
        out.setdefault(key, []).append(r)
    return out


def med(rows, col):
    return statistics.median(float(r[col]) for r in rows)


def cell(rows, col="share", pct=True):
    """median (min-max) over the repetitions"""
    v = [float(r[col]) for r in rows]
    f = (lambda x: "%.1f%%" % (100 * x)) if pct else (lambda x: "%.1f" % x)
    if len(v) == 1:
        return f(v[0])
    return "%s (%s-%s)" % (f(statistics.median(v)), f(min(v)), f(max(v)))


def setups_in(g):
    present = {k[0] for k in g}
    return [s for s in ORDER if s in present]


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(" --- " for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def by(g, setup, **want):
    names = ("setup", "size", "app", "level", "procs", "wakeup", "placement")
    for k, rows in g.items():
        d = dict(zip(names, k))
        if d["setup"] == setup and all(d[n] == v for n, v in want.items()):
            return rows
    return None


def report(d):
    rows = load(os.path.join(d, "results.csv"))
    if not rows:
        sys.exit("bench-report: no rows in %s/results.csv" % d)
    r0 = rows[0]
    reps = max(int(r["rep"]) for r in rows)
    md = ["Kernel %s, ringcap %s, %s; %s frames offered per run at the "
          "generator's full rate, %d repetition(s): median (min-max).\n"
          % (r0["kernel"], r0["git_rev"], r0["date"], r0["offered"], reps)]
    plots = {}

    g = groups(rows, "size")
    if g:
        sizes = sorted({k[1] for k in g})
        md.append("\n### Capture share by frame size (tcpdump -w /dev/null; "
                  "ringcount for ringcount; 1 process)\n\n")
        md.append(table(["set-up"] + ["%d B" % s for s in sizes],
                        [[SETUP_NAMES[s]] + [cell(by(g, s, size=z) or [])
                                             if by(g, s, size=z) else "-"
                                             for z in sizes]
                         for s in setups_in(g)]))

    g = groups(rows, "level")
    if g:
        levels = sorted({k[3] for k in g}, key=int)
        md.append("\n### Capture share by application load (packzip level, "
                  "64 B, 1 process)\n\n")
        md.append(table(["set-up"] + ["level %s" % lv for lv in levels] +
                        ["NIC delivered (level 0)"],
                        [[SETUP_NAMES[s]] +
                         [cell(by(g, s, level=lv)) if by(g, s, level=lv)
                          else "-" for lv in levels] +
                         [cell([dict(share=float(r["nic_rx"]) / float(r["offered"]))
                                for r in by(g, s, level=levels[0])])
                          if by(g, s, level=levels[0]) else "-"]
                         for s in setups_in(g)]))
        plots["level"] = (levels, {s: [med(by(g, s, level=lv), "share")
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
                    vals.append(med(src, "share") if src else None)
                rows_t.append([SETUP_NAMES[s]] + cells)
                series[s] = vals
            md.append(table(["set-up"] + ["%d" % p for p in procs], rows_t))
            plots["procs-" + level] = (procs, series)

    g = groups(rows, "wakeup")
    if g:
        md.append("\n### Wake-up policy: N=1 (immediate) against the default "
                  "N=64 or m (64 B, 1 process)\n\n")
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

    sim_path = os.path.join(d, "sim.csv")
    if os.path.exists(sim_path) and load(sim_path):
        sim = load(sim_path)
        md.append("\n### Sim device: the capture path without NIC emulation "
                  "(one reader)\n\n")
        names = {"sim_af": "AF_PACKET (tcpdump)", "sim_m0": "ringcap mode 0 "
                 "(ringcount)", "sim_m2": "ringcap mode 2 (ringcount)"}
        t = []
        for s in ("sim_af", "sim_m0", "sim_m2"):
            src = [r for r in sim if r["setup"] == s]
            if src:
                t.append([names[s], src[0]["injected"],
                          cell([dict(share=float(r["captured"]) /
                                     float(r["injected"])) for r in src]),
                          "%.0f" % med(src, "kernel_ns_per_frame")])
        md.append(table(["reader", "injected", "captured",
                         "kernel ns per captured frame"], t))

    md.append(headline(rows))
    return "".join(md), plots


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


def plot(d, plots):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench-report: no matplotlib (apt-get install "
              "python3-matplotlib): no plots", file=sys.stderr)
        return []
    made = []
    for name, data in plots.items():
        fig, ax = plt.subplots(figsize=(7, 4.2))
        if name == "wakeup":
            labels = list(data)
            x = range(len(labels))
            for i, pol in enumerate(("default", "N=1")):
                ax.bar([j + 0.4 * i for j in x],
                       [100 * data[s].get(pol, (0, 0))[0] for s in labels],
                       0.4, label="wake-up " + pol)
            ax.set_xticks([j + 0.2 for j in x])
            ax.set_xticklabels([SETUP_NAMES[s].replace(" + ", "\n")
                                for s in labels], fontsize=7)
            ax.set_title("Capture share with and without wake-up moderation")
        else:
            xs, series = data
            for s, ys in series.items():
                pts = [(x, 100 * y) for x, y in zip(xs, ys) if y is not None]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts],
                            marker="o", label=SETUP_NAMES[s])
            if name == "level":
                ax.set_xlabel("packzip compression level")
                ax.set_title("Capture share against application load (64 B)")
            else:
                ax.set_xlabel("concurrent capture processes")
                ax.set_xticks(xs)
                ax.set_title("Capture share per process (packzip level %s, "
                             "64 B)" % name.split("-", 1)[1])
        ax.set_ylabel("captured / offered (%)")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(d, "fig-%s.png" % name)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        made.append(path)
    return made


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
