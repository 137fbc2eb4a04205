// SPDX-License-Identifier: BSD-3-Clause
/*
 * pcap-ringcap.c: a libpcap capture source that reads frames from a ringcap
 * ring (include/uapi/linux/ringcap.h) through libringcap, so an unchanged
 * libpcap application captures through ringcap.
 *
 * Device names
 *
 *   eth0           all RX queues of eth0 through ringcap when the module is
 *                  loaded (/sys/module/ringcap exists), RINGCAP_DISABLE is
 *                  unset and eth0 is an Ethernet (or loopback) device;
 *                  otherwise libpcap's normal Linux capture (AF_PACKET)
 *   eth0@1         RX queue 1 of eth0, always through ringcap
 *   ringcap:eth0   all queues through ringcap, never the fallback: an
 *                  error that says why if ringcap cannot be used
 *   ringcap:eth0@1 the same for queue 1
 *
 * Tools that hand the name to the OS (ioctl(SIOCGIFADDR), argus) or parse
 * it themselves (softflowd's "index:name") break on the two name forms,
 * so each has an environment variable that keeps the plain name:
 * RINGCAP_REQUIRE for "ringcap:", RINGCAP_QUEUE for "@queue". They, and
 * RINGCAP_CLUSTER, apply to every device name that reaches this source
 * (libpcap's other sources, "nflog", "usbmon0", ..., claim theirs first)
 * and, like the name forms, mean ringcap or an error, never the fallback.
 *
 * The choice is made when the handle is created (pcap_create()), so an
 * activation error on a ringcap device is reported as such rather than
 * silently turned into an AF_PACKET capture. A malformed variable fails
 * pcap_create() itself, naming the variable and its value.
 *
 * Environment (the one place these knobs are documented; docs/LIBPCAP.md
 * repeats them for users)
 *
 *   RINGCAP_DISABLE=1     plain device names use the normal Linux capture
 *                         ("0" or empty: not disabled); explicit ringcap
 *                         names (eth0@1, ringcap:eth0) and the three
 *                         variables below then fail
 *   RINGCAP_REQUIRE=1     every device through ringcap, never the
 *                         fallback, as if named ringcap:DEV ("0" or
 *                         empty: not required)
 *   RINGCAP_QUEUE=N       RX queue N (0..65534) of every device, as if
 *                         named DEV@N; ringcap required. With a queue in
 *                         the name as well, the two must agree
 *   RINGCAP_CLUSTER=ID[:flow|rr|queue[+span]]
 *                         join cluster ID (1..4294967295; policy flow if
 *                         left out) before bind: the processes that join
 *                         the same ID on a device share its frames, each
 *                         frame to one of them (with +span, the members
 *                         on every device of theirs); ringcap required
 *   RINGCAP_ZEROCOPY=1    zero-copy receive: the socket takes its one RX
 *                         queue (DEV@Q or RINGCAP_QUEUE=Q; anything else
 *                         fails pcap_create(), as does RINGCAP_CLUSTER
 *                         with it) for itself, and the callback gets each
 *                         frame where the NIC wrote it, in its receive
 *                         buffer mapped read-only. A driver without it
 *                         fails activation, saying so: never a silent
 *                         copy-mode capture. "0" or empty: copy mode
 *   RINGCAP_PERSIST=NAME  a persistent ring (1..32 of A-Z a-z 0-9 . _ -):
 *                         it stays bound and capturing when the program
 *                         exits or dies, and the next program with the
 *                         same NAME, user, device and queue reads on
 *                         from the first frame not yet released, so a
 *                         restart leaves no hole (what the ring could
 *                         not hold meanwhile is counted in ps_drop);
 *                         ringcap required
 *   RINGCAP_CUTOFF=BYTES  a per-flow cut-off (1..2147483648, k or M
 *                         suffix): of each flow, in each direction, only
 *                         the frames that start within its first BYTES
 *                         reach the program; the kernel counts the rest
 *                         (in ps_recv, not in ps_drop: they passed the
 *                         filter and were left out on purpose); ringcap
 *                         required
 *   RINGCAP_WATERMARK=N   N, frames per wake-up outside immediate mode,
 *                         fixed. Unset, N adapts (rc_pcap_adapt()): 64,
 *                         as before, while frames come slower than 64
 *                         per RC_PCAP_WAKE_MS (10 ms); under a rate
 *                         sustained for a window of RC_PCAP_WINDOW_MS
 *                         (1 s), what that rate brings in 10 ms, at
 *                         most rcap_batch_watermark(): the frames of
 *                         up to 1518 bytes that fill a quarter of the
 *                         ring, as TPACKET_V3 wakes once per block (with
 *                         RINGCAP_ZEROCOPY at most a quarter of the
 *                         NIC's buffers, which libringcap sees to)
 *   RINGCAP_RING_SIZE=B   ring data bytes, rounded up to a power of two
 *                         (an error if the module refuses it); otherwise
 *                         the application's buffer size (tcpdump -B)
 *                         rounded up and capped at the module's
 *                         max_ring_mem, or the module's ring_size if the
 *                         application sets none
 *   RINGCAP_DEBUG=1       one line on stderr per opened handle: device,
 *                         queue, cluster, N (and its adaptive range), m,
 *                         ring size, zero-copy, kernel or user filter;
 *                         one per change of an adaptive N, and one when
 *                         the transmit socket is opened
 *
 * An empty variable counts as unset.
 *
 * Mapping of libpcap's options
 *
 *   snaplen        RINGCAP_SNAPLEN, capped at RINGCAP_SNAPLEN_MAX and at
 *                  what the ring holds (RINGCAP_SNAPLEN_FOR_RING); the
 *                  handle keeps the requested value for the file header
 *   promisc        RINGCAP_PROMISC (held by the module while bound)
 *   immediate      N = 1: the reader is woken for every frame
 *   timeout T ms   N as RINGCAP_WATERMARK says and m = T * 1000 us, at most
 *                  RINGCAP_TIMEOUT_US_MAX: a frame waits at most T ms, as
 *                  libpcap promises; T = 0 keeps the module's timeout_us,
 *                  so a slow trickle is still delivered
 *   nonblock       reads never wait; the ring fd is the selectable fd and
 *                  becomes readable under the same N-or-m policy, so no
 *                  required_select_timeout is needed
 *   filters        SO_ATTACH_FILTER on the ringcap socket; if the kernel
 *                  refuses the program, it runs here instead
 *   stats          ps_recv = received + dropped + cutoff (frames that
 *                  passed the filter, whether or not they fitted in the
 *                  ring or their flow's cut-off, as the Linux backend
 *                  counts tp_packets), ps_drop = dropped
 *                  (ring full), ps_ifdrop = the device's missed frames
 *                  since bind (nic_dropped)
 *   timestamps     micro- or nanosecond precision from the record's
 *                  CLOCK_REALTIME nanoseconds; no other tstamp types
 *   direction      ringcap captures received frames only: PCAP_D_IN and
 *                  PCAP_D_INOUT (which then sees no outgoing frames) are
 *                  accepted, PCAP_D_OUT is refused
 *   inject         the transmit ring (RINGCAP_TX_RING_SIZE, 256 KiB) of a
 *                  transmit-only socket (rcap_set_capture(rc, 0))
 *                  bound to the same device and queue, opened by the
 *                  first pcap_inject(), so that a capture that never
 *                  sends holds no transmit ring; an open that fails
 *                  fails that inject, saying why, and the next one
 *                  tries again. pcap_inject()/pcap_sendpacket() copy
 *                  the frame in and kick at once, as they are
 *                  synchronous; the frame has
 *                  been handed to the device when they return. A frame
 *                  the device cannot take (shorter than 14 bytes, longer
 *                  than its MTU plus an Ethernet and a VLAN header), one
 *                  refused while it is down, a ring or device queue that
 *                  stays full for 250 ms, or a module without transmit
 *                  rings fail with a pcap error that says which
 *   packet data    where rcap_recv_batch() says the frame is: in the
 *                  ring, or with RINGCAP_ZEROCOPY in the NIC's buffer;
 *                  copied only to put back a VLAN tag the NIC stripped
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <time.h>
#include <linux/if_ether.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include "pcap-int.h"
#include "pcap-ringcap.h"
#include "libringcap.h"

#define RC_PCAP_PREFIX		"ringcap:"
#define RC_PCAP_MODULE		"/sys/module/ringcap"
#define RC_PCAP_BATCH		64	/* frames taken from the ring at once */
#define RC_PCAP_UNLIMITED	1024	/* frames per read when "all" is asked */
#define RC_PCAP_VLAN_LEN	4
/*
 * pcap_inject() sends one frame at a time and waits for it, so the
 * transmit ring rarely holds more than one: 256 KiB has room for the
 * longest frame of any device (lo: 64 KiB plus headers) and for a few
 * hundred full-size frames while a device's queue is full, at a quarter
 * of the default receive ring's memory.
 */
