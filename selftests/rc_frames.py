#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""The selftests' numbered test frames (the layout of rc_frames.h) in
Python, and checks of pcap files that should hold them.

As a module: build(seq, ln, queue, run) makes a frame, varied(seq) and
mixed(seq) are rc_frames.h's length and queue patterns, read(path) reads
a pcap file (micro- or nanosecond) into (sec, frac, wire_len, bytes).

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
"""
import struct
import sys

ETH_P_TEST = b"\x88\xb5"
DST = bytes([2, 0, 0, 0, 0, 2])
SRC = bytes([2, 0, 0, 0, 0, 1])


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


def main(argv):
    if len(argv) < 2:
        fail(__doc__)
    cmd, path = argv[0], argv[1]
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
