# SPDX-License-Identifier: GPL-2.0
"""Where the time goes: the "explain" part of `make bench` as Markdown.

scripts/bench-guest.sh profiles one more 64 B run of the main virtio-net
set-ups, and a 1500 B run of zero-copy and copy mode on the 82574L, with
three times the frames: DIR/explain/SETUP-xN.perf (perf
report --sort comm,dso,sym of every CPU while the generator sends),
SETUP-xN.drops (drops.bt or afpacket-drops.bt over the run) and runs.csv
(those runs' rows). Likewise one 64 B send of the ceiling, the TX ring and
trafgen out of the 82574L: tx-SETUP.perf (every CPU while the sender
runs) and tx-runs.csv.
"""
import csv
import os
import re

READERS = {"tcpdump", "ringcount", "xdp-bench"}
# The transmit part's senders; pktgen's is a kernel thread per CPU.
SENDERS = {"rcgen", "trafgen", "bench-sendmmsg"}
PKTGEN = re.compile(r"^kpktgend_\d+$")
# ringcap_e1000e's RX threads, <ifname>-rx<q>: the RX path.
RX_THREAD = re.compile(r"-rx\d+$")
IDLE = re.compile(r"idle|safe_halt|^halt")
# perf report -n -t TAB: "12.34%<TAB>123<TAB>comm<TAB>dso<TAB>[k] symbol",
# each field padded with blanks; commands and objects may hold blanks
# ("[JIT] tid 123"). The shares are taken from the sample counts, since
# perf rounds each line's percentage.
SYM = re.compile(r"^\[([k.])\] (.*)$")


def fields(line):
    f = [x.strip() for x in line.rstrip("\n").split("\t")]
    if len(f) != 5 or not f[0].endswith("%") or not f[1].isdigit():
        return None
    m = SYM.match(f[4])
    return (int(f[1]), f[2], f[3], m[1], m[2]) if m else None
COUNT = re.compile(r"^@(\w+)\[([^\]]*)\]: (\d+)$")


def profile(path, apps=READERS):
    """shares of all samples: idle, RX (or TX) and other kernel, the
    applications' (readers' or senders') kernel and user space, everything
    else (the bench's own tools), and the largest non-idle symbols"""
    cat = {"idle": 0.0, "kernel": 0.0, "rk": 0.0, "ru": 0.0, "tools": 0.0}
    syms = {}
    lines = [f for f in map(fields, open(path)) if f]
    total = sum(f[0] for f in lines) or 1
    for n, comm, dso, ring, sym in lines:
        p = 100.0 * n / total
        if comm.startswith("swapper") and IDLE.search(sym):
            cat["idle"] += p
            continue
        if comm in apps or (apps is SENDERS and PKTGEN.match(comm)):
            cat["rk" if ring == "k" else "ru"] += p
        elif comm.startswith(("swapper", "ksoftirqd", "kworker")) or \
                RX_THREAD.search(comm):
            cat["kernel"] += p
        else:
            cat["tools"] += p
        if ring == "k":
            key = sym if dso == "[kernel.kallsyms]" else \
                "%s %s" % (sym, dso)
        else:
            key = "%s (user)" % comm
        syms[key] = syms.get(key, 0.0) + p
    top = sorted(syms.items(), key=lambda kv: -kv[1])[:5]
    cat["samples"] = total
    return cat, top


def drops(path):
    """'captured N, ...' from a drops script's totals: per reason (the
    last key) what the sockets did not take; a filter's rejections are
    wanted, not lost"""
    tot = {}
    for line in open(path):
        m = COUNT.match(line.strip())
        if m:
            what = m[1] if m[1] == "captured" else m[2].split(", ")[-1]
            tot[what] = tot.get(what, 0) + int(m[3])
    if not tot:
        return "nothing traced"
    lost = ", ".join("%s %d" % kv for kv in sorted(tot.items())
                     if kv[0] not in ("captured", "filter"))
    return "captured %d, %s" % (tot.get("captured", 0),
                                "lost: " + lost if lost else "no drop")