#define RC_PCAP_TX_RING		(256U << 10)
/* How long an inject waits for room in the ring, or for the device. */
#define RC_PCAP_TX_PATIENCE_MS	250
/*
 * The adaptive wake-up (rc_pcap_adapt()). Unchanged applications such as
 * fprobe hand each frame to a queue of their own (fprobe: 100 entries)
 * that another thread drains, and lose what a batch brings beyond it:
 * woken for 64 frames at a time, as libpcap-ring did before, they kept
 * everything. A quarter of the ring at once (885 frames of fprobe's
 * 256-byte snaplen in the default 1 MiB ring) overran fprobe's queue.
 * So N starts at 64 and grows only under a rate sustained for a whole
 * window (a second: a burst shorter than that is read 64 frames at a
 * time), to what that rate brings in RC_PCAP_WAKE_MS: at most 100
 * wake-ups a second from the watermark, which is the economy that
 * matters under load (docs/BENCHMARKS.md, "three readers"), and no more
 * than the quarter of the ring.
 */
#define RC_PCAP_WM_FLOOR	64
#define RC_PCAP_WAKE_MS		10
#define RC_PCAP_WINDOW_MS	1000

/* What a device name and the environment ask of ringcap (rc_pcap_claim). */
struct rc_pcap_req {
	char ifname[IFNAMSIZ];
	int queue;		/* -1: all queues */
	uint32_t cluster_id;	/* 0: no cluster */
	uint32_t cluster_policy;
	int zerocopy;		/* RINGCAP_ZEROCOPY=1 */
	char persist[RINGCAP_PERSIST_NAME_MAX + 1];	/* RINGCAP_PERSIST */
	uint32_t cutoff;	/* RINGCAP_CUTOFF, 0: none */
	int by_name;		/* "ringcap:" or "@" in the name */
	/*
	 * The first variable that asks for ringcap with a plain name, as
	 * "RINGCAP_QUEUE=1", for errors that say what to unset; "" if none.
	 */
	char by_env[64];
};

struct pcap_ringcap {
	struct ringcap *rc;
	struct rc_pcap_req req;
	int nonblock;
	int poll_ms;		/* blocking reads: -1 or the pcap timeout */
	int wake_fd;		/* eventfd: pcap_breakloop() ends a poll() */
	/*
	 * The transmit-only socket, opened by the first pcap_inject()
	 * (rc_pcap_tx_open()); NULL until then.
	 */
	struct ringcap *tx;
	/*
	 * The adaptive watermark: N now and its range; wm_max 0 when N is
	 * fixed (immediate mode, RINGCAP_WATERMARK). Frames taken since
	 * win_start (CLOCK_MONOTONIC ns) measure the rate.
	 */
	uint32_t wm, wm_min, wm_max;
	uint64_t win_start, win_frames;
	/* Transmit counters as last read, to tell a refusal's cause. */
	struct ringcap_tx_stats tx_st;
	/*
	 * Frames already in the ring when a kernel filter was attached never
	 * saw it; they go through the same program here until the reader
	 * has once found the ring empty, after which every frame has passed
	 * the kernel filter.
	 */
	int ufilter_until_empty;
	int ufilter_always;	/* the kernel refused the program */
	/* The batch being handed out: pkts[next..count) not yet seen. */
	struct ringcap_pkt pkts[RC_PCAP_BATCH];
	int next, count;
};

