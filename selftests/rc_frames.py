#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""The selftests' numbered test frames (the layout of rc_frames.h) in
Python, and checks of pcap files that should hold them.

As a module: build(seq, ln, queue, run) makes a frame, varied(seq) and
mixed(seq) are rc_frames.h's length and queue patterns, read(path) reads
a pcap file (micro- or nanosecond) into (sec, frac, wire_len, bytes).
build_udp(k, run, dst) makes UDP frame k (below), udp_seq(p) reads its
(k, run) back or None.

As a command (exit 0 and one "ok: ..." line, or 1 and why):

  rc_frames.py seq FILE FIRST COUNT QUEUE RUN [foreign-ok]
        FILE holds exactly the test frames FIRST..FIRST+COUNT-1 of run RUN
        (varied lengths), byte for byte, in order, timestamps monotonic.
        QUEUE: a number; "mixed" (rc_mixed_queue); "mixed1" (only those of
        the mix on queue 1). foreign-ok: other frames may be in between.
  rc_frames.py same FILE OTHER      the same test frames in both files
  rc_frames.py count FILE           prints the number of frames
  rc_frames.py udp FILE PORT COUNT  exactly COUNT frames, all IPv4 UDP to PORT
  rc_frames.py nano FILE            a nanosecond file with sub-us digits
  rc_frames.py udp-write FILE COUNT RUN [DSTMAC]
        writes a pcap (microseconds, Ethernet) of COUNT IPv4/UDP frames for
        a NIC's RSS to spread: frame k (from 0) is varied(k) bytes, from
        02:00:00:00:00:01 to DSTMAC (default 52:54:00:12:34:12), from
        10.1.0.1+k%64 port 10000+k%64 to 10.0.0.2 port 5001, a valid IPv4
        header checksum, UDP checksum 0, payload "RCAPUDP", k and RUN
        (">IB"), then byte (k*131 + 7*i + RUN) & 0xff at frame offset i.
  rc_frames.py udp-split SENT FILE...
        the captures FILE... together hold every frame of SENT (as written
        by udp-write) exactly once, byte for byte and wire length, each
        FILE in SENT's order; frames that are not RCAPUDP frames of SENT's
        run (ARP, IPv6, another run) are ignored and counted. Prints
        "ok: N frames byte-exact across K files (per file: a, b, ...;
        ignored: x)", or on one line what is missing, duplicated,
        reordered or different (seq, offset).
  rc_frames.py replayed SENT GOT COUNT
        what "rcgen --replay SENT --count COUNT" sends, as captured in GOT:
        exactly COUNT IPv4 UDP frames, frame i (from 0) byte for byte and
        wire length frame i mod n of SENT's n frames (all IPv4 UDP, e.g.
        from udp-write), in order. Other frames in GOT (ARP, IPv6) are
        ignored and counted. Prints "ok: COUNT frames byte-exact in order
        (SENT cycled k times; ignored: x)", or on one line the first
        difference: its index, the seq expected and what came instead, or
        how many frames there were.
