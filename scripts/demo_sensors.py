# SPDX-License-Identifier: GPL-2.0
"""The model of `make demo-sensors` (scripts/demo-sensors.sh): the traffic
a packet broker splits between the sensors, and the check of what the
collector got against it.

  demo_sensors.py traffic DIR SENSORS   write DIR/sensorN.pcap (N = 0..)
                                        and DIR/flows.tsv, what was sent
  demo_sensors.py report DIR            compare DIR/flows.tsv with the
                                        collector's records (DIR/nfdump.tsv,
                                        "SENSOR MEMBER" and nfdump's fmt
                                        "%pr %sa %sp %da %dp %pkt %byt"),
                                        its counters (DIR/collector.txt)
                                        and the sensors' (DIR/sensorN.log);
                                        write DIR/flows.txt; exit 1 on a
                                        frame neither at the collector nor
                                        counted lost by some layer

The traffic is what a link carries, in miniature: TCP sessions over IPv4
and IPv6 (handshake, requests, responses, ACKs, FIN), DNS exchanges, one-way
media streams and pings, interleaved as concurrent flows are, from a fixed
seed. The broker keeps each conversation on one sensor by a hash that is
the same in both directions, as brokers do. A flow here is one direction of
a conversation, as NetFlow records it; its bytes are what softflowd counts:
the frame after its Ethernet header, padding included (a TCP ACK, 54 bytes
on the wire, padded to 60, counts 46, not its IP length of 40).
"""
import ipaddress
import os
import random
import struct
import sys
import zlib
from collections import defaultdict

sys.dont_write_bytecode = True  # no __pycache__ in the selftests' tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "selftests"))
from rc_frames import ip_csum  # noqa: E402  the selftests' frame helpers

SEED = 20261128
ETH_IP4, ETH_IP6 = 0x0800, 0x86DD
TCP, UDP, ICMP = 6, 17, 1
FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10
PROTO = {TCP: "TCP", UDP: "UDP", ICMP: "ICMP"}


def frame(src, dst, proto, l4):
    """An Ethernet frame carrying l4 (the transport header and payload)."""
    a, b = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    if a.version == 4:
        h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 0, 0x4000,
                        64, proto, 0, a.packed, b.packed)
        h = h[:10] + struct.pack("!H", ip_csum(h)) + h[12:]
        et = ETH_IP4
    else:
        h = struct.pack("!IHBB16s16s", 6 << 28, len(l4), proto, 64,
                        a.packed, b.packed)
        et = ETH_IP6
    eth = bytes.fromhex("525400123410") + bytes.fromhex("020000000001")
    f = eth + struct.pack("!H", et) + h + l4
    return f + b"\0" * max(0, 60 - len(f))


def tcp(sp, dp, flags, n):
    return struct.pack("!HHIIBBHHH", sp, dp, 0, 0, 5 << 4, flags, 65535,
                       0, 0) + b"\x55" * n


def udp(sp, dp, n):
    return struct.pack("!HHHH", sp, dp, 8 + n, 0) + b"\x33" * n


def icmp(kind, ident, seq, n):
    return struct.pack("!BBHHH", kind, 0, 0, ident, seq) + b"\x11" * n


class Conv:
    """One conversation: its two endpoints and its packets in order, each
    (forward?, proto, l4)."""

    def __init__(self, proto, c, cp, s, sp):
        self.proto, self.c, self.cp, self.s, self.sp = proto, c, cp, s, sp
        self.pkts = []

    def add(self, fwd, l4):
        self.pkts.append((fwd, l4))


def tcp_session(rnd, c, cp, s, sp):
    v = Conv(TCP, c, cp, s, sp)
    t = lambda fwd, fl, n: v.add(fwd, tcp(cp, sp, fl, n) if fwd else tcp(sp, cp, fl, n))
    t(True, SYN, 0)
    t(False, SYN | ACK, 0)
    t(True, ACK, 0)
    for _ in range(rnd.randint(1, 4)):
        t(True, PSH | ACK, rnd.randint(40, 700))
        for i in range(rnd.randint(0, 24)):
            t(False, ACK, 1440)
            if i % 2:
                t(True, ACK, 0)
        t(False, PSH | ACK, rnd.randint(1, 1440))
        t(True, ACK, 0)
    if rnd.random() < 0.1:
        t(True, RST | ACK, 0)
        return v
    t(True, FIN | ACK, 0)
    t(False, FIN | ACK, 0)
    t(True, ACK, 0)
    return v