static int rc_pcap_env_flag(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

/* A positive decimal from the environment, or def if unset or malformed. */
static unsigned long rc_pcap_env_num(const char *name, unsigned long def)
{
	const char *v = getenv(name);
	unsigned long val;
	char *end;

	if (!v || !*v)
		return def;
	errno = 0;
	val = strtoul(v, &end, 10);
	if (errno || *end || !val)
		return def;
	return val;
}

/*
 * RINGCAP_QUEUE: decimal digits only, below RINGCAP_QUEUE_ANY; *queue is
 * -1 when unset. -1 with the reason in ebuf when malformed.
 */
static int rc_pcap_env_queue(int *queue, char *ebuf)
{
	const char *v = getenv("RINGCAP_QUEUE"), *s;
	long val = 0;

	*queue = -1;
	if (!v || !*v)
		return 0;
	for (s = v; *s; s++) {
		if (*s < '0' || *s > '9')
			goto bad;
		val = val * 10 + (*s - '0');
		if (val >= RINGCAP_QUEUE_ANY)
			goto bad;
	}
	*queue = (int)val;
	return 0;
bad:
	snprintf(ebuf, PCAP_ERRBUF_SIZE,
		 "ringcap: RINGCAP_QUEUE=\"%s\": expected a queue number 0..%d",
		 v, RINGCAP_QUEUE_ANY - 1);
	return -1;
}

/* RINGCAP_CLUSTER, through libringcap's parser; id 0 when unset. */
static int rc_pcap_env_cluster(struct rc_pcap_req *req, char *ebuf)
{
	const char *v = getenv("RINGCAP_CLUSTER");

	req->cluster_id = 0;
	if (!v || !*v)
		return 0;
	if (!rcap_parse_cluster(v, &req->cluster_id, &req->cluster_policy))
		return 0;
	snprintf(ebuf, PCAP_ERRBUF_SIZE,
		 "ringcap: RINGCAP_CLUSTER=\"%s\": expected ID[:flow|rr|queue[+span]] or ID:flow[+span]+inner, with ID 1..%u",
		 v, UINT32_MAX);
	return -1;
}

/*
 * RINGCAP_ZEROCOPY: "1" on, "0" or unset off. Anything else is refused
 * rather than read as either: "yes" taken for off would quietly copy,
 * and a typo taken for on would take a queue away from the stack.
 */
static int rc_pcap_env_zerocopy(struct rc_pcap_req *req, char *ebuf)
{
	const char *v = getenv("RINGCAP_ZEROCOPY");

	req->zerocopy = 0;
	if (!v || !*v || !strcmp(v, "0"))
		return 0;
	if (!strcmp(v, "1")) {
		req->zerocopy = 1;
		return 0;
	}
	snprintf(ebuf, PCAP_ERRBUF_SIZE,
		 "ringcap: RINGCAP_ZEROCOPY=\"%s\": expected 0 or 1", v);
	return -1;
}

/*
 * RINGCAP_PERSIST=NAME, checked here so that a bad name is an error at
 * pcap_create() naming the variable, not a refusal at bind.
 */
static int rc_pcap_env_persist(struct rc_pcap_req *req, char *ebuf)
{
	const char *v = getenv("RINGCAP_PERSIST");
	size_t i, n = v ? strlen(v) : 0;

	req->persist[0] = '\0';
	if (!n)
		return 0;
	for (i = 0; i < n && n <= RINGCAP_PERSIST_NAME_MAX; i++)
		if (!isalnum((unsigned char)v[i]) && !strchr("._-", v[i]))
			break;
	if (n > RINGCAP_PERSIST_NAME_MAX || i < n) {
		snprintf(ebuf, PCAP_ERRBUF_SIZE,
			 "ringcap: RINGCAP_PERSIST=\"%.40s\": expected 1..%d characters of A-Z a-z 0-9 . _ -",
			 v, RINGCAP_PERSIST_NAME_MAX);
		return -1;
	}
	memcpy(req->persist, v, n + 1);
	return 0;
}

/*
 * RINGCAP_CUTOFF=BYTES, decimal with an optional k or M (binary, as the
 * tools' sizes), 1..RINGCAP_FLOW_CUTOFF_MAX; 0 when unset.
 */
static int rc_pcap_env_cutoff(struct rc_pcap_req *req, char *ebuf)
{
	const char *v = getenv("RINGCAP_CUTOFF");
	unsigned long long val;
	unsigned int shift = 0;
	char *end;

	req->cutoff = 0;
	if (!v || !*v)
		return 0;
	errno = 0;
	val = strtoull(v, &end, 10);
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	if (errno || *end || v[0] < '0' || v[0] > '9' || !val ||
	    val > RINGCAP_FLOW_CUTOFF_MAX >> shift) {
		snprintf(ebuf, PCAP_ERRBUF_SIZE,
			 "ringcap: RINGCAP_CUTOFF=\"%.40s\": expected bytes per flow, 1..%u (k or M suffix allowed)",
			 v, RINGCAP_FLOW_CUTOFF_MAX);
		return -1;
	}
	req->cutoff = (uint32_t)(val << shift);
	return 0;
}

/*
 * What zero-copy cannot do, said before anything is opened: the kernel's
 * refusal at bind (EINVAL) would not name the variable to change.
 */
static int rc_pcap_check_zerocopy(const struct rc_pcap_req *req,
				  const char *device, char *ebuf)
{
	if (!req->zerocopy)
		return 0;
	if (req->queue < 0) {
		snprintf(ebuf, PCAP_ERRBUF_SIZE,
			 "ringcap: RINGCAP_ZEROCOPY=1 needs one RX queue, but %s names all of them; name the device as %s@Q or set RINGCAP_QUEUE=Q",
			 device, req->ifname);
		return -1;
	}
	if (req->cluster_id) {
		snprintf(ebuf, PCAP_ERRBUF_SIZE,
			 "ringcap: RINGCAP_ZEROCOPY=1 and RINGCAP_CLUSTER do not go together: a zero-copy socket has its queue to itself");
		return -1;
	}
	return 0;
}

static int rc_pcap_module_loaded(void)
{
	return !access(RC_PCAP_MODULE, F_OK);
}

/*
 * Only devices whose frames start with an Ethernet header are taken
 * implicitly: the ring carries no link-layer type, and DLT_EN10MB would be
 * wrong for anything else (ARPHRD_ETHER = 1, ARPHRD_LOOPBACK = 772).
 */
static int rc_pcap_is_ether(const char *ifname)
{
	char path[64 + IFNAMSIZ], buf[16];
	FILE *f;
	int type = -1;

	snprintf(path, sizeof(path), "/sys/class/net/%s/type", ifname);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		type = atoi(buf);
	fclose(f);
	return type == 1 || type == 772;
}

static int rc_pcap_fail(pcap_t *p, int ret, const char *fmt, const char *arg)
{
	snprintf(p->errbuf, PCAP_ERRBUF_SIZE, fmt, arg);
	return ret;
}

/*
 * Re-insert a tag the NIC stripped, so the application sees the frame as
 * it was on the wire (as libpcap's Linux capture does).
 */
static const u_char *rc_pcap_vlan_frame(pcap_t *p,
					const struct ringcap_rec *rec,
					const uint8_t *data,
					bpf_u_int32 *caplen)
{
	u_char *buf = p->buffer;
	uint16_t tag[2];
	bpf_u_int32 head = 2 * ETH_ALEN;

	if (*caplen < head)
		return data;
	/* The buffer holds snapshot + 4 bytes, whatever the record says. */
	if (*caplen > (bpf_u_int32)p->snapshot)
		*caplen = p->snapshot;
	tag[0] = rec->vlan_proto ? rec->vlan_proto : htons(ETH_P_8021Q);
	tag[1] = htons(rec->vlan_tci);
	memcpy(buf, data, head);
	memcpy(buf + head, tag, RC_PCAP_VLAN_LEN);
	memcpy(buf + head + RC_PCAP_VLAN_LEN, data + head, *caplen - head);
	*caplen += RC_PCAP_VLAN_LEN;
	if (*caplen > (bpf_u_int32)p->snapshot)
		*caplen = p->snapshot;
	return buf;
}

/* 1: a frame is ready, 0: nothing (timeout or breakloop), -1: error. */
static int rc_pcap_wait(pcap_t *p, struct pcap_ringcap *prc)
{
	struct pollfd pfd[2] = {
		{ .fd = rcap_fd(prc->rc), .events = POLLIN },
		{ .fd = prc->wake_fd, .events = POLLIN },
	};
	uint64_t n;
	int ret;

	ret = poll(pfd, 2, prc->poll_ms);
	if (ret < 0) {
		if (errno == EINTR)
			return 0;
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno,
					  "ringcap: poll");
		return -1;
	}
	if (pfd[1].revents & POLLIN) {
		/* Consume the wake-up; break_loop is checked by the caller. */
		if (read(prc->wake_fd, &n, sizeof(n)) < 0)
			n = 0;
		return 0;
	}
	/*
	 * libringcap decodes what this poll() said (POLLERR: the device
	 * went away, ...) without polling again: one poll per wake-up.
	 */
	ret = rcap_poll_result(prc->rc, pfd[0].revents);
	if (ret < 0) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "ringcap: %s",
			 rcap_errmsg(prc->rc));
		return -1;
	}
	return ret;
}

