#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Traffic helpers for selftests/e1000e/*.sh, run inside the test guest.

Run it with python3 -S (no site module: a faster start under emulation).
Every sub-command prints one summary line "NAME: key=value ..." on stdout
(receivers print "ready" first, once their socket is bound) and exits 0,
or 1 with a message on stderr. Each has a hard time limit (--timeout).

  net.py [--timeout S] CMD --option VALUE...

  net.py udp-recv --port P --count N [--idle S]
        receive UDP datagrams until N arrived, none came for S seconds
        or SIGTERM -> udp-recv: received=K bytes=B
  net.py udp-send --dst IP --port P --count N [--pps R]
        -> udp-send: sent=N
  net.py tcp-recv --port P
        accept one connection, read to EOF
        -> tcp-recv: bytes=N sha256=HEX
  net.py tcp-send --dst IP --port P --bytes N [--seed S]
        send N pseudo-random bytes (the seed fixes them)
        -> tcp-send: bytes=N sha256=HEX
  net.py raw-send --dev DEV --dst-mac MAC --count N [--pps R] [--flows F]
        64-byte IPv4/UDP frames through an AF_PACKET socket, flow f from
        10.8.x.y:(1024+f) to 10.9.9.9:9 (an address nobody has, so a
        receiving stack drops them quietly); RSS spreads the flows
        -> raw-send: sent=N
  net.py frames-send --dev DEV --count N --run R [--pps R]
        the selftests' numbered test frames 0..N-1 of run R, varied
        lengths (../rc_frames.py), through an AF_PACKET socket
        -> frames-send: sent=N
  net.py vlan-send --dev DEV --dst-mac MAC --tci T --count N [--pps R]
                  [--stag S]
        raw-send's frame of flow 0 with an 802.1Q tag (TCI T) after the
        MAC addresses: 64 bytes; with --stag, an 802.1ad tag (TCI S)
        before that one (QinQ): 68 bytes -> vlan-send: sent=N
  net.py ring-recv --dev DEV --count N [--idle S]
        a ringcap socket bound to DEV (all queues); one line per record
        "rec: flags=0xF caplen=C wire_len=W vlan_tci=0xT
        vlan_proto=0xP type=0xE tag=0xX" (vlan_proto in host order, type
        the ethertype at byte 12 of the data, tag the 16 bits after it)
        until N came or none for S seconds
        -> ring-recv: records=K
"""
import ctypes
import mmap
import os
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import rc_frames  # noqa: E402


def out(name, **kv):
    print(name + ": " + " ".join("%s=%s" % (k, v) for k, v in kv.items()),
          flush=True)


def ready():
    print("ready", flush=True)


class Pacer:
    """Spread sends evenly at pps per second (0: as fast as possible)."""

    def __init__(self, pps):
        self.gap = 1.0 / pps if pps > 0 else 0.0
        self.start = time.monotonic()

    def wait(self, i):
        if not self.gap:
            return
        # Sleep only when more than 2 ms ahead: sleeps are coarse.
        ahead = self.start + i * self.gap - time.monotonic()
        if ahead > 0.002:
            time.sleep(ahead)


class Stop(Exception):
    pass


def udp_recv(a):
    def stop(*_):
        raise Stop()

    signal.signal(signal.SIGTERM, stop)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind(("0.0.0.0", a.port))
    ready()
    n = nbytes = 0
    s.settimeout(a.idle)
    while n < a.count:
        try:
            data = s.recv(65536)
        except (socket.timeout, Stop):
            break
        n += 1
        nbytes += len(data)
    out("udp-recv", received=n, bytes=nbytes)


def udp_send(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    pace = Pacer(a.pps)
    payload = bytes(range(64))
    for i in range(a.count):
        pace.wait(i)
        s.sendto(struct.pack("!I", i) + payload, (a.dst, a.port))
    out("udp-send", sent=a.count)


def tcp_recv(a):
    import hashlib

    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", a.port))
    ls.listen(1)
    ready()
    c, _ = ls.accept()
    h = hashlib.sha256()
    n = 0
    while True:
        data = c.recv(1 << 16)
        if not data:
            break
        h.update(data)
        n += len(data)
    out("tcp-recv", bytes=n, sha256=h.hexdigest())


def tcp_send(a):
    import hashlib
    import random

    data = random.Random(a.seed).randbytes(a.bytes)
    s = socket.create_connection((a.dst, a.port), timeout=a.timeout)
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    # Wait for the receiver to close: everything was taken.
    s.settimeout(a.timeout)
    while s.recv(4096):
        pass
    out("tcp-send", bytes=len(data), sha256=hashlib.sha256(data).hexdigest())


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def raw_frame(src_mac, dst_mac, f):
    src_ip = bytes([10, 8, (f >> 8) & 0xFF, f & 0xFF])
    dst_ip = bytes([10, 9, 9, 9])
    payload = bytes(18)			# 14 + 20 + 8 + 18 = 60 bytes
    udp = struct.pack("!HHHH", 1024 + f, 9, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), f, 0, 64,
                     17, 0, src_ip, dst_ip)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dst_mac + src_mac + b"\x08\x00" + ip + udp


def send_all(dev, frames, count, pps):
    """Send frames[i % len(frames)] for i < count; returns count."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((dev, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    pace = Pacer(pps)
    for i in range(count):
        pace.wait(i)
        while True:
            try:
                s.send(frames[i % len(frames)])
                break
            except BlockingIOError:
                time.sleep(0.001)
            except OSError as e:
                # ENOBUFS: the qdisc is full; wait for TX to drain.
                if e.errno != 105:
                    raise
                time.sleep(0.001)
    return count