def traffic(rnd):
    """Every conversation, in the order each starts."""
    convs = []
    for i in range(300):
        convs.append(tcp_session(rnd, "10.10.%d.%d" % (i // 200, 1 + i % 200),
                                 20000 + rnd.randrange(40000),
                                 "10.20.0.%d" % (1 + i % 50),
                                 rnd.choice((80, 443, 22, 25, 8080))))
    for i in range(24):
        convs.append(tcp_session(rnd, "2001:db8:10::%x" % (i + 1),
                                 30000 + rnd.randrange(30000),
                                 "2001:db8:20::%x" % (1 + i % 4), 443))
    for i in range(160):
        v = Conv(UDP, "10.10.%d.%d" % (2 + i // 200, 1 + i % 200),
                 1024 + rnd.randrange(60000), "10.30.0.53", 53)
        v.add(True, udp(v.cp, 53, rnd.randint(20, 80)))
        v.add(False, udp(53, v.cp, rnd.randint(60, 480)))
        convs.append(v)
    for i in range(16):
        v = Conv(UDP, "10.40.0.%d" % (i + 1), 16384 + 2 * i,
                 "10.50.0.%d" % (i + 1), 16384 + 2 * i)
        for _ in range(rnd.randint(100, 400)):
            v.add(True, udp(v.cp, v.sp, 160))
        convs.append(v)
    for i in range(20):
        v = Conv(ICMP, "10.60.0.%d" % (i + 1), 0, "10.70.0.%d" % (i + 1), 0)
        for seq in range(rnd.randint(2, 6)):
            v.add(True, icmp(8, i, seq, 56))
            v.add(False, icmp(0, i, seq, 56))
        convs.append(v)
    rnd.shuffle(convs)
    return convs


def interleave(rnd, convs, live=64):
    """Frames of up to `live` conversations at once, each in its own order."""
    todo, active = list(convs), []
    while todo or active:
        while todo and len(active) < live:
            active.append([todo.pop(), 0])
        a = rnd.randrange(len(active))
        v, k = active[a]
        yield v, v.pkts[k]
        if k + 1 == len(v.pkts):
            active.pop(a)
        else:
            active[a][1] = k + 1


def sensor_of(v, n):
    """The broker's choice: the same for both directions."""
    ends = sorted([(v.c, v.cp), (v.s, v.sp)])
    return zlib.crc32(repr((v.proto, ends)).encode()) % n


def flow_key(v, fwd):
    """(proto, src, sport, dst, dport) as the collector shows it. ICMP has
    no ports in this comparison (NetFlow puts type and code in one)."""
    a, ap, b, bp = (v.c, v.cp, v.s, v.sp) if fwd else (v.s, v.sp, v.c, v.cp)
    if v.proto == ICMP:
        ap = bp = 0
    return (v.proto, str(ipaddress.ip_address(a)), ap,
            str(ipaddress.ip_address(b)), bp)


def write_traffic(d, n):
    rnd = random.Random(SEED)
    convs = traffic(rnd)
    out = [open("%s/sensor%d.pcap" % (d, i), "wb") for i in range(n)]
    for f in out:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    flows = {}
    for t, (v, (fwd, l4)) in enumerate(interleave(rnd, convs)):
        s = sensor_of(v, n)
        fr = frame(*(v.c, v.s) if fwd else (v.s, v.c), v.proto, l4)
        out[s].write(struct.pack("<IIII", t // 1000000, t % 1000000,
                                 len(fr), len(fr)) + fr)
        k = flow_key(v, fwd)
        e = flows.setdefault(k, [s, 0, 0])
        e[1] += 1
        e[2] += len(fr) - 14
    for f in out:
        f.close()
    with open(d + "/flows.tsv", "w") as f:
        f.write("sensor\tproto\tsrc\tsport\tdst\tdport\tpackets\tbytes\n")
        for k, (s, p, b) in sorted(flows.items()):
            f.write("\t".join(map(str, (s,) + k + (p, b))) + "\n")
    per = defaultdict(lambda: [0, 0])
    for s, p, _ in flows.values():
        per[s][0] += 1
        per[s][1] += p
    for s in sorted(per):
        print("sensor%d: %d flows, %d frames" % (s, per[s][0], per[s][1]))


def kv(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def read_counters(path, tag):
    """Lines `TAG: key=value ...`, as dicts of ints where they are ints."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(tag + ": "):
                out.append({k: int(v) if v.isdigit() else v
                            for k, v in kv(line).items()})
    return out


def read_collector(path):
    """nfdump's records, summed per flow (an exporter may cut a flow into
    several records), with the sensor and member each came from."""
    got = defaultdict(lambda: [0, 0, set()])
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) != 9:
                continue
            s, m, pr, sa, sp, da, dp, pk, by = w
            proto = int(pr)
            if proto == ICMP:
                sp = dp = "0"
            k = (proto, str(ipaddress.ip_address(sa)), int(sp),
                 str(ipaddress.ip_address(da)), int(float(dp)))
            got[k][0] += int(pk)
            got[k][1] += int(by)
            got[k][2].add("s%s-m%s" % (s, m))
    return got


def compare_flows(d, sent, got):
    """Write DIR/flows.txt, print the mismatches; the frames each sensor's
    flows are short of, the frames the collector has that were not sent,
    and the flows no loss explains (more than sent, or bytes that do not
    go with the packets)."""
    rows, short, by_conv = [], defaultdict(int), defaultdict(set)
    exact = missing = wrong = 0
    with open(d + "/flows.txt", "w") as f:
        f.write("%-7s %-5s %-40s %-40s %9s %9s %11s %11s  %s\n" % (
            "sensor", "proto", "source", "destination", "sent", "got",
            "sent_bytes", "got_bytes", "exporter"))
        for k in sorted(sent, key=lambda k: (sent[k][0], k)):
            s, pk, by = sent[k]
            g = got.pop(k, [0, 0, set()])
            ok = g[0] == pk and g[1] == by
            exact += ok
            missing += g[0] == 0
            # A loss takes packets and their bytes: fewer of both.
            wrong += not ok and not (g[0] < pk and g[1] < by)
            short[s] += pk - g[0]
            by_conv[(k[0],) + tuple(sorted([k[1:3], k[3:5]]))] |= g[2]
            line = "%-7s %-5s %-40s %-40s %9d %9d %11d %11d  %s%s" % (
                "s%d" % s, PROTO[k[0]], "%s:%d" % (k[1], k[2]),
                "%s:%d" % (k[3], k[4]), pk, g[0], by, g[1],
                ",".join(sorted(g[2])) or "-", "" if ok else "  <<")
            f.write(line + "\n")
            if not ok:
                rows.append(line)
    extra = sum(v[0] for v in got.values())
    print("demo: per flow and direction, what the broker sent and the"
          " collector has: %s/flows.txt" % d)
    print("demo: %d flows sent; at the collector %d with exact packet and"
          " byte counts, %d short, %d missing; %d flows (%d packets) there"
          " that were not sent" % (len(sent), exact, len(sent) - exact - missing,
                                   missing, len(got), extra))
    for line in rows[:40]:
        print("  " + line)
    if len(rows) > 40:
        print("  ... %d more in flows.txt" % (len(rows) - 40))
    # A sensor's ringcap cluster hashes a conversation's two directions
    # alike, so one exporter has both.
    split = sum(len(e) > 1 for e in by_conv.values())
    print("demo: %d conversations, %d with their two directions exported by"
          " two members" % (len(by_conv), split))
    if wrong:
        print("demo: FAIL: %d flows at the collector with more packets or bytes"
              " than sent, or bytes that no loss of packets explains" % wrong)
    return exact, short, extra, split, wrong


# Each layer, the counter that says what it passed on, and the counter
# that says what it lost; a layer's input is what the one above passed on.
LAYERS = [
    ("broker: frames in its share of the traffic", "frames", None),
    ("  sent (rcgen)", "offered", "send_errors"),
    ("  host socket full before QEMU read it", None, "wire"),
    ("  NIC: missed, no RX descriptor (MPC)", None, "missed"),
    ("NIC: delivered", "nic_rx", None),
    ("  ringcap: ring full", None, "ring_dropped"),
    ("ringcap: put in the members' rings", "received", None),
    ("exporters: read (softflowd: processed + non-IP)", "read", None),
    ("  not IP, or too short (softflowd: ignored)", None, "ignored"),
    ("exporters: in flows exported", "exported", None),
    ("  lost on the way to the collector (UDP)", None, "export_lost"),
    ("collector: in its records", "collected", None),
]


def export_lost(members, export, coll):
    """Frames in records lost on the way to the collector, and the
    members whose shortfall nothing on that way counted. The way is UDP:
    where it loses a datagram, one of these says so: the exporter's failed
    send, the sensor's stack (a full socket or device queue), the
    collector's socket (its buffer was full) or its view of the export
    sequence (a gap). A member's shortfall is put down to it only where
    one of them counted something for that member (or for its sensor's
    stack)."""
    lost, unsaid, said_all = 0, [], defaultdict(int)
    said_all["sensor UDP send buffer errors"] = export["udp_sndbuf_errors"]
    said_all["sensor export NIC tx drops"] = export["tx_dropped"]
    for m in members:
        cm = [x for x in coll if x["member"] == m["member"]]
        got = sum(x["packets"] for x in cm)
        said = {
            "send failures": m["send_failures"],
            "collector socket drops": sum(x["sock_drops"] for x in cm),
            "collector sequence failures": sum(x["seq_failures"] for x in cm),
        }
        for k, n in said.items():
            said_all[k] += n
        short = m["exported"] - got
        if short < 0 or (short and not sum(said.values()) and
                         not export["udp_sndbuf_errors"] + export["tx_dropped"]):
            unsaid.append("member %d: exported %d, the collector has %d" % (
                m["member"], m["exported"], got))
        elif short:
            lost += short
    return lost, unsaid, said_all


def sensor_counts(frames, sensor, members, export, coll):
    c = {"frames": frames}
    for k in ("offered", "send_errors", "wire", "missed", "nic_rx"):
        c[k] = sensor[k]
    for k in ("ring_dropped", "received", "exported"):
        c[k] = sum(m[k] for m in members)
    # softflowd counts a frame that is not IP in "ignored", not in
    # "processed"; one too short in both.
    c["read"] = sum(m["processed"] + m["non_ip"] for m in members)
    c["ignored"] = sum(m["non_ip"] + m["too_short"] for m in members)
    c["collected"] = sum(m["packets"] for m in coll)
    c["export_lost"], c["unsaid"], c["said"] = export_lost(members, export, coll)
    return c


def report(d):
    sent = {}
    with open(d + "/flows.tsv") as f:
        next(f)
        for line in f:
            s, pr, sa, sp, da, dp, pk, by = line.split("\t")
            sent[(int(pr), sa, int(sp), da, int(dp))] = (int(s), int(pk), int(by))
    nsens = 1 + max(v[0] for v in sent.values())
    exact, short, extra, split, wrong = compare_flows(
        d, sent, read_collector(d + "/nfdump.tsv"))
    colls = read_counters(d + "/collector.txt", "collector")

    cols, bad = [], 0
    for s in range(nsens):
        log = "%s/sensor%d.log" % (d, s)
        sensor = read_counters(log, "sensor")
        members = read_counters(log, "member")
        export = read_counters(log, "export")
        if not sensor or not members or not export:
            print("demo: sensor%d printed no counters (see %s)" % (s, log))
            return 1
        frames = sum(v[1] for v in sent.values() if v[0] == s)
        c = sensor_counts(frames, sensor[0], members, export[0],
                          [m for m in colls if m["sensor"] == s])
        cols.append(c)
        # What the flows at the collector are short of is what the
        # collector's records are short of.
        if frames - short[s] != c["collected"]:
            print("demo: sensor%d: the collector's records hold %d frames, its"
                  " flows %d" % (s, c["collected"], frames - short[s]))
            bad += 1

    print()
    print("demo: every frame the broker had for each sensor, layer by layer")
    print("  %-50s" % "" + "".join("%10s" % ("sensor%d" % s) for s in range(nsens)))
    for name, passed, lost in LAYERS:
        print("  %-50s" % name + "".join("%10d" % c[passed or lost] for c in cols))
    for s, c in enumerate(cols):
        # Each layer's input, less its loss, is the next layer's input.
        prev = c["frames"]
        for name, passed, lost in LAYERS[1:]:
            if lost:
                prev -= c[lost]
            if passed and c[passed] != prev:
                print("demo: sensor%d: %d frames unaccounted before \"%s\"" %
                      (s, prev - c[passed], name.strip()))
                bad += 1
            if passed:
                prev = c[passed]
        for u in c["unsaid"]:
            print("demo: sensor%d: the export path counted no loss, but %s" % (s, u))
            bad += 1
        said = ", ".join("%d %s" % (n, k) for k, n in c["said"].items() if n)
        if said:
            print("demo: sensor%d: the export path said it lost datagrams: %s" % (s, said))
        lost = c["frames"] - c["collected"]
        print("demo: sensor%d: %d of %d frames at the collector, %d lost:"
              " %s" % (s, c["collected"], c["frames"], lost,
                       ", ".join("%d %s" % (c[l], n.strip()) for n, _, l in LAYERS
                                 if l and c[l]) or "none"))
    if extra:
        print("demo: FAIL: the collector has %d frames in flows never sent" % extra)
        bad += 1
    bad += wrong
    if split:
        print("demo: FAIL: %d conversations split between members" % split)
        bad += 1
    if bad:
        print("demo: FAIL: frames neither at the collector nor counted lost")
        return 1
    if exact == len(sent):
        print("demo: every flow sent is at the collector, with exact packet and"
              " byte counts")
    else:
        print("demo: every frame missing at the collector is counted by the"
              " layer that lost it")
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "traffic":
        write_traffic(argv[2], int(argv[3]))
        return 0
    if len(argv) == 3 and argv[1] == "report":
        return report(argv[2])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