/*
 * Hand one frame to the callback, after the user-space filter where one is
 * needed. 1 if delivered, 0 if filtered out.
 */
static int rc_pcap_deliver(pcap_t *p, struct pcap_ringcap *prc,
			   const struct ringcap_pkt *pkt, pcap_handler cb,
			   u_char *user)
{
	const struct ringcap_rec *rec = pkt->rec;
	const u_char *frame = pkt->data;
	struct pcap_pkthdr h;

	/*
	 * A persistent ring's gap records: pcap has no place for them, and
	 * ps_drop counts their frames already.
	 */
	if (rec->flags & RINGCAP_REC_GAP)
		return 0;

	h.caplen = rec->caplen;
	h.len = rec->wire_len;
	if (rec->flags & RINGCAP_REC_VLAN) {
		frame = rc_pcap_vlan_frame(p, rec, frame, &h.caplen);
		h.len += RC_PCAP_VLAN_LEN;
	}
	if (h.caplen > (bpf_u_int32)p->snapshot)
		h.caplen = p->snapshot;
	if ((prc->ufilter_always || prc->ufilter_until_empty) &&
	    p->fcode.bf_insns &&
	    !pcap_filter(p->fcode.bf_insns, frame, h.len, h.caplen))
		return 0;
	h.ts.tv_sec = rec->tstamp_ns / 1000000000ULL;
	h.ts.tv_usec = rec->tstamp_ns % 1000000000ULL;
	if (p->opt.tstamp_precision != PCAP_TSTAMP_PRECISION_NANO)
		h.ts.tv_usec /= 1000;
	cb(user, &h, frame);
	return 1;
}

static uint64_t rc_pcap_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * Once a window has passed, set N to what the window's rate brings in
 * RC_PCAP_WAKE_MS, within [wm_min, wm_max]. Called as frames are taken
 * and before the reader sleeps, so an idle window (a long sleep, then
 * the first frames of a burst) brings N back to wm_min before the burst
 * is read: a short burst is always read 64 frames at a time.
 */
static void rc_pcap_adapt(struct pcap_ringcap *prc)
{
	uint64_t now, elapsed, want;
	uint32_t n;

	if (!prc->wm_max)
		return;
	now = rc_pcap_now_ns();
	elapsed = now - prc->win_start;
	if (elapsed < RC_PCAP_WINDOW_MS * 1000000ULL)
		return;
	want = prc->win_frames * (RC_PCAP_WAKE_MS * 1000000ULL) / elapsed;
	n = want < prc->wm_min ? prc->wm_min :
	    want > prc->wm_max ? prc->wm_max : (uint32_t)want;
	prc->win_start = now;
	prc->win_frames = 0;
	if (n == prc->wm)
		return;
	/* Refused (it cannot be, in range), N stays where it was. */
	if (rcap_set_wakeup(prc->rc, n, RINGCAP_WAKEUP_KEEP))
		return;
	if (rc_pcap_env_flag("RINGCAP_DEBUG"))
		fprintf(stderr, "ringcap: %s: N=%u (was %u)\n",
			prc->req.ifname, n, prc->wm);
	prc->wm = n;
}

static int rc_pcap_read(pcap_t *p, int max, pcap_handler cb, u_char *user)
{
	struct pcap_ringcap *prc = p->priv;
	int delivered = 0, ret;

	/*
	 * "All there is" would never end under a load the reader cannot
	 * outrun; applications that use pcap_dispatch() as an event-loop
	 * step need it back now and then, as a block at a time gives it
	 * back in the Linux backend.
	 */
	if (PACKET_COUNT_IS_UNLIMITED(max))
		max = RC_PCAP_UNLIMITED;
	for (;;) {
		if (p->break_loop) {
			p->break_loop = 0;
			return PCAP_ERROR_BREAK;
		}
		if (prc->next == prc->count) {
			/*
			 * The whole batch was handed out: give its space
			 * back before taking the next one. Frames stay in
			 * the ring until then, and the callback reads them
			 * in place.
			 */
			rcap_release(prc->rc);
			prc->next = prc->count = 0;
			ret = rcap_recv_batch(prc->rc, prc->pkts,
						 RC_PCAP_BATCH);
			if (ret < 0) {
				snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
					 "ringcap: %s",
					 rcap_errmsg(prc->rc));
				return PCAP_ERROR;
			}
			prc->count = ret;
			prc->win_frames += (uint64_t)ret;
			rc_pcap_adapt(prc);
		}
		if (!prc->count) {
			prc->ufilter_until_empty = 0;
			if (delivered || prc->nonblock)
				return delivered;
			ret = rc_pcap_wait(p, prc);
			if (ret < 0)
				return PCAP_ERROR;
			if (!ret && !p->break_loop)
				return 0;	/* the pcap timeout expired */
			continue;
		}
		/*
		 * A count or breakloop may stop us inside a batch; the rest
		 * stays in pkts[] (still unreleased) for the next call.
		 */
		while (prc->next < prc->count) {
			/*
			 * A persistent ring gives each frame back as the next
			 * is handed out (pcap_next_ex()'s data stays valid
			 * until the next call): a restart after a crash then
			 * reads again at most the frame the application held.
			 */
			if (prc->req.persist[0])
				rcap_release_before(prc->rc,
						    &prc->pkts[prc->next]);
			delivered += rc_pcap_deliver(p, prc,
						     &prc->pkts[prc->next++],
						     cb, user);
			if (delivered >= max)
				return delivered;
			if (p->break_loop)
				break;
		}
		if (p->break_loop && delivered)
			return delivered;
	}
}