def section(d, names):
    e = os.path.join(d, "explain")
    runs = os.path.join(e, "runs.csv")
    if not os.path.exists(runs):
        return ""
    rows = list(csv.DictReader(open(runs, newline="")))
    out = ["\n### Where the time goes: one profiled run per set-up "
           "(virtio-net at 64 B; zc_ on the 82574L at 1500 B)\n\n",
           "Three times the frames of a measured run; perf samples every "
           "guest CPU while the generator sends (cpu-clock); "
           "the columns are shares of all samples on both CPUs. RX path: "
           "interrupts, softirq, driver, XDP and ringcap outside the "
           "readers' own context; readers: the capture processes in the "
           "kernel (system calls, and softirqs that interrupt them) and "
           "in user space; tools: the bench's own shell, perf and "
           "bpftrace. Profiling costs CPU, so the share of these runs is "
           "lower than the measured one above. The last column is what "
           "drops.bt (ringcap) or afpacket-drops.bt (AF_PACKET) counted "
           "in the capture sockets over the run. The zc_ rows' two readers "
           "split the frames by queue: their share is the total.\n\n",
           "| set-up | procs | share | NIC delivered | samples | idle | "
           "RX path | readers kernel | readers user | tools | largest | "
           "sockets |\n",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
           "| --- | --- |\n"]
    for r in rows:
        name = "%s-x%s" % (r["setup"], r["procs"])
        pf = os.path.join(e, name + ".perf")
        if not os.path.exists(pf):
            continue
        cat, top = profile(pf)
        dr = os.path.join(e, name + ".drops")
        off = float(r["offered"]) or 1
        share = float(r["captured_sum"]) / off \
            if r["setup"].startswith("zc_") else float(r["share"])
        out.append("| %s | %s | %.1f%% | %.1f%% | %s | %.0f%% | %.0f%% "
                   "| %.0f%% | %.0f%% | %.0f%% | %s | %s |\n" % (
                       names.get(r["setup"], r["setup"]), r["procs"],
                       100 * share,
                       100 * float(r["nic_rx"]) / off, cat["samples"],
                       cat["idle"],
                       cat["kernel"], cat["rk"], cat["ru"], cat["tools"],
                       "; ".join("%s %.1f%%" % kv for kv in top),
                       drops(dr) if os.path.exists(dr) else "-"))
    return "".join(out)


def tx_section(d, names):
    """the transmit part's profiled sends, if the explain part ran them"""
    e = os.path.join(d, "explain")
    runs = os.path.join(e, "tx-runs.csv")
    if not os.path.exists(runs):
        return ""
    out = ["\n### Where the time goes: one profiled 64 B send per "
           "transmit set-up (82574L)\n\n",
           "Three times the frames of a measured send; perf samples every "
           "guest CPU while the sender runs (cpu-clock); the columns are "
           "shares of all samples on both CPUs. Sender: the sending "
           "process in the kernel (its system calls, and the driver's "
           "transmit under them) and in user space; pktgen's kernel "
           "thread counts as a sender in the kernel. Other kernel: "
           "interrupts, softirqs (the transmit clean-up, a qdisc's "
           "queue) and kernel threads. Profiling costs CPU, so these "
           "rates are lower than the measured ones above.\n\n",
           "| set-up | received/s | samples | idle | sender kernel | "
           "sender user | other kernel | tools | largest |\n",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"]
    for r in csv.DictReader(open(runs, newline="")):
        pf = os.path.join(e, "tx-%s.perf" % r["setup"])
        if not os.path.exists(pf):
            continue
        cat, top = profile(pf, SENDERS)
        out.append("| %s | %s | %s | %.0f%% | %.0f%% | %.0f%% | %.0f%% "
                   "| %.0f%% | %s |\n" % (
                       names.get(r["setup"], r["setup"]), r["received_pps"],
                       cat["samples"], cat["idle"], cat["rk"], cat["ru"],
                       cat["kernel"], cat["tools"],
                       "; ".join("%s %.1f%%" % kv for kv in top)))
    return "".join(out)