"""
import struct
import sys

ETH_P_TEST = b"\x88\xb5"
DST = bytes([2, 0, 0, 0, 0, 2])
SRC = bytes([2, 0, 0, 0, 0, 1])

UDP_DST_MAC = "52:54:00:12:34:12"
UDP_MAGIC = b"RCAPUDP"
UDP_FLOWS = 64          # sources, so that RSS spreads the frames
UDP_HDRS = 42           # Ethernet, IPv4 without options, UDP


def varied(seq):
    """60..1514 bytes: every length once per 1455 sequence numbers."""
    return 60 + (seq * 379) % 1455


def mixed(seq):
    """4 frames in 10 on queue 1, the rest on queue 0."""
    return 1 if (seq * 7) % 10 < 4 else 0


def build(seq, ln, queue, run):
    f = DST + SRC + ETH_P_TEST + b"RCAPTEST"
    f += struct.pack(">IH", seq, ln) + bytes([queue, seq % 3, run])
    return f + bytes((seq * 131 + i * 7 + run) & 0xFF for i in range(31, ln))


def is_test(p):
    return len(p) >= 31 and p[12:14] == ETH_P_TEST and p[14:22] == b"RCAPTEST"


def ip_csum(hdr):
    """The IPv4 header checksum (RFC 1071) of hdr, its checksum field 0."""
    s = sum(struct.unpack(">%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


_udp_rows = {}


def _udp_fill(k, run, start, end):
    """Bytes start..end-1 of frame k's pattern: (k*131 + 7*i + run) & 0xff.
    The same for every k with one base, so one row per base is built once
    (writing 100000 frames byte by byte would take seconds)."""
    base = (k * 131 + run) & 0xFF
    row = _udp_rows.get(base)
    if row is None:
        row = _udp_rows[base] = bytes((base + 7 * i) & 0xFF
                                      for i in range(1514))
    return row[start:end]


def build_udp(k, run, dst=bytes.fromhex(UDP_DST_MAC.replace(":", ""))):
    ln, flow = varied(k), k % UDP_FLOWS
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, ln - 14, k & 0xFFFF, 0x4000,
                     64, 17, 0, bytes([10, 1, 0, 1 + flow]),
                     bytes([10, 0, 0, 2]))
    ip = ip[:10] + struct.pack(">H", ip_csum(ip)) + ip[12:]
    udp = struct.pack(">HHHH", 10000 + flow, 5001, ln - 34, 0)
    head = dst + SRC + b"\x08\x00" + ip + udp + UDP_MAGIC + \
        struct.pack(">IB", k, run)
    return head + _udp_fill(k, run, len(head), ln)


def udp_seq(p):
    """(k, run) of a frame build_udp() made, or None for anything else;
    only the headers are looked at, not whether the rest is intact."""
    if len(p) < 34 or p[12:14] != b"\x08\x00" or p[14] >> 4 != 4 or \
            p[23] != 17:
        return None
    off = 14 + (p[14] & 0xF) * 4 + 8
    if p[off:off + 7] != UDP_MAGIC or len(p) < off + 12:
        return None
    return struct.unpack(">IB", p[off + 7:off + 12])


def read(path):
    with open(path, "rb") as f:
        d = f.read()
    if len(d) < 24:
        raise ValueError("%s: no pcap file header (%d bytes)" % (path, len(d)))
    magic = struct.unpack("<I", d[:4])[0]
    if magic not in (0xA1B2C3D4, 0xA1B23C4D):
        raise ValueError("%s: not a little-endian pcap file" % path)
    nano = magic == 0xA1B23C4D
    off, out = 24, []
    while off + 16 <= len(d):
        s, frac, cap, wire = struct.unpack("<IIII", d[off:off + 16])
        out.append((s, frac, wire, d[off + 16:off + 16 + cap]))
        off += 16 + cap
    return nano, out


def fail(msg):
    print(msg)
    sys.exit(1)


def check_seq(pkts, nano, first, count, q, run, foreign_ok):
    want = []
    for seq in range(first, first + count):
        queue = mixed(seq) if q.startswith("mixed") else int(q)
        if q == "mixed1" and queue != 1:
            continue
        want.append((seq, queue))
    got, last = [], 0
    for s, frac, wire, p in pkts:
        if not is_test(p):
            if not foreign_ok:
                fail("a frame that is not a test frame: %s" % p[:16].hex())
            continue
        t = s * (10**9 if nano else 10**6) + frac
        if t < last:
            fail("timestamp went backwards at frame %d" % len(got))
        last = t
        got.append((wire, p))
    if len(got) != len(want):
        fail("%d test frames, expected %d" % (len(got), len(want)))
    for i, ((seq, queue), (wire, p)) in enumerate(zip(want, got)):
        exp = build(seq, varied(seq), queue, run)
        if p != exp or wire != len(exp):
            fail("frame %d: not seq %d as sent (got seq %d, %d bytes)" %
                 (i, seq, struct.unpack(">I", p[22:26])[0], len(p)))
    print("ok: %d frames byte-exact, in order, timestamps monotonic" % len(got))


def udp_write(path, count, run, dst):
    """udp-write: a little-endian microsecond pcap, 1 us between frames."""
    try:
        mac = bytes.fromhex(dst.replace(":", ""))
    except ValueError:
        mac = b""
    if len(mac) != 6 or len(dst) != 17:
        fail("DSTMAC: expected xx:xx:xx:xx:xx:xx, got %s" % dst)
    if not 0 <= run <= 255 or not 0 <= count < 2**32:
        fail("RUN must be 0..255 and COUNT 0..2^32-1")
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]
    for k in range(count):
        f = build_udp(k, run, mac)
        out.append(struct.pack("<IIII", k // 10**6, k % 10**6, len(f), len(f)))
        out.append(f)
    try:
        with open(path, "wb") as fp:
            fp.write(b"".join(out))
    except OSError as e:
        fail(str(e))
    print("ok: wrote %d frames of run %d to %s" % (count, run, path))


def first(seqs, n=5):
    """The first n of seqs, for a message: "3, 4, 9, ..." """
    seqs = sorted(seqs)
    return ", ".join(map(str, seqs[:n])) + (", ..." if len(seqs) > n else "")


def udp_split(sent_path, paths):
    """udp-split: every problem found goes on the one line printed."""
    try:
        _, sent = read(sent_path)
    except (OSError, ValueError) as e:
        fail(str(e))
    want, order, run = {}, [], None
    for i, (_, _, wire, p) in enumerate(sent):
        ks = udp_seq(p)
        if ks is None or (run is not None and ks[1] != run) or ks[0] in want:
            fail("%s: frame %d is not a udp-write frame of one run" %
                 (sent_path, i + 1))
        run = ks[1]
        want[ks[0]] = (i, wire, p)
        order.append(ks[0])
    if run is None:
        fail("%s: no frames" % sent_path)

    seen = {}                   # seq -> how often, over all files
    per_file, ignored = [], 0
    reordered, differ = [], []
    for path in paths:
        try:
            _, pkts = read(path)
        except (OSError, ValueError) as e:
            fail(str(e))
        mine, last = 0, -1      # last: SENT's index of the previous frame
        for n, (_, _, wire, p) in enumerate(pkts):
            ks = udp_seq(p)
            if ks is None or ks[1] != run:
                ignored += 1
                continue
            k = ks[0]
            mine += 1
            seen[k] = seen.get(k, 0) + 1
            if k not in want:
                continue        # reported as extra below
            idx, swire, sp = want[k]
            if idx < last:
                reordered.append("seq %d after seq %d in %s (frame %d)" %
                                 (k, order[last], path, n + 1))
            last = max(last, idx)
            if p != sp:
                o = next((j for j, (a, b) in enumerate(zip(p, sp)) if a != b),
                         min(len(p), len(sp)))
                differ.append("bytes differ at seq %d offset %d (%s frame %d:"
                              " %d bytes, wire %d; sent %d)" %
                              (k, o, path, n + 1, len(p), wire, len(sp)))
            elif wire != swire:
                differ.append("wire length differs at seq %d (%s frame %d:"
                              " %d, sent %d)" % (k, path, n + 1, wire, swire))
        per_file.append(mine)

    missing = [k for k in want if k not in seen]
    extra = [k for k in seen if k not in want]
    dups = [k for k, c in seen.items() if c > 1 and k in want]
    bad = []
    if missing:
        bad.append("missing %d of %d seqs: %s" %
                   (len(missing), len(want), first(missing)))
    if dups:
        bad.append("%d seqs duplicated: %s" % (len(dups), first(dups)))
    if extra:
        bad.append("%d seqs not in %s: %s" % (len(extra), sent_path,
                                              first(extra)))
    if reordered:
        bad.append("%d reordered, first %s" % (len(reordered), reordered[0]))
    if differ:
        bad.append("%d differ, first %s" % (len(differ), differ[0]))
    if bad:
        fail("; ".join(bad))
    print("ok: %d frames byte-exact across %d files (per file: %s; "
          "ignored: %d)" % (len(want), len(paths),
                            ", ".join(map(str, per_file)), ignored))


def is_udp4(p):
    """An untagged Ethernet frame with an IPv4 UDP header."""
    return len(p) >= 42 and p[12:14] == b"\x08\x00" and p[14] >> 4 == 4 \
        and p[23] == 17


def first_diff(a, b):
    """The first offset where a and b differ (the shorter length if one
    is the start of the other)."""
    return next((j for j, (x, y) in enumerate(zip(a, b)) if x != y),
                min(len(a), len(b)))


def replayed(sent_path, got_path, count):
    """replayed: the first difference, or the count, on the one line."""
    try:
        _, sent = read(sent_path)
        _, got = read(got_path)
    except (OSError, ValueError) as e:
        fail(str(e))
    if not sent:
        fail("%s: no frames" % sent_path)
    index = {}                  # bytes -> SENT's index, to name strays
    for j, (_, _, wire, p) in enumerate(sent):
        if not is_udp4(p):
            fail("%s: frame %d is not IPv4 UDP, so it could not be told "
                 "from the noise that is ignored in %s" %
                 (sent_path, j + 1, got_path))
        if wire != len(p):
            fail("%s: frame %d was not captured whole (%d of %d bytes)" %
                 (sent_path, j + 1, len(p), wire))
        index.setdefault(p, j)
    n = len(sent)

    frames, ignored = [], 0     # frames: (record number, wire, bytes)
    for r, (_, _, wire, p) in enumerate(got):
        if is_udp4(p):
            frames.append((r + 1, wire, p))
        else:
            ignored += 1

    def name(j, p):
        ks = udp_seq(p)
        return ("seq %d" % ks[0] if ks else "no udp-write seq") + \
            " (%s frame %d)" % (sent_path, j + 1)

    for i, (rec, wire, p) in enumerate(frames[:count]):
        _, _, swire, sp = sent[i % n]
        if p == sp and wire == swire:
            continue
        if p != sp and p in index:
            # Out of order, or lost: does the expected frame come later?
            # Every round is the same frames, so a copy found after a
            # frame of an earlier position (the next round begun) is the
            # next round's: this one was lost, not late.
            later, wrapped = None, False
            for k in range(i, min(i + 1000, len(frames))):
                if k > i and frames[k][2] == sp:
                    later = k
                    break
                if index.get(frames[k][2], n) < i % n:
                    wrapped = True
            if later is None or wrapped:
                how = "lost (%s)" % (
                    "not in the next 1000 frames" if later is None else
                    "the next round's copy comes %d frames later" %
                    (later - i))
            else:
                how = "out of order, it comes %d frames later" % (later - i)
            what = "got %s instead: %s; %d UDP frames in all, %d sent" % (
                name(index[p], p), how, len(frames), count)
        elif p != sp:
            ks = udp_seq(p)
            what = "got %s%d bytes (wire %d; sent %d) differing at " \
                "offset %d" % ("seq %d of run %d, " % ks if ks else "",
                               len(p), wire, len(sp), first_diff(p, sp))
        else:
            what = "the bytes match, but the wire length is %d, sent %d" % \
                (wire, swire)
        fail("frame %d (record %d of %s): expected %s, round %d: %s "
             "(ignored: %d)" % (i, rec, got_path, name(i % n, sp),
                                i // n + 1, what, ignored))
    if len(frames) > count:
        extra = len(frames) - count
        fail("%d IPv4 UDP frames in %s, expected %d: the first %d are "
             "right, %d more %s (ignored: %d)" %
             (len(frames), got_path, count, count, extra,
              "follows" if extra == 1 else "follow", ignored))
    if len(frames) < count:
        fail("%d IPv4 UDP frames in %s, expected %d: %s, the last %d "
             "are missing (ignored: %d)" %
             (len(frames), got_path, count,
              "those are right" if frames else "none came",
              count - len(frames), ignored))
    rounds = "%d" % (count // n) if count % n == 0 else "%.2f" % (count / n)
    print("ok: %d frames byte-exact in order (%s cycled %s times; "
          "ignored: %d)" % (count, sent_path, rounds, ignored))


def main(argv):
    if len(argv) < 2:
        fail(__doc__)
    cmd, path = argv[0], argv[1]
    # These two do not read FILE the way the others do.
    if cmd == "udp-write" and len(argv) in (4, 5):
        try:
            count, run = int(argv[2]), int(argv[3])
        except ValueError:
            fail("COUNT and RUN must be numbers: %s" % " ".join(argv[2:4]))
        udp_write(path, count, run, argv[4] if len(argv) == 5 else UDP_DST_MAC)
        return
    if cmd == "udp-split" and len(argv) >= 3:
        udp_split(path, argv[2:])
        return
    if cmd == "replayed" and len(argv) == 4:
        try:
            count = int(argv[3])
        except ValueError:
            count = -1
        if count < 0:
            fail("COUNT must be a number >= 0, got %s" % argv[3])
        replayed(path, argv[2], count)
        return
    if cmd in ("udp-write", "udp-split", "replayed"):
        fail("bad arguments: %s (see the top of %s)" %
             (" ".join(argv), __file__))
    try:
        nano, pkts = read(path)
    except (OSError, ValueError) as e:
        fail(str(e))
    if cmd == "seq" and len(argv) in (6, 7):
        check_seq(pkts, nano, int(argv[2]), int(argv[3]), argv[4],
                  int(argv[5]), len(argv) == 7 and argv[6] == "foreign-ok")
    elif cmd == "same" and len(argv) == 3:
        _, other = read(argv[2])
        a = [p for _, _, _, p in pkts if is_test(p)]
        b = [p for _, _, _, p in other if is_test(p)]
        if a != b:
            fail("%d and %d test frames, or different bytes" % (len(a), len(b)))
        print("ok: the same %d frames" % len(a))
    elif cmd == "count" and len(argv) == 2:
        print(len(pkts))
    elif cmd == "udp" and len(argv) == 4:
        port, count = int(argv[2]), int(argv[3])
        bad = [p for _, _, _, p in pkts
               if p[12:14] != b"\x08\x00" or p[23] != 17 or
               struct.unpack(">H", p[36:38])[0] != port]
        if bad or len(pkts) != count:
            fail("%d frames (%d not UDP to %d), expected %d" %
                 (len(pkts), len(bad), port, count))
        print("ok: exactly the %d matching frames" % count)
    elif cmd == "nano" and len(argv) == 2:
        if not nano:
            fail("not a nanosecond pcap file")
        if not any(frac % 1000 for _, frac, _, _ in pkts):
            fail("no timestamp has sub-microsecond digits")
        print("ok: nanosecond timestamps")
    else:
        fail("bad arguments: %s (see the top of %s)" % (" ".join(argv), __file__))


if __name__ == "__main__":
    main(sys.argv[1:])