/* Milliseconds left until deadline_ns (CLOCK_MONOTONIC), at least 0. */
static int rc_pcap_ms_left(uint64_t deadline_ns)
{
	uint64_t now = rc_pcap_now_ns();

	return now >= deadline_ns ? 0 :
	       (int)((deadline_ns - now + 999999) / 1000000);
}

/*
 * The kernel took the frame from the ring but did not send it: say why,
 * from how its counters moved since they were last read (every refusal
 * on this socket is an inject's, and each reads them).
 */
static int rc_pcap_refused(pcap_t *p, struct pcap_ringcap *prc, int size)
{
	struct ringcap_tx_stats st;

	if (rcap_tx_stats(prc->tx, &st)) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
			 "ringcap: %s did not send the %d-byte frame (%s)",
			 prc->req.ifname, size, rcap_errmsg(prc->tx));
		return PCAP_ERROR;
	}
	if (st.refused_len != prc->tx_st.refused_len)
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
			 "ringcap: %s refused the %d-byte frame as too short or too long for it",
			 prc->req.ifname, size);
	else
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
			 "ringcap: %s is down or has no carrier: the %d-byte frame was not sent",
			 prc->req.ifname, size);
	prc->tx_st = st;
	return PCAP_ERROR;
}

/*
 * pcap_inject() is synchronous: the frame goes into the transmit ring
 * and the kernel is kicked at once, and the call returns once the
 * kernel is done with it. Where the ring is full, or the device's queue
 * is, libringcap's rcap_tx_wait() kicks again at short intervals (a
 * full device queue wakes no poll()), for RC_PCAP_TX_PATIENCE_MS at
 * most.
 */
/*
 * The transmit-only socket: bound to the capture's device and queue, it
 * captures nothing (its receive ring is the smallest there is) and has
 * the transmit ring. Opened by the first inject, not at activation:
 * dumpcap and tcpdump never send, and a ring for each of them would
 * only be memory charged for nothing. 0, or PCAP_ERROR saying why.
 */
static int rc_pcap_tx_open(pcap_t *p, struct pcap_ringcap *prc)
{
	struct ringcap *tx;
	int err;

	tx = rcap_open();
	if (!tx) {
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno,
					  "ringcap: cannot send on %s: socket",
					  prc->req.ifname);
		return PCAP_ERROR;
	}
	if (rcap_set_capture(tx, 0) ||
	    rcap_set_ring_size(tx, RINGCAP_RING_SIZE_MIN) ||
	    rcap_set_tx_ring(tx, RC_PCAP_TX_RING) ||
	    rcap_bind(tx, prc->req.ifname, prc->req.queue) ||
	    rcap_map(tx)) {
		err = errno;
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
			 "ringcap: cannot send on %s: %s%s", prc->req.ifname,
			 err == ENOPROTOOPT ?
			 "the loaded ringcap module has no transmit ring" :
			 rcap_errmsg(tx),
			 err == ENOMEM || err == ENOBUFS ?
			 " (for the 256 KiB transmit ring)" : "");
		rcap_close(tx);
		return PCAP_ERROR;
	}
	prc->tx = tx;
	if (rc_pcap_env_flag("RINGCAP_DEBUG"))
		fprintf(stderr, "ringcap: %s: transmit socket opened, tx_ring=%u\n",
			prc->req.ifname, rcap_tx_hdr(tx)->data_size);
	return 0;
}

static int rc_pcap_inject(pcap_t *p, const void *buf, int size)
{
	struct pcap_ringcap *prc = p->priv;
	const struct ringcap_tx_hdr *hdr;
	uint64_t refused, deadline;
	uint32_t max;
	int ret;

	if (!prc->tx && rc_pcap_tx_open(p, prc))
		return PCAP_ERROR;
	hdr = rcap_tx_hdr(prc->tx);
	max = rcap_tx_frame_max(prc->tx);
	/* Said here in libpcap's terms (an int), before libringcap would. */
	if (size < ETH_HLEN || (uint32_t)size > max) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
			 "ringcap: cannot send a frame of %d bytes on %s: it takes %d to %u bytes (its MTU plus an Ethernet and a VLAN header)",
			 size, prc->req.ifname, ETH_HLEN, max);
		return PCAP_ERROR;
	}
	deadline = rc_pcap_now_ns() + RC_PCAP_TX_PATIENCE_MS * 1000000ULL;
	while (rcap_tx_put(prc->tx, buf, (uint32_t)size)) {
		if (errno != EAGAIN)
			goto fail;
		if (!rc_pcap_ms_left(deadline)) {
			snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
				 "ringcap: cannot send on %s: its transmit ring stayed full for %d ms (the device is not sending)",
				 prc->req.ifname, RC_PCAP_TX_PATIENCE_MS);
			return PCAP_ERROR;
		}
		if (rcap_tx_wait(prc->tx, rc_pcap_ms_left(deadline)) < 0 &&
		    errno != EINTR)
			goto fail;
	}
	/* The kernel's mirror; it moves only in a kick of ours. */
	refused = __atomic_load_n(&hdr->refused, __ATOMIC_ACQUIRE);
	while ((ret = rcap_tx_flush(prc->tx)) == 1) {
		if (!rc_pcap_ms_left(deadline)) {
			/*
			 * Published, it cannot be taken back: the next
			 * kick sends it. Sending it again would send it
			 * twice.
			 */
			snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
				 "ringcap: %s's transmit queue stayed full for %d ms: the frame waits in the transmit ring and goes out with the next pcap_inject() (do not send it again)",
				 prc->req.ifname, RC_PCAP_TX_PATIENCE_MS);
			return PCAP_ERROR;
		}
		if (rcap_tx_wait(prc->tx, rc_pcap_ms_left(deadline)) < 0 &&
		    errno != EINTR)
			goto fail;
	}
	if (ret < 0)
		goto fail;
	if (__atomic_load_n(&hdr->refused, __ATOMIC_ACQUIRE) != refused)
		return rc_pcap_refused(p, prc, size);
	return size;
