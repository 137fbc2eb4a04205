# SPDX-License-Identifier: GPL-2.0
"""What a bench summary's tables are made of: the set-ups' names, in the
order the tables list them; results.csv read and grouped by figure and
set-up; each cell a median over the repetitions with its 95 % interval
(scripts/bench_stats.py), and a Markdown table of such cells. Used by
scripts/bench-report.py and the section modules beside it.
"""
import csv
import statistics

import bench_stats

SETUP_NAMES = {
    "af_stock": "e1000e + libpcap (AF_PACKET)",
    "af_rce0": "ringcap_e1000e mode 0 + libpcap (AF_PACKET)",
    "rc_m0": "ringcap_e1000e mode 0 + libpcap-ring",
    "rc_m1": "ringcap_e1000e mode 1 + libpcap-ring",
    "rc_m2": "ringcap_e1000e mode 2 + libpcap-ring",
    "ringcount": "ringcap_e1000e mode 2 + ringcount",
    "vio_af": "virtio_net + libpcap (AF_PACKET): tcpdump(s), each a copy",
    "vio_m0": "virtio_net, ringcap mode 0 (hook) + ringcount",
    "vio_xdp": "virtio_net, ringcap mode 2 (XDP, copy) + ringcount",
    "vio_redir": "virtio_net, ringcap mode 2 (XDP, redirect) + ringcount",
    "vio_m1": "virtio_net, ringcap mode 1 (XDP copy, stack too) + ringcount",
    "vio_rc_m2": "virtio_net, ringcap mode 2 (XDP) + libpcap-ring, tcpdump",
    "vio_xdpdump": "virtio_net, xdpdump (xdp-tools): XDP to a perf ring",
    "vio_afxdp": "virtio_net, AF_XDP: dpdk-testpmd rx-only (net_af_xdp)",
    "vio_drop": "virtio_net, native XDP_DROP (xdp-bench drop): the ceiling",
    "vio_pass": "virtio_net, XDP_PASS (xdp-bench pass), no capture: the "
                "stack under XDP",
    "veth_af": "veth + libpcap (AF_PACKET): tcpdump",
    "veth_xdp": "veth, ringcap mode 2 (XDP, copy) + ringcount",
    "veth_afxdp": "veth, AF_XDP: dpdk-testpmd rx-only (net_af_xdp)",
    "veth_drop": "veth, native XDP_DROP (xdp-bench drop): the ceiling",
    "vio_m0td": "virtio_net, ringcap mode 0 + libpcap-ring: tcpdumps, each a copy",
    "vio_cluster": "virtio_net, ringcap mode 2 (XDP), cluster %s: tcpdumps "
                   "sharing" % "1:flow",
    "vio_rccl": "virtio_net, ringcap mode 2 (XDP), cluster 1:flow: "
                "ringcounts sharing",
    "vio_fanout": "virtio_net + netsniff-ng, AF_PACKET fanout hash: sharing",
    "e1k_af": "e1000e + libpcap (AF_PACKET): tcpdumps, each a copy",
    "e1k_m0td": "e1000e, ringcap mode 0 (hook) + libpcap-ring: tcpdumps, "
                "each a copy",
    "e1k_cluster": "ringcap_e1000e mode 2, cluster 1:flow: tcpdumps sharing",
    "e1k_rccl": "ringcap_e1000e mode 2, cluster 1:flow: ringcounts sharing",
    "e1k_fanout": "e1000e + netsniff-ng, AF_PACKET fanout hash: sharing",
    "zc_zc": "ringcap_e1000e zero-copy: 2 ringcount -z, one per RX queue",
    "zc_zc256": "ringcap_e1000e zero-copy, 256 buffers a queue (the "
                "default before 1024): 2 ringcount -z",
    "zc_zc4k": "ringcap_e1000e zero-copy, 4096 buffers a queue (8 MiB, a "
               "copy ring's memory): 2 ringcount -z",
    "zc_copy": "ringcap_e1000e mode 2 copy mode: 2 ringcounts, one per RX "
               "queue",
    "zc_af": "e1000e + netsniff-ng (AF_PACKET, TPACKET_V3), one process, "
             "all queues",
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


def cell(rows, col="share", pct=True, fmt="%.1f"):
    """median (its 95 % bootstrap interval) over the repetitions"""
    v = [float(r[col]) for r in rows]
    if not v:
        return "-"
    f = (lambda x: "%.1f%%" % (100 * x)) if pct else (lambda x: fmt % x)
    if len(v) == 1:
        return f(v[0])
    m, lo, hi = bench_stats.median_ci(v)
    return "%s (%s-%s)" % (f(m), f(lo), f(hi))


def rate(rows):
    """the generator's achieved rate over rows: median kpps"""
    v = [float(r["offer_pps"]) for r in rows if r.get("offer_pps")]
    return "%.0fk" % (statistics.median(v) / 1000) if v else "-"


def interval(rows, col="share"):
    """(median, low, high) for a plot's error bar"""
    return bench_stats.median_ci(float(r[col]) for r in rows)


def total_share(r):
    """what all processes of a run captured, of the offered frames"""
    return dict(share=float(r["captured_sum"]) / float(r["offered"])
                if float(r["offered"]) else 0.0)


def nic_share(r):
    """what the NIC delivered, of the offered frames"""
    return dict(share=float(r["nic_rx"]) / float(r["offered"])
                if float(r["offered"]) else 0.0)


def paths(rows):
    """the capture paths the runs' sockets reported"""
    return "/".join(sorted({p for r in rows
                            for p in (r.get("path") or "-").split("/")}))


def readers(r):
    """sim.csv rows before the 3-reader runs have no readers column"""
    return int(r.get("readers") or 1)


def ns_injected(r):
    if r.get("kernel_ns_per_injected"):
        return float(r["kernel_ns_per_injected"])
    return float(r["kernel_ns_per_frame"]) * float(r["captured"]) / \
        float(r["injected"])


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