def raw_send(a):
    with open("/sys/class/net/%s/address" % a.dev) as f:
        src = bytes.fromhex(f.read().strip().replace(":", ""))
    dst = bytes.fromhex(a.dst_mac.replace(":", ""))
    frames = [raw_frame(src, dst, f) for f in range(a.flows)]
    out("raw-send", sent=send_all(a.dev, frames, a.count, a.pps))


def frames_send(a):
    frames = [rc_frames.build(seq, rc_frames.varied(seq), 0, a.run)
              for seq in range(a.count)]
    out("frames-send", sent=send_all(a.dev, frames, a.count, a.pps))


def vlan_send(a):
    with open("/sys/class/net/%s/address" % a.dev) as f:
        src = bytes.fromhex(f.read().strip().replace(":", ""))
    dst = bytes.fromhex(a.dst_mac.replace(":", ""))
    plain = raw_frame(src, dst, 0)
    tags = struct.pack("!HH", 0x8100, a.tci)
    if a.stag >= 0:
        tags = struct.pack("!HH", 0x88A8, a.stag) + tags
    frame = plain[:12] + tags + plain[12:]
    out("vlan-send", sent=send_all(a.dev, [frame], a.count, a.pps))


# The ringcap ABI (include/uapi/linux/ringcap.h), what ring-recv needs.
SOL_RINGCAP, RING_SIZE, RING_INFO = 300, 1, 16
QUEUE_ANY, REC_PAD = 0xFFFF, 0x1
HDR_PRODUCER, HDR_CONSUMER = 128, 256
REC = struct.Struct("<IHHIIQiIHHI")	# struct ringcap_rec


def ring_recv(a):
    with open("/sys/module/ringcap/parameters/family") as f:
        fam = int(f.read())
    s = socket.socket(fam, socket.SOCK_RAW, socket.htons(3))
    s.setsockopt(SOL_RINGCAP, RING_SIZE, 1 << 20)
    # Python's bind() knows no such family: libc's does.
    libc = ctypes.CDLL(None, use_errno=True)
    addr = struct.pack("=HHi", fam, QUEUE_ANY, socket.if_nametoindex(a.dev))
    if libc.bind(s.fileno(), addr, len(addr)):
        raise OSError(ctypes.get_errno(), "bind %s" % a.dev)
    mmap_size, off, size = struct.unpack(
        "=QII", s.getsockopt(SOL_RINGCAP, RING_INFO, 16))
    m = mmap.mmap(s.fileno(), mmap_size)
    ready()
    cons, n, last = 0, 0, time.monotonic()
    while n < a.count and time.monotonic() - last < a.idle:
        prod = struct.unpack_from("=Q", m, HDR_PRODUCER)[0]
        if prod == cons:
            time.sleep(0.02)
            continue
        while cons < prod:
            at = off + (cons & (size - 1))
            (rec_len, flags, _, caplen, wire_len, _, _, _, tci, proto,
             _) = REC.unpack_from(m, at)
            if not flags & REC_PAD:
                d = m[at + REC.size:at + REC.size + caplen]
                typ, tag = struct.unpack("!HH", d[12:16])
                print("rec: flags=0x%x caplen=%d wire_len=%d vlan_tci=0x%x "
                      "vlan_proto=0x%x type=0x%x tag=0x%x"
                      % (flags, caplen, wire_len, tci, socket.ntohs(proto),
                         typ, tag), flush=True)
                n += 1
            cons += rec_len
        struct.pack_into("=Q", m, HDR_CONSUMER, cons)
        last = time.monotonic()
    out("ring-recv", records=n)