fail:
	snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "ringcap: %s",
		 rcap_errmsg(prc->tx));
	return PCAP_ERROR;
}

static int rc_pcap_setfilter(pcap_t *p, struct bpf_program *fp)
{
	struct pcap_ringcap *prc = p->priv;
	struct sock_fprog prog;

	/* Keep a copy: the user-space path and the stale frames need it. */
	if (install_bpf_program(p, fp) < 0)
		return PCAP_ERROR;
	prog.len = p->fcode.bf_len;
	prog.filter = (struct sock_filter *)p->fcode.bf_insns;
	if (!rcap_set_filter(prc->rc, &prog)) {
		prc->ufilter_always = 0;
		prc->ufilter_until_empty = 1;
		return 0;
	}
	/*
	 * A program the kernel refuses (too long, say) is still a valid
	 * filter: run it here, and take the old kernel filter off so it
	 * does not hide frames the new one wants.
	 */
	rcap_clear_filter(prc->rc);
	prc->ufilter_always = 1;
	if (rc_pcap_env_flag("RINGCAP_DEBUG"))
		fprintf(stderr, "ringcap: %s: filtering in user space (%s)\n",
			prc->req.ifname, rcap_errmsg(prc->rc));
	return 0;
}

static int rc_pcap_setdirection(pcap_t *p, pcap_direction_t d)
{
	if (d == PCAP_D_OUT) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
			 "ringcap captures received frames only; PCAP_D_OUT is not supported");
		return PCAP_ERROR;
	}
	p->direction = d;
	return 0;
}

static int rc_pcap_getnonblock(pcap_t *p)
{
	struct pcap_ringcap *prc = p->priv;

	return prc->nonblock;
}

static int rc_pcap_setnonblock(pcap_t *p, int nonblock)
{
	struct pcap_ringcap *prc = p->priv;

	prc->nonblock = !!nonblock;
	return 0;
}

static int rc_pcap_stats(pcap_t *p, struct pcap_stat *ps)
{
	struct pcap_ringcap *prc = p->priv;
	struct ringcap_stats st;

	if (rcap_stats_sized(prc->rc, &st, sizeof(st))) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "ringcap: %s",
			 rcap_errmsg(prc->rc));
		return PCAP_ERROR;
	}
	/* u_int counters, as everywhere in libpcap: they wrap. */
	ps->ps_recv = (u_int)(st.received + st.dropped + st.cutoff);
	ps->ps_drop = (u_int)st.dropped;
	ps->ps_ifdrop = (u_int)st.nic_dropped;
	return 0;
}

static void rc_pcap_breakloop(pcap_t *p)
{
	struct pcap_ringcap *prc = p->priv;
	uint64_t one = 1;

	pcap_breakloop_common(p);
	/* A reader asleep in poll() wakes and sees break_loop. */
	if (prc->wake_fd >= 0 && write(prc->wake_fd, &one, sizeof(one)) < 0)
		return;
}

static void rc_pcap_cleanup(pcap_t *p)
{
	struct pcap_ringcap *prc = p->priv;

	if (prc->wake_fd >= 0)
		close(prc->wake_fd);
	prc->wake_fd = -1;
	if (prc->tx)
		rcap_close(prc->tx);
	prc->tx = NULL;
	/* rcap_close() owns the socket: keep the common code off it. */
	rcap_close(prc->rc);
	prc->rc = NULL;
	p->fd = -1;
	p->selectable_fd = -1;
	pcap_cleanup_live_common(p);
}

/* Round up to a power of two, the only ring sizes the module accepts. */
static uint32_t rc_pcap_pow2(unsigned long v)
{
	uint32_t r = RINGCAP_RING_SIZE_MIN;

	while (r < v && r < RINGCAP_RING_SIZE_MAX)
		r <<= 1;
	return r;
}

