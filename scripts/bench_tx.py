# SPDX-License-Identifier: GPL-2.0
"""The transmit section of a bench summary: DIR/tx.csv, written by
scripts/bench-guest.sh's tx part (scripts/bench-guest/tx.sh). The rate
each sender reached out of the 82574L, as the host counted what arrived,
against the kernel's pktgen as the ceiling; their ratios; and the TX
ring's target against trafgen.
"""
import statistics

from bench_tables import cell, med, table
from bench_targets import verdict

TX_NAMES = {
    "tx_ceiling": "ringcap_e1000e, the kernel's pktgen (no user space): "
                  "the ceiling",
    "tx_ring": "ringcap_e1000e, ringcap's TX ring (rcgen --tx-ring)",
    "tx_trafgen": "ringcap_e1000e, trafgen (AF_PACKET TX_RING, qdisc "
                  "bypass)",
    "tx_sendmmsg": "ringcap_e1000e, AF_PACKET sendmmsg() (through the "
                   "qdisc)",
    "tx_trafgen_stock": "stock e1000e, trafgen (AF_PACKET TX_RING, qdisc "
                        "bypass)",
}
# The TX ring against trafgen at 64 B: the transmit ring issue's target.
TX_TARGET = (64, 1.3)


def transmit(txr, alone=False):
    """figure tx: transmit rates, their ratios, and the ceiling"""
    def rate(r):
        return float(r["received_pps"])

    def src(setup, z):
        return [r for r in txr if r["setup"] == setup and int(r["size"]) == z]

    def mrate(setup, z):
        """the median rate received of setup at size z, None if not run"""
        v = [rate(r) for r in src(setup, z)]
        return statistics.median(v) if v else None

    def pps(x):
        return "-" if x is None else "%.0f/s" % x

    sizes = sorted({int(r["size"]) for r in txr})
    present = {r["setup"] for r in txr}
    setups = [s_ for s_ in TX_NAMES if s_ in present]
    md = []
    if alone:
        r0 = txr[0]
        md.append("Kernel %s, ringcap %s, %s; %d repetition(s): median "
                  "(min-max).\n" % (r0["kernel"], r0["git_rev"], r0["date"],
                                     max(int(r["rep"]) for r in txr)))
    md.append("\n### Transmit rate from the guest (82574L, %s frames per "
              "run as fast as the sender goes; the host counts what "
              "arrives)\n\n"
              "Received/s: frames the host received over the sender's own "
              "send time; of the ceiling: that rate over the pktgen "
              "ceiling's (medians). Sent: the sender's own count (trafgen's "
              "includes the frames its qdisc bypass dropped while the "
              "driver's queue was full). Path: how ringcap_e1000e's "
              "driver took the frames (ring: from a TX ring, no skb).\n\n"
              % "/".join(sorted({r["frames"] for r in txr}, key=int)))
    for z in sizes:
        c = mrate("tx_ceiling", z)
        t = []
        for s_ in setups:
            rs = src(s_, z)
            if not rs:
                continue
            m = mrate(s_, z)
            bpf = statistics.median(float(r["received_bytes"]) /
                                    float(r["received"])
                                    for r in rs if float(r["received"]))\
                if any(float(r["received"]) for r in rs) else None
            t.append([TX_NAMES[s_],
                      "%.0f" % med(rs, "sent"),
                      "%.0f" % med(rs, "received"),
                      cell([dict(share=float(r["received"]) / float(r["sent"])
                                 if float(r["sent"]) else 0.0) for r in rs]),
                      cell(rs, "sent_pps", False, "%.0f"),
                      cell(rs, "received_pps", False, "%.0f"),
                      "%.1f%%" % (100 * m / c) if c else "-",
                      "-" if bpf is None else "%.0f" % bpf,
                      "/".join(sorted({r["path"] for r in rs}))])
        md.append("%d B:\n\n" % z)
        md.append(table(["set-up", "sent", "received", "received of sent",
                         "sent/s", "received/s", "of the ceiling",
                         "bytes per frame", "path"], t))
        md.append("\n")

    md.append("Ratios of the median rates received per second; in brackets "
              "the range of the same ratio within each repetition.\n\n")
    pairs = (("tx_ring", "tx_trafgen"), ("tx_ring", "tx_sendmmsg"),
             ("tx_trafgen", "tx_trafgen_stock"), ("tx_ring", "tx_ceiling"))
    t, lines = [], []
    for z in sizes:
        row = ["%d B" % z]
        for a_, b_ in pairs:
            a = {r["rep"]: rate(r) for r in src(a_, z)}
            b = {r["rep"]: rate(r) for r in src(b_, z)}
            bm = statistics.median(b.values()) if b else 0
            if not a or not bm:
                row.append("-")
                continue
            per = [a[k] / b[k] for k in sorted(set(a) & set(b)) if b[k]]
            row.append("%.2fx" % (statistics.median(a.values()) / bm) +
                       (" (%.2f-%.2f)" % (min(per), max(per))
                        if len(per) > 1 else ""))
        t.append(row)
        ring, tg, mm, ceil = (mrate(s_, z) for s_ in (
            "tx_ring", "tx_trafgen", "tx_sendmmsg", "tx_ceiling"))
        want = TX_TARGET[1] if z == TX_TARGET[0] else None
        lines.append(verdict(
            "82574L %d B, TX ring against trafgen on the same driver "
            "(frames received per second)" % z, ring, tg, ">=", want,
            "%s against %s" % (pps(ring), pps(tg))))
        lines.append(verdict(
            "82574L %d B, TX ring against sendmmsg() on the same driver"
            % z, ring, mm, ">=", None, "%s against %s" % (pps(ring), pps(mm))))
        if ceil:
            got = ", ".join("%s %.1f%%" % (n, 100 * x / ceil)
                            for n, x in (("TX ring", ring), ("trafgen", tg),
                                         ("sendmmsg()", mm))
                            if x is not None)
            line = ("  (against the ceiling, pktgen's %s: %s" %
                    (pps(ceil), got or "nothing else measured"))
            if want and tg:
                need = want * tg
                line += ("; the target, %.2fx trafgen, is %s = %.1f%% of "
                         "the ceiling: %s" %
                         (want, pps(need), 100 * need / ceil,
                          "within what the NIC takes" if need <= ceil else
                          "beyond what this emulated NIC takes at all"))
            lines.append(line + ")\n")
        notring = [r for r in src("tx_ring", z) if r["path"] != "ring"]
        if notring:
            lines.append("  (**%d TX ring run(s) at %d B did not take the "
                         "ring path**: path %s)\n"
                         % (len(notring), z,
                            "/".join(sorted({r["path"] for r in notring}))))
    md.append(table(["size", "TX ring / trafgen", "TX ring / sendmmsg()",
                     "trafgen ringcap_e1000e / stock e1000e",
                     "TX ring / ceiling"], t))
    md.append("\n" + "".join(lines))
    return "".join(md)