# sub-command: (function, {option: (type, default or None if required)})
COMMANDS = {
    "udp-recv": (udp_recv, {"port": (int, None), "count": (int, None),
                            "idle": (float, 3.0)}),
    "udp-send": (udp_send, {"dst": (str, None), "port": (int, None),
                            "count": (int, None), "pps": (float, 0.0)}),
    "tcp-recv": (tcp_recv, {"port": (int, None)}),
    "tcp-send": (tcp_send, {"dst": (str, None), "port": (int, None),
                            "bytes": (int, None), "seed": (int, 1)}),
    "raw-send": (raw_send, {"dev": (str, None), "dst_mac": (str, None),
                            "count": (int, None), "pps": (float, 0.0),
                            "flows": (int, 1)}),
    "frames-send": (frames_send, {"dev": (str, None), "count": (int, None),
                                  "run": (int, None), "pps": (float, 0.0)}),
    "vlan-send": (vlan_send, {"dev": (str, None), "dst_mac": (str, None),
                              "tci": (lambda v: int(v, 0), None),
                              "stag": (lambda v: int(v, 0), -1),
                              "count": (int, None), "pps": (float, 0.0)}),
    "ring-recv": (ring_recv, {"dev": (str, None), "count": (int, None),
                              "idle": (float, 5.0)}),
}


def usage(why):
    sys.exit("net.py: %s (usage: the top of %s)" % (why, sys.argv[0]))


def parse(argv):
    """[--timeout S] CMD --opt VALUE...; argparse costs a second to
    import in an emulated guest, hence by hand."""
    a = type("Args", (), {})()
    a.timeout = 120.0
    if argv[:1] == ["--timeout"] and len(argv) > 1:
        a.timeout = float(argv[1])
        argv = argv[2:]
    if not argv or argv[0] not in COMMANDS:
        usage("want one of " + ", ".join(COMMANDS))
    a.cmd = argv[0]
    fn, opts = COMMANDS[a.cmd]
    a.fn = fn
    rest = argv[1:]
    if len(rest) % 2:
        usage("%s: options come as --name value" % a.cmd)
    given = {}
    for k, v in zip(rest[::2], rest[1::2]):
        name = k[2:].replace("-", "_") if k.startswith("--") else None
        if name not in opts:
            usage("%s: unknown option %s" % (a.cmd, k))
        try:
            given[name] = opts[name][0](v)
        except ValueError:
            usage("%s: bad value for %s: %s" % (a.cmd, k, v))
    for name, (_, default) in opts.items():
        if name not in given and default is None:
            usage("%s: --%s is required" % (a.cmd, name.replace("_", "-")))
        setattr(a, name, given.get(name, default))
    return a


def main():
    a = parse(sys.argv[1:])
    if a.cmd == "raw-send" and not 1 <= a.flows <= 65536:
        usage("--flows wants 1..65536")
    # A hard limit, whatever blocks: SIGALRM ends the process.
    signal.signal(signal.SIGALRM, lambda *_: sys.exit("%s: timed out after %g s"
                                                       % (a.cmd, a.timeout)))
    signal.setitimer(signal.ITIMER_REAL, a.timeout)
    try:
        a.fn(a)
    except OSError as e:
        sys.exit("%s: %s" % (a.cmd, e))


if __name__ == "__main__":
    main()