/* The module's max_ring_mem, or 0 if it cannot be read. */
static unsigned long rc_pcap_max_ring(void)
{
	char buf[32];
	FILE *f;
	unsigned long v = 0;

	f = fopen(RC_PCAP_MODULE "/parameters/max_ring_mem", "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		v = strtoul(buf, NULL, 10);
	fclose(f);
	return v;
}

static int rc_pcap_setup(pcap_t *p, struct pcap_ringcap *prc)
{
	struct ringcap *rc = prc->rc;
	unsigned long ring, wm, max;
	uint32_t snap, m, size, n;
	char adaptive[48];
	socklen_t len;

	ring = rc_pcap_env_num("RINGCAP_RING_SIZE", 0);
	if (!ring && p->opt.buffer_size) {
		/*
		 * The application's buffer size is a hint (tcpdump -B): cap
		 * it at what the module allows rather than fail, as the
		 * Linux backend does with its own limits.
		 */
		ring = rc_pcap_pow2(p->opt.buffer_size);
		max = rc_pcap_max_ring();
		while (max && ring > max && ring > RINGCAP_RING_SIZE_MIN)
			ring >>= 1;
	}
	if (ring && rcap_set_ring_size(rc, rc_pcap_pow2(ring)))
		return -1;
	/* The module refuses a snaplen whose records its ring cannot hold. */
	if (rcap_get_ring_size(rc, &size))
		return -1;
	snap = RINGCAP_SNAPLEN_FOR_RING(size);
	if (p->snapshot > 0 && (uint32_t)p->snapshot < snap)
		snap = p->snapshot;
	if (rcap_set_snaplen(rc, snap) ||
	    rcap_set_promisc(rc, p->opt.promisc))
		return -1;
	prc->wm_max = 0;
	if (p->opt.immediate) {
		wm = 1;
		m = RINGCAP_WAKEUP_KEEP;
	} else {
		wm = rc_pcap_env_num("RINGCAP_WATERMARK", 0);
		if (!wm) {
			/* Adaptive: from the floor, up to a quarter ring. */
			prc->wm_max = rcap_batch_watermark(size, snap);
			prc->wm_min = prc->wm_max < RC_PCAP_WM_FLOOR ?
				      prc->wm_max : RC_PCAP_WM_FLOOR;
			wm = prc->wm_min;
		}
		/*
		 * A frame may wait at most T ms; past the module's longest
		 * timeout it waits less, which keeps that promise (the
		 * module would refuse the larger value).
		 */
		m = RINGCAP_WAKEUP_KEEP;
		if (p->opt.timeout > 0)
			m = (uint32_t)p->opt.timeout <
			    RINGCAP_TIMEOUT_US_MAX / 1000 ?
			    (uint32_t)p->opt.timeout * 1000 :
			    RINGCAP_TIMEOUT_US_MAX;
	}
	if (rcap_set_wakeup(rc, wm, m))
		return -1;
	/* The module takes members, and zero-copy, only before bind. */
	if (prc->req.cluster_id &&
	    rcap_set_cluster(rc, prc->req.cluster_id,
				prc->req.cluster_policy))
		return -1;
	if (prc->req.zerocopy && rcap_set_zerocopy(rc, 1))
		return -1;
	if (prc->req.persist[0] && rcap_set_persist(rc, prc->req.persist))
		return -1;
	if (prc->req.cutoff && rcap_set_cutoff(rc, prc->req.cutoff))
		return -1;
	if (rcap_bind(rc, prc->req.ifname, prc->req.queue) ||
	    rcap_map(rc))
		return -1;
	/*
	 * rcap_map() may have lowered N for zero-copy: ask, and keep an
	 * adaptive N within what it allows.
	 */
	len = sizeof(n);
	if (!getsockopt(rcap_fd(rc), SOL_RINGCAP, RINGCAP_WATERMARK, &n,
			&len) && n < wm) {
		wm = n;
		if (prc->wm_max)
			prc->wm_max = prc->wm_min = n;
	}
	prc->wm = (uint32_t)wm;
	prc->win_start = rc_pcap_now_ns();
	prc->win_frames = 0;
	if (rc_pcap_env_flag("RINGCAP_DEBUG")) {
		adaptive[0] = 0;
		if (prc->wm_max)
			snprintf(adaptive, sizeof(adaptive),
				 " (adaptive, %u to %u)", prc->wm_min,
				 prc->wm_max);
		fprintf(stderr,
			"ringcap: %s queue %d cluster %u:%s: N=%lu%s m=%s%u us ring=%u snaplen=%u zerocopy=%s tx_ring=0 (opened by the first inject)\n",
			prc->req.ifname, prc->req.queue, prc->req.cluster_id,
			prc->req.cluster_id ?
			rcap_cluster_policy_name(prc->req.cluster_policy) :
			"-", wm, adaptive,
			m == RINGCAP_WAKEUP_KEEP ? "default/" : "",
			m == RINGCAP_WAKEUP_KEEP ? 0 : m,
			rcap_hdr(rc)->data_size, snap,
			prc->req.zerocopy ? "yes" : "no");
	}
	return 0;
}

/*
 * Why activation failed. A ring that did not fit names the limit that
 * refused it, how to raise that, and the knobs that ask for less.
 */
static void rc_pcap_setup_error(pcap_t *p, struct pcap_ringcap *prc, int err)
{
	uint32_t size = 0;

	if ((err != ENOMEM && err != ENOBUFS) ||
	    rcap_get_ring_size(prc->rc, &size)) {
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE, "ringcap: %s",
			 rcap_errmsg(prc->rc));
		return;
	}
	if (err == ENOMEM)
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
			 "ringcap: %s: no memory for a %u KiB ring under the memory cgroup's limit: raise memory.max of the capture's cgroup (systemd: MemoryMax=), or ask for a smaller ring (RINGCAP_RING_SIZE, tcpdump -B)",
			 prc->req.ifname, size >> 10);
	else
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
			 "ringcap: %s: a %u KiB ring is past RLIMIT_MEMLOCK, which this ringcap module charges: raise it (ulimit -l, LimitMEMLOCK=) or grant CAP_IPC_LOCK, or ask for a smaller ring (RINGCAP_RING_SIZE, tcpdump -B)",
			 prc->req.ifname, size >> 10);
}

static int rc_pcap_activate(pcap_t *p)
{
	struct pcap_ringcap *prc = p->priv;
	int err;

	if (p->opt.rfmon)
		return PCAP_ERROR_RFMON_NOTSUP;
	/*
	 * Only a name form or a variable gets here while these hold (the
	 * claim takes plain names only when ringcap can serve them): say
	 * which one asked, and how to get the normal capture instead.
	 */
	if (rc_pcap_env_flag("RINGCAP_DISABLE")) {
		if (prc->req.by_name)
			return rc_pcap_fail(p, PCAP_ERROR,
					    "ringcap: %s names a ringcap capture, but RINGCAP_DISABLE is set",
					    p->opt.device);
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
			 "ringcap: %s asks for a ringcap capture of %s, but RINGCAP_DISABLE is set",
			 prc->req.by_env, prc->req.ifname);
		return PCAP_ERROR;
	}
	if (!rc_pcap_module_loaded()) {
		if (prc->req.by_name)
			return rc_pcap_fail(p, PCAP_ERROR,
					    "ringcap: the ringcap module is not loaded (no /sys/module/ringcap), so %s cannot be captured through it; name the device without \"ringcap:\" or \"@queue\" for the normal Linux capture",
					    p->opt.device);
		snprintf(p->errbuf, PCAP_ERRBUF_SIZE,
			 "ringcap: the ringcap module is not loaded (no /sys/module/ringcap), so %s cannot be captured through it as %s asks; unset %.*s for the normal Linux capture",
			 prc->req.ifname, prc->req.by_env,
			 (int)strcspn(prc->req.by_env, "="), prc->req.by_env);
		return PCAP_ERROR;
	}
	if (!strcmp(prc->req.ifname, "any"))
		return rc_pcap_fail(p, PCAP_ERROR_NO_SUCH_DEVICE,
				    "ringcap: %s: a ringcap socket captures one device, not all of them",
				    p->opt.device);
	if (!if_nametoindex(prc->req.ifname))
		return rc_pcap_fail(p, PCAP_ERROR_NO_SUCH_DEVICE,
				    "ringcap: no such device: %s", prc->req.ifname);

	p->snapshot = pcap_adjust_snapshot(DLT_EN10MB, p->snapshot);
	prc->rc = rcap_open();
	if (!prc->rc) {
		err = errno;
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, err,
					  "ringcap: socket");
		return err == EPERM || err == EACCES ?
		       PCAP_ERROR_PERM_DENIED : PCAP_ERROR;
	}
	prc->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (prc->wake_fd < 0) {
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno,
					  "ringcap: eventfd");
		goto fail;
	}
	if (rc_pcap_setup(p, prc)) {
		err = errno;
		rc_pcap_setup_error(p, prc, err);
		rc_pcap_cleanup(p);
		if (err == ENODEV)
			return PCAP_ERROR_NO_SUCH_DEVICE;
		if (err == EPERM || err == EACCES)
			return PCAP_ERROR_PERM_DENIED;
		return PCAP_ERROR;
	}

	/* Room for a frame with a re-inserted VLAN tag. */
	p->bufsize = p->snapshot + RC_PCAP_VLAN_LEN;
	p->buffer = malloc(p->bufsize);
	if (!p->buffer) {
		pcap_fmt_errmsg_for_errno(p->errbuf, PCAP_ERRBUF_SIZE, errno,
					  "ringcap: buffer");
		goto fail;
	}
	p->linktype = DLT_EN10MB;
	p->fd = rcap_fd(prc->rc);
	p->selectable_fd = p->fd;
	prc->nonblock = p->opt.nonblock;
	prc->poll_ms = p->opt.timeout > 0 ? p->opt.timeout : -1;

	p->read_op = rc_pcap_read;
	p->inject_op = rc_pcap_inject;
	p->setfilter_op = rc_pcap_setfilter;
	p->setdirection_op = rc_pcap_setdirection;
	p->set_datalink_op = NULL;	/* one link type only */
	p->getnonblock_op = rc_pcap_getnonblock;
	p->setnonblock_op = rc_pcap_setnonblock;
	p->stats_op = rc_pcap_stats;
	p->breakloop_op = rc_pcap_breakloop;
	p->cleanup_op = rc_pcap_cleanup;
	return 0;
fail:
	rc_pcap_cleanup(p);
	return PCAP_ERROR;
}

/*
 * Decide whether device is ours: 1 yes, 0 no, -1 yes but the environment
 * is malformed (the reason in ebuf). Names with "ringcap:" or "@queue",
 * and every name while RINGCAP_REQUIRE, RINGCAP_QUEUE, RINGCAP_CLUSTER
 * or RINGCAP_ZEROCOPY is set, always are: an error at activation (or,
 * for zero-copy without a queue, at creation) is better than AF_PACKET
 * failing on a name it does not know, or capturing without the queue or
 * cluster asked for. A plain name otherwise only when ringcap can serve
 * it.
 */
static int rc_pcap_claim(const char *device, struct rc_pcap_req *req,
			 char *ebuf)
{
	const char *name = device;
	int envq;

	memset(req, 0, sizeof(*req));
	if (!strncmp(name, RC_PCAP_PREFIX, strlen(RC_PCAP_PREFIX))) {
		name += strlen(RC_PCAP_PREFIX);
		req->by_name = 1;
	}
	if (rcap_parse_spec(name, req->ifname, IFNAMSIZ, &req->queue))
		return 0;
	if (req->queue >= 0 || strchr(name, '@'))
		req->by_name = 1;
	if (rc_pcap_env_queue(&envq, ebuf) || rc_pcap_env_cluster(req, ebuf) ||
	    rc_pcap_env_zerocopy(req, ebuf) || rc_pcap_env_persist(req, ebuf) ||
	    rc_pcap_env_cutoff(req, ebuf))
		return -1;
	if (envq >= 0) {
		if (req->queue >= 0 && req->queue != envq) {
			snprintf(ebuf, PCAP_ERRBUF_SIZE,
				 "ringcap: RINGCAP_QUEUE=%d conflicts with the queue in the device name %s; give the queue in one place",
				 envq, device);
			return -1;
		}
		req->queue = envq;
	}
	/*
	 * Zero-copy needs a queue, and a queue already claims the name for
	 * ringcap, so it never falls back to AF_PACKET.
	 */
	if (rc_pcap_check_zerocopy(req, device, ebuf))
		return -1;
	if (rc_pcap_env_flag("RINGCAP_REQUIRE"))
		snprintf(req->by_env, sizeof(req->by_env),
			 "RINGCAP_REQUIRE=%.40s", getenv("RINGCAP_REQUIRE"));
	else if (envq >= 0)
		snprintf(req->by_env, sizeof(req->by_env), "RINGCAP_QUEUE=%d",
			 envq);
	else if (req->cluster_id)
		snprintf(req->by_env, sizeof(req->by_env),
			 "RINGCAP_CLUSTER=%.40s", getenv("RINGCAP_CLUSTER"));
	else if (req->persist[0])
		snprintf(req->by_env, sizeof(req->by_env),
			 "RINGCAP_PERSIST=%s", req->persist);
	else if (req->cutoff)
		snprintf(req->by_env, sizeof(req->by_env),
			 "RINGCAP_CUTOFF=%.40s", getenv("RINGCAP_CUTOFF"));
	if (req->by_name || req->by_env[0])
		return 1;
	if (!strcmp(req->ifname, "any") ||
	    rc_pcap_env_flag("RINGCAP_DISABLE") || !rc_pcap_module_loaded())
		return 0;
	return rc_pcap_is_ether(req->ifname);
}

pcap_t *ringcap_pcap_create(const char *device, char *ebuf, int *is_ours)
{
	struct pcap_ringcap *prc;
	struct rc_pcap_req req;
	pcap_t *p;
	int ret;

	ret = rc_pcap_claim(device, &req, ebuf);
	*is_ours = ret != 0;
	/* Ours but malformed: pcap_create() fails with ebuf. */
	if (ret <= 0)
		return NULL;
	p = PCAP_CREATE_COMMON(ebuf, struct pcap_ringcap);
	if (!p)
		return NULL;
	prc = p->priv;
	prc->req = req;
	prc->wake_fd = -1;
	p->activate_op = rc_pcap_activate;

	p->tstamp_precision_list = malloc(2 * sizeof(u_int));
	if (!p->tstamp_precision_list) {
		pcap_fmt_errmsg_for_errno(ebuf, PCAP_ERRBUF_SIZE, errno,
					  "malloc");
		pcap_close(p);
		return NULL;
	}
	p->tstamp_precision_list[0] = PCAP_TSTAMP_PRECISION_MICRO;
	p->tstamp_precision_list[1] = PCAP_TSTAMP_PRECISION_NANO;
	p->tstamp_precision_count = 2;
	return p;
}

/*
 * The platform code already lists every interface, and eth0 captures
 * through ringcap under its own name: adding entries would only make
 * duplicates.
 */
int ringcap_pcap_findalldevs(pcap_if_list_t *devlistp, char *ebuf)
{
	(void)devlistp;
	(void)ebuf;
	return 0;
}
