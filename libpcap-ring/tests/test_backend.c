// SPDX-License-Identifier: GPL-2.0
/*
 * test_backend: the ringcap capture source on a host without the module.
 * libpcap's objects from the patched tree and pcap-ringcap.c are linked
 * with libringcap's real reader and error reporting (libringcap.a) over
 * a ring in ordinary memory (userland/tests/fake_ring.c); the calls that
 * need the kernel (open, options, bind, map, filter, stats) are replaced
 * below and record what the backend asked for. poll(), getsockopt(),
 * setsockopt() and sendto() are wrapped: the wrappers count poll()
 * calls, play the ring socket's part (frames arriving during a sleep, a
 * device that goes away, joining a cluster, the kick of the transmit
 * ring that pcap_inject() writes through libringcap's real transmit
 * side, the ring's counters) and pass everything else to the real call.
 * Run it in a private mount namespace with a fake /sys/module/ringcap
 * (make -C libpcap-ring check does). TAP output.
 */
#include <errno.h>
#include <pthread.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <pcap/pcap.h>
#include "fake_ring.h"
#include "tap.h"

static struct fake_ring fr;
static int fake_ready;
/*
 * The socket's transmit ring, 4 KiB whatever was asked for (the fake
 * kernel's geometry): small, so that a test fills it with three frames.
 */
#define FAKE_TX_SIZE	4096
static struct fake_tx ftx;
static int ftx_ready;
static struct {
	uint32_t ring_size, snaplen, watermark, timeout_us;
	int promisc, queue, filter_refuse, filter_attached;
	char ifname[32];
	struct ringcap_stats st;
	int binds;		/* rcap_bind() calls */
	/* The last RINGCAP_CLUSTER setsockopt, and binds before it. */
	struct ringcap_cluster cl;
	int cl_binds;
	int cl_errno;		/* refuse the next join with this */
	int zerocopy;		/* rcap_set_zerocopy() asked for it */
	char persist[40];	/* rcap_set_persist()'s name */
	uint32_t cutoff;	/* rcap_set_cutoff()'s bytes */
	int zc_binds;		/* binds before it */
	int bind_errno;		/* refuse the next bind with this */
	uint32_t tx_ring;	/* RINGCAP_TX_RING_SIZE asked for */
	int tx_binds;		/* binds before it */
	int tx_errno;		/* refuse the next RINGCAP_TX_RING_SIZE */
	int tx_nobufs;		/* refuse the next bind with a transmit ring */
	int capture_off;	/* rcap_set_capture(rc, 0) on the last socket */
	int wm_sets;		/* rcap_set_wakeup() calls */
	int kick_errno;		/* refuse the next kick with this */
} k;

/* ---- the kernel side of libringcap, faked ---- */

struct ringcap *rcap_open(void)
{
	/* One ring for the whole run; each handle starts where it is. */
	if (!fake_ready) {
		fake_ring_init(&fr, 1 << 16, 0);
		/* Never readable: blocking reads wait for timeout/breakloop. */
		fr.rc->fd = eventfd(0, EFD_CLOEXEC);
		fake_ready = 1;
	}
	fr.rc->cursor = fr.hdr->consumer;
	fr.rc->sticky_err = 0;		/* a new socket has seen no error */
	/* ... nor a transmit ring. */
	if (ftx_ready)
		fake_tx_free(&ftx);
	ftx_ready = 0;
	k.tx_ring = 0;
	k.capture_off = 0;
	fr.rc->tx_ring_size = 0;
	return fr.rc;
}

void rcap_close(struct ringcap *rc) { (void)rc; }
int rcap_fd(const struct ringcap *rc) { return rc->fd; }
const struct ringcap_ring_hdr *rcap_hdr(const struct ringcap *rc)
{
	return rc->hdr;
}
int rcap_set_ring_size(struct ringcap *rc, uint32_t v)
{
	(void)rc;
	k.ring_size = v;
	return 0;
}
int rcap_get_ring_size(struct ringcap *rc, uint32_t *v)
{
	(void)rc;
	*v = k.ring_size ? k.ring_size : 1 << 20;	/* the module default */
	return 0;
}
int rcap_set_snaplen(struct ringcap *rc, uint32_t v)
{
	(void)rc;
	k.snaplen = v;
	return 0;
}
int rcap_set_promisc(struct ringcap *rc, int on)
{
	(void)rc;
	k.promisc = on;
	return 0;
}
int rcap_set_wakeup(struct ringcap *rc, uint32_t n, uint32_t m)
{
	(void)rc;
	if (n != RINGCAP_WAKEUP_KEEP)
		k.watermark = n;
	if (m != RINGCAP_WAKEUP_KEEP)
		k.timeout_us = m;
	k.wm_sets++;
	return 0;
}
int rcap_set_filter(struct ringcap *rc, const struct sock_fprog *prog)
{
	(void)prog;
	if (k.filter_refuse)
		return rc_fail(rc, ENOMEM, "refused by the test");
	k.filter_attached = 1;
	return 0;
}
int rcap_clear_filter(struct ringcap *rc)
{
	(void)rc;
	k.filter_attached = 0;
	return 0;
}
int rcap_set_zerocopy(struct ringcap *rc, int on)
{
	(void)rc;
	k.zerocopy = on;
	k.zc_binds = k.binds;
	return 0;
}
int rcap_set_persist(struct ringcap *rc, const char *name)
{
	(void)rc;
	snprintf(k.persist, sizeof(k.persist), "%s", name);
	return 0;
}
int rcap_set_cutoff(struct ringcap *rc, uint32_t bytes)
{
	(void)rc;
	k.cutoff = bytes;
	return 0;
}
int rcap_set_capture(struct ringcap *rc, int on)
{
	(void)rc;
	k.capture_off = !on;
	return 0;
}
int rcap_set_tx_ring(struct ringcap *rc, uint32_t bytes)
{
	int err = k.tx_errno;

	if (err) {
		k.tx_errno = 0;
		return rc_fail(rc, err, "setting transmit ring size to %u: %s",
			       bytes, strerror(err));
	}
	k.tx_ring = bytes;
	k.tx_binds = k.binds;
	rc->tx_ring_size = bytes;
	return 0;
}
int rcap_bind(struct ringcap *rc, const char *ifname, int queue)
{
	int err = k.bind_errno;

	/* As the module says it past RLIMIT_MEMLOCK (libringcap's words). */
	if (k.tx_nobufs && k.tx_ring) {
		k.tx_nobufs = 0;
		return rc_fail(rc, ENOBUFS,
			       "binding to %s (all queues): %s", ifname,
			       strerror(ENOBUFS));
	}
	/* The words are libringcap's (userland/tests/test_spec.c). */
	if (err) {
		k.bind_errno = 0;
		return rc_fail(rc, err,
			       "zero-copy needs a driver that offers it (ringcap_e1000e); %s's driver does not",
			       ifname);
	}
	snprintf(k.ifname, sizeof(k.ifname), "%s", ifname);
	k.queue = queue;
	k.binds++;
	return 0;
}
static struct {
	int n;			/* frames the device sent */
	uint32_t len;		/* the last one's length, and bytes */
	uint8_t last[2048];
} txg;

static void tx_frame(void *arg, const uint8_t *f, uint32_t len)
{
	(void)arg;
	txg.n++;
	txg.len = len;
	memcpy(txg.last, f, len < sizeof(txg.last) ? len : sizeof(txg.last));
}

/* The receive ring is there already; a transmit ring if one was asked. */
int rcap_map(struct ringcap *rc)
{
	if (!k.tx_ring || ftx_ready)
		return 0;
	fake_tx_init(&ftx, FAKE_TX_SIZE, 0, 1518, rc);
	ftx.on_frame = tx_frame;
	ftx_ready = 1;
	return 0;
}
int rcap_stats(struct ringcap *rc, struct ringcap_stats *st)
{
	(void)rc;
	memcpy(st, &k.st, RINGCAP_STATS_SIZE_V1);
	return 0;
}
int rcap_stats_sized(struct ringcap *rc, struct ringcap_stats *st,
		     size_t size)
{
	(void)rc;
	memcpy(st, &k.st, size < sizeof(k.st) ? size : sizeof(k.st));
	return 0;
}
int rcap_parse_spec(const char *spec, char *ifname, size_t len, int *queue)
{
	const char *at = strrchr(spec, '@');
	size_t n = at ? (size_t)(at - spec) : strlen(spec);

	if (!n || n >= len || strchr(spec, ':') || strchr(spec, '/')) {
		errno = EINVAL;
		return -1;
	}
	memcpy(ifname, spec, n);
	ifname[n] = 0;
	*queue = at ? atoi(at + 1) : -1;
	return 0;
}

/*
 * ---- the ring socket's poll() and SO_ERROR, faked ----
 *
 * These definitions take the place of libc's for the backend and
 * libringcap.a, both linked into this program. What the module would do:
 * frames written while the reader sleeps make the socket readable; a
 * device that goes away sets sk_err to ENODEV (cleared by reading
 * SO_ERROR) and keeps POLLERR up for good.
 */
static struct {
	int calls;		/* poll() calls, whatever the fds */
	int frames;		/* written during the next poll() of the ring */
	uint32_t seq;		/* the first of them */
	int gone;		/* POLLERR on the ring from now on */
	int sk_err;		/* what SO_ERROR reads next */
} kp;

static void put(uint32_t first, int n, uint32_t len);

int poll(struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
	struct timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = timeout_ms % 1000 * 1000000L,
	};
	short ring = 0;
	nfds_t i;

	kp.calls++;
	for (i = 0; i < nfds; i++) {
		if (fds[i].fd != fr.rc->fd)
			continue;
		if (kp.frames) {
			put(kp.seq, kp.frames, 60);
			kp.frames = 0;
			ring |= POLLIN;
		}
		if (kp.gone)
			ring |= POLLERR;
	}
	if (!ring)
		return ppoll(fds, nfds, timeout_ms < 0 ? NULL : &ts, NULL);
	for (i = 0; i < nfds; i++)
		fds[i].revents = fds[i].fd == fr.rc->fd ? ring : 0;
	return 1;
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct ringcap_tx_stats st;

	if (fd == fr.rc->fd && level == SOL_SOCKET && name == SO_ERROR) {
		*(int *)val = kp.sk_err;
		*len = sizeof(int);
		kp.sk_err = 0;
		return 0;
	}
	if (fd == fr.rc->fd && level == SOL_RINGCAP &&
	    name == RINGCAP_TX_STATS) {
		if (!ftx_ready) {
			errno = ENXIO;
			return -1;
		}
		memset(&st, 0, sizeof(st));
		st.sent = ftx.sent;
		st.refused_len = ftx.refused;
		st.refused_down = ftx.refused_down;
		st.full = ftx.full;
		st.bad_producer = ftx.bad;
		st.kicks = ftx.kicks;
		memcpy(val, &st, *len < sizeof(st) ? *len : sizeof(st));
		*len = *len < sizeof(st) ? *len : sizeof(st);
		return 0;
	}
	return syscall(SYS_getsockopt, fd, level, name, val, len);
}

/* The kick: the transmit ring's consumer (fake_tx_kick()), or an error. */
ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *addr, socklen_t alen)
{
	int err;

	if (fd != fr.rc->fd)
		return syscall(SYS_sendto, fd, buf, len, flags, addr, alen);
	if (len) {
		errno = EINVAL;
		return -1;
	}
	err = k.kick_errno ? k.kick_errno : !ftx_ready ? ENXIO : 0;
	k.kick_errno = 0;
	if (!err)
		err = -fake_tx_kick(&ftx);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* libringcap's real rcap_set_cluster() ends here. */
int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	if (fd == fr.rc->fd && level == SOL_RINGCAP &&
	    name == RINGCAP_CLUSTER && len == sizeof(k.cl)) {
		if (k.cl_errno) {
			errno = k.cl_errno;
			k.cl_errno = 0;
			return -1;
		}
		memcpy(&k.cl, val, sizeof(k.cl));
		k.cl_binds = k.binds;
		return 0;
	}
	return syscall(SYS_setsockopt, fd, level, name, val, len);
}

/* ---- the tests ---- */

struct got {
	int n, bad;
	struct pcap_pkthdr last;
	const u_char *last_data;	/* where the callback found the frame */
	u_char bytes[64];
};

/* fake_ring_put frames: byte i is (seq + i), tstamp_ns is seq. */
static void cb(u_char *user, const struct pcap_pkthdr *h, const u_char *d)
{
	struct got *g = (struct got *)user;
	uint32_t seq = d[0], i;

	for (i = 0; i < h->caplen; i++)
		if (d[i] != (uint8_t)(seq + i))
			g->bad++;
	g->last = *h;
	g->last_data = d;
	memcpy(g->bytes, d, h->caplen < 64 ? h->caplen : 64);
	g->n++;
}

static void put(uint32_t first, int n, uint32_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (fake_ring_put(&fr, len, first + i))
			abort();
}

static pcap_t *open_dev(const char *dev, int nano, int immediate)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_create(dev, ebuf);

	if (!p) {
		printf("# pcap_create: %s\n", ebuf);
		exit(1);
	}
	pcap_set_snaplen(p, 262144);
	pcap_set_timeout(p, 100);
	pcap_set_immediate_mode(p, immediate);
	if (nano)
		pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	if (pcap_activate(p) < 0) {
		printf("# activate %s: %s\n", dev, pcap_geterr(p));
		exit(1);
	}
	return p;
}

/*
 * A handle with a pcap timeout, buffer size and snaplen (0: libpcap's
 * default), closed at once.
 */
static void open_close(const char *dev, int timeout_ms, int buffer_size,
		       int snaplen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_create(dev, ebuf);

	if (!p || pcap_set_timeout(p, timeout_ms) ||
	    pcap_set_buffer_size(p, buffer_size) ||
	    (snaplen && pcap_set_snaplen(p, snaplen)) || pcap_activate(p) < 0) {
		printf("# open %s: %s\n", dev, p ? pcap_geterr(p) : ebuf);
		exit(1);
	}
	pcap_close(p);
}

/*
 * Open and activate dev with the variables in env ("NAME=VALUE", NULL
 * ends; every other RINGCAP_ variable unset), then close it. 0 if it
 * opened, -1 if pcap_create() failed, -2 if pcap_activate() did; err gets
 * the message. k.ifname is cleared first: non-empty afterwards means the
 * ringcap source bound it.
 */
static const char *const rc_vars[] = {
	"RINGCAP_QUEUE", "RINGCAP_REQUIRE", "RINGCAP_CLUSTER",
	"RINGCAP_DISABLE", "RINGCAP_ZEROCOPY", "RINGCAP_PERSIST",
	"RINGCAP_CUTOFF", NULL,
};

static int try_open(const char *dev, char *err, ...)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	const char *const *v;
	const char *kv;
	va_list ap;
	pcap_t *p;
	int ret = 0;

	for (v = rc_vars; *v; v++)
		unsetenv(*v);
	va_start(ap, err);
	while ((kv = va_arg(ap, const char *)))
		putenv((char *)kv);
	va_end(ap);
	k.ifname[0] = 0;
	k.queue = -9;
	k.zerocopy = 0;
	memset(&k.cl, 0, sizeof(k.cl));
	err[0] = 0;
	p = pcap_create(dev, ebuf);
	if (!p) {
		snprintf(err, PCAP_ERRBUF_SIZE, "%s", ebuf);
		ret = -1;
	} else {
		if (pcap_activate(p) < 0) {
			snprintf(err, PCAP_ERRBUF_SIZE, "%s", pcap_geterr(p));
			ret = -2;
		}
		pcap_close(p);
	}
	for (v = rc_vars; *v; v++)
		unsetenv(*v);
	return ret;
}

/* The variables that keep the device name plain (docs/LIBPCAP.md). */
static void test_env(void)
{
	char err[PCAP_ERRBUF_SIZE];
	int ret, binds;

	ret = try_open("lo", err, "RINGCAP_QUEUE=2", NULL);
	ok(!ret && !strcmp(k.ifname, "lo") && k.queue == 2,
	  "RINGCAP_QUEUE=2 with lo binds lo queue 2 (%d %s q%d)", ret, err,
	  k.queue);
	ret = try_open("lo@2", err, "RINGCAP_QUEUE=2", NULL);
	ok(!ret && k.queue == 2, "RINGCAP_QUEUE=2 agrees with lo@2 (%d %s)",
	  ret, err);
	ret = try_open("lo@2", err, "RINGCAP_QUEUE=1", NULL);
	ok(ret == -1 && !strcmp(err,
	  "ringcap: RINGCAP_QUEUE=1 conflicts with the queue in the device name lo@2; give the queue in one place"),
	  "RINGCAP_QUEUE=1 with lo@2: pcap_create fails naming both (%s)",
	  err);
	ret = try_open("lo", err, "RINGCAP_QUEUE=x", NULL);
	ok(ret == -1 && !strcmp(err,
	  "ringcap: RINGCAP_QUEUE=\"x\": expected a queue number 0..65534"),
	  "RINGCAP_QUEUE=x: pcap_create fails naming it (%s)", err);
	ok(try_open("lo", err, "RINGCAP_QUEUE=65535", NULL) == -1 &&
	  try_open("lo", err, "RINGCAP_QUEUE=-1", NULL) == -1 &&
	  try_open("lo", err, "RINGCAP_QUEUE=1 ", NULL) == -1 &&
	  try_open("lo", err, "RINGCAP_QUEUE=99999999999999999999", NULL) == -1,
	  "RINGCAP_QUEUE 65535, -1, \"1 \", 10^20 refused");
	ret = try_open("lo", err, "RINGCAP_QUEUE=65534", NULL);
	ok(!ret && k.queue == 65534, "RINGCAP_QUEUE=65534 taken (%s)", err);
	ret = try_open("lo", err, "RINGCAP_QUEUE=", NULL);
	ok(!ret && !strcmp(k.ifname, "lo") && k.queue == -1,
	  "an empty RINGCAP_QUEUE is unset: all queues (%s)", err);

	/* Not an interface: only the ringcap source says "ringcap:". */
	ret = try_open("rcnosuch0", err, "RINGCAP_REQUIRE=1", NULL);
	ok(ret == -2 && !strcmp(err, "ringcap: no such device: rcnosuch0"),
	  "RINGCAP_REQUIRE=1 claims a name ringcap cannot serve (%s)", err);
	ret = try_open("rcnosuch0", err, "RINGCAP_REQUIRE=0", NULL);
	ok(ret == -2 && strncmp(err, "ringcap:", 8),
	  "RINGCAP_REQUIRE=0: libpcap's own capture says why (%s)", err);
	ret = try_open("any", err, "RINGCAP_REQUIRE=1", NULL);
	ok(ret == -2 && strstr(err, "captures one device"),
	  "RINGCAP_REQUIRE=1 with any: an error, not AF_PACKET (%s)", err);
	ret = try_open("lo", err, "RINGCAP_REQUIRE=1", "RINGCAP_DISABLE=1",
		       NULL);
	ok(ret == -2 && !strcmp(err,
	  "ringcap: RINGCAP_REQUIRE=1 asks for a ringcap capture of lo, but RINGCAP_DISABLE is set"),
	  "RINGCAP_REQUIRE=1 and RINGCAP_DISABLE=1: an error naming both (%s)",
	  err);
	ret = try_open("lo", err, "RINGCAP_CLUSTER=3", "RINGCAP_DISABLE=1",
		       NULL);
	ok(ret == -2 && strstr(err, "RINGCAP_CLUSTER=3 asks") &&
	  strstr(err, "RINGCAP_DISABLE"),
	  "RINGCAP_CLUSTER and RINGCAP_DISABLE: an error naming both (%s)",
	  err);

	/* The module goes away (the fake /sys/module/ringcap). */
	rmdir("/sys/module/ringcap");
	ret = try_open("lo", err, "RINGCAP_REQUIRE=1", NULL);
	ok(ret == -2 && !strcmp(err,
	  "ringcap: the ringcap module is not loaded (no /sys/module/ringcap), so lo cannot be captured through it as RINGCAP_REQUIRE=1 asks; unset RINGCAP_REQUIRE for the normal Linux capture"),
	  "module not loaded, RINGCAP_REQUIRE=1: a clear error (%s)", err);
	ret = try_open("lo", err, "RINGCAP_QUEUE=0", NULL);
	ok(ret == -2 && strstr(err, "not loaded") &&
	  strstr(err, "unset RINGCAP_QUEUE "),
	  "module not loaded, RINGCAP_QUEUE=0: an error, not AF_PACKET (%s)",
	  err);
	ret = try_open("lo", err, "RINGCAP_CLUSTER=4:rr", NULL);
	ok(ret == -2 && strstr(err, "not loaded") &&
	  strstr(err, "as RINGCAP_CLUSTER=4:rr asks"),
	  "module not loaded, RINGCAP_CLUSTER=4:rr: an error, not AF_PACKET (%s)",
	  err);
	mkdir("/sys/module/ringcap", 0755);

	binds = k.binds;
	ret = try_open("lo", err, "RINGCAP_CLUSTER=7:rr", NULL);
	ok(!ret && k.cl.id == 7 && k.cl.policy == RINGCAP_CLUSTER_RR &&
	  k.cl_binds == binds && k.binds == binds + 1,
	  "RINGCAP_CLUSTER=7:rr joins cluster 7 rr before bind (%s)", err);
	ret = try_open("lo@1", err, "RINGCAP_CLUSTER=4294967295", NULL);
	ok(!ret && k.cl.id == 4294967295u &&
	  k.cl.policy == RINGCAP_CLUSTER_FLOW && k.queue == 1,
	  "RINGCAP_CLUSTER=4294967295 with lo@1: policy flow, queue 1 (%s)",
	  err);
	ret = try_open("lo", err, "RINGCAP_CLUSTER=7:bogus", NULL);
	ok(ret == -1 && !strcmp(err,
	  "ringcap: RINGCAP_CLUSTER=\"7:bogus\": expected ID[:flow|rr|queue[+span]] or ID:flow[+span]+inner, with ID 1..4294967295"),
	  "RINGCAP_CLUSTER=7:bogus: pcap_create fails naming it (%s)", err);
	ok(try_open("lo", err, "RINGCAP_CLUSTER=0", NULL) == -1 &&
	  try_open("lo", err, "RINGCAP_CLUSTER=x", NULL) == -1 &&
	  try_open("lo", err, "RINGCAP_CLUSTER=7:", NULL) == -1 &&
	  try_open("lo", err, "RINGCAP_CLUSTER=4294967296", NULL) == -1,
	  "RINGCAP_CLUSTER 0, x, \"7:\", 2^32 refused");
	k.cl_errno = ENOPROTOOPT;
	ret = try_open("lo", err, "RINGCAP_CLUSTER=5:queue", NULL);
	ok(ret == -2 && strstr(err, "joining cluster 5:queue") &&
	  !k.ifname[0],
	  "a module that refuses the cluster: an error, never bound (%s)",
	  err);
}

/* RINGCAP_PERSIST: a name that claims the device and reaches bind. */
static void test_env_persist(void)
{
	char err[PCAP_ERRBUF_SIZE];
	int ret;

	k.persist[0] = '\0';
	ret = try_open("lo", err, "RINGCAP_PERSIST=tcpd-1.x_y", NULL);
	ok(!ret && !strcmp(k.persist, "tcpd-1.x_y") && !strcmp(k.ifname, "lo"),
	  "RINGCAP_PERSIST=tcpd-1.x_y: lo through ringcap, the name set before bind (%s)",
	  err);
	ret = try_open("lo", err, "RINGCAP_PERSIST=a b", NULL);
	ok(ret == -1 && !strcmp(err,
	  "ringcap: RINGCAP_PERSIST=\"a b\": expected 1..32 characters of A-Z a-z 0-9 . _ -"),
	  "RINGCAP_PERSIST with a space: pcap_create fails naming it (%s)", err);
	ok(try_open("lo", err,
		    "RINGCAP_PERSIST=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL) == -1,
	  "a name of 33 characters refused");
	k.persist[0] = '\0';
	ret = try_open("lo", err, "RINGCAP_PERSIST=", NULL);
	ok(!ret && !k.persist[0], "an empty RINGCAP_PERSIST is unset (%s)", err);
}

/* RINGCAP_CUTOFF: bytes with a suffix, claims the device, reaches bind. */
static void test_env_cutoff(void)
{
	char err[PCAP_ERRBUF_SIZE];
	int ret;

	k.cutoff = 0;
	ret = try_open("lo", err, "RINGCAP_CUTOFF=1500", NULL);
	ok(!ret && k.cutoff == 1500 && !strcmp(k.ifname, "lo"),
	  "RINGCAP_CUTOFF=1500: lo through ringcap, the cut-off set (%s)", err);
	ret = try_open("lo", err, "RINGCAP_CUTOFF=64k", NULL);
	ok(!ret && k.cutoff == 65536, "RINGCAP_CUTOFF=64k is 65536 (%u)",
	  k.cutoff);
	ret = try_open("lo", err, "RINGCAP_CUTOFF=2048M", NULL);
	ok(!ret && k.cutoff == 1U << 31, "2048M, the largest, taken (%u)",
	  k.cutoff);
	ret = try_open("lo", err, "RINGCAP_CUTOFF=1x", NULL);
	ok(ret == -1 && !strcmp(err,
	  "ringcap: RINGCAP_CUTOFF=\"1x\": expected bytes per flow, 1..2147483648 (k or M suffix allowed)"),
	  "RINGCAP_CUTOFF=1x: pcap_create fails naming it (%s)", err);
	ok(try_open("lo", err, "RINGCAP_CUTOFF=0", NULL) == -1 &&
	  try_open("lo", err, "RINGCAP_CUTOFF=-5", NULL) == -1 &&
	  try_open("lo", err, "RINGCAP_CUTOFF=2049M", NULL) == -1 &&
	  try_open("lo", err, "RINGCAP_CUTOFF=17592186044417M", NULL) == -1 &&
	  try_open("lo", err, "RINGCAP_CUTOFF=99999999999999999999", NULL) == -1,
	  "RINGCAP_CUTOFF 0, -5, 2049M, 2^44+1 M (2^20 when wrapped), 10^20 refused");
	k.cutoff = 9;
	ret = try_open("lo", err, "RINGCAP_CUTOFF=", NULL);
	ok(!ret && k.cutoff == 9, "an empty RINGCAP_CUTOFF is unset (%s)", err);
}

/* RINGCAP_ZEROCOPY: parsing, what it needs, and that it reaches bind. */
static void test_env_zerocopy(void)
{
	char err[PCAP_ERRBUF_SIZE];
	int ret, binds;

	binds = k.binds;
	ret = try_open("lo@1", err, "RINGCAP_ZEROCOPY=1", NULL);
	ok(!ret && k.zerocopy == 1 && k.zc_binds == binds &&
	  k.binds == binds + 1 && k.queue == 1,
	  "RINGCAP_ZEROCOPY=1 with lo@1: zero-copy set before bind, queue 1 (%s)",
	  err);
	ret = try_open("lo", err, "RINGCAP_ZEROCOPY=1", "RINGCAP_QUEUE=0",
		       NULL);
	ok(!ret && k.zerocopy == 1 && !strcmp(k.ifname, "lo") && !k.queue,
	  "RINGCAP_ZEROCOPY=1 with lo and RINGCAP_QUEUE=0: queue 0 (%s)", err);
	ret = try_open("lo", err, "RINGCAP_ZEROCOPY=1", NULL);
	ok(ret == -1 && !strcmp(err,
	  "ringcap: RINGCAP_ZEROCOPY=1 needs one RX queue, but lo names all of them; name the device as lo@Q or set RINGCAP_QUEUE=Q"),
	  "RINGCAP_ZEROCOPY=1 with lo: pcap_create fails saying why (%s)",
	  err);
	ret = try_open("ringcap:lo", err, "RINGCAP_ZEROCOPY=1", NULL);
	ok(ret == -1 && strstr(err, "but ringcap:lo names all of them") &&
	  !k.ifname[0], "... and with ringcap:lo, never bound (%s)", err);
	ret = try_open("lo@1", err, "RINGCAP_ZEROCOPY=1",
		       "RINGCAP_CLUSTER=3", NULL);
	ok(ret == -1 && !strcmp(err,
	  "ringcap: RINGCAP_ZEROCOPY=1 and RINGCAP_CLUSTER do not go together: a zero-copy socket has its queue to itself"),
	  "RINGCAP_ZEROCOPY=1 with RINGCAP_CLUSTER: pcap_create fails (%s)",
	  err);
	ret = try_open("lo@1", err, "RINGCAP_ZEROCOPY=yes", NULL);
	ok(ret == -1 && !strcmp(err,
	  "ringcap: RINGCAP_ZEROCOPY=\"yes\": expected 0 or 1"),
	  "RINGCAP_ZEROCOPY=yes: pcap_create fails naming it (%s)", err);
	ok(try_open("lo@1", err, "RINGCAP_ZEROCOPY=2", NULL) == -1 &&
	  try_open("lo@1", err, "RINGCAP_ZEROCOPY=1 ", NULL) == -1 &&
	  try_open("lo@1", err, "RINGCAP_ZEROCOPY=01", NULL) == -1 &&
	  try_open("lo", err, "RINGCAP_ZEROCOPY=true", NULL) == -1,
	  "RINGCAP_ZEROCOPY 2, \"1 \", 01, true refused");
	ret = try_open("lo", err, "RINGCAP_ZEROCOPY=0", NULL);
	ok(!ret && !k.zerocopy && k.queue == -1,
	  "RINGCAP_ZEROCOPY=0: copy mode, all queues (%s)", err);
	ret = try_open("lo@1", err, "RINGCAP_ZEROCOPY=", NULL);
	ok(!ret && !k.zerocopy && k.queue == 1,
	  "an empty RINGCAP_ZEROCOPY is unset: copy mode (%s)", err);

	/* The library's refusal reaches the application; no fallback. */
	k.bind_errno = EOPNOTSUPP;
	ret = try_open("lo@1", err, "RINGCAP_ZEROCOPY=1", NULL);
	ok(ret == -2 && !strcmp(err,
	  "ringcap: zero-copy needs a driver that offers it (ringcap_e1000e); lo's driver does not") &&
	  !k.ifname[0],
	  "a driver without zero-copy: activation fails saying so (%s)", err);
}

/*
 * Frames in the NIC's buffers reach the callback in place: the pointer it
 * gets is inside the buffer mapping, at the record's zc_offset.
 */
static void test_zerocopy_read(void)
{
	struct got g;
	pcap_t *p;
	int ret;

	/* A new socket's ring is empty: drop what earlier handles left. */
	fr.hdr->consumer = fr.hdr->producer;
	setenv("RINGCAP_ZEROCOPY", "1", 1);
	p = open_dev("lo@1", 0, 0);
	unsetenv("RINGCAP_ZEROCOPY");
	/* What rcap_map() would attach for the socket's 4 buffers. */
	fake_ring_zc(&fr, 4, 2048);
	fake_ring_put_zc(&fr, 2048, 60, 40);
	fake_ring_put_zc(&fr, 0, 100, 41);
	memset(&g, 0, sizeof(g));
	ret = pcap_dispatch(p, 1, cb, (u_char *)&g);
	ok(ret == 1 && !g.bad && g.last.caplen == 60 &&
	  g.last_data == fr.zc + 2048,
	  "zero-copy: the callback reads the frame at bufs + zc_offset (ret %d)",
	  ret);
	ret = pcap_dispatch(p, 1, cb, (u_char *)&g);
	ok(ret == 1 && !g.bad && g.last.caplen == 100 && g.last_data == fr.zc,
	  "zero-copy: and the next one in its own buffer (ret %d)", ret);
	pcap_dispatch(p, -1, cb, (u_char *)&g);
	ok(fr.hdr->consumer == fr.hdr->producer,
	  "zero-copy: the records, and so the buffers, are given back");
	pcap_close(p);
	rc_attach_zc(fr.rc, NULL, 0);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000.0 +
	       (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/*
 * pcap_inject() and pcap_sendpacket() through the transmit ring of a
 * transmit-only socket that the first inject opens (none before: a
 * capture that never sends holds no transmit ring), frames sent byte for
 * byte with a kick each, refusals by length (here and by the kernel), a
 * device down, a device queue and then a ring that stay full, a device
 * gone, and a transmit ring that cannot be had (an older module, no
 * memory, another refusal): the capture opens all the same, each inject
 * says why, and a later one tries again.
 */
static void test_inject(void)
{
	char err[PCAP_ERRBUF_SIZE];
	struct timespec t0;
	unsigned long kicks;
	uint8_t f[1600];
	int i, ret, binds;
	double ms;
	pcap_t *p;

	for (i = 0; i < (int)sizeof(f); i++)
		f[i] = (uint8_t)(i * 7 + 1);
	binds = k.binds;
	p = open_dev("ringcap:lo", 0, 0);
	ok(k.binds == binds + 1 && !k.tx_ring && !ftx_ready && !k.capture_off,
	  "inject: a capture opens with no transmit ring (%u)", k.tx_ring);
	memset(&txg, 0, sizeof(txg));
	ret = pcap_inject(p, f, 60);
	ok(k.tx_ring == 256 << 10 && k.tx_binds == binds + 1 &&
	  k.binds == binds + 2 && k.capture_off && ftx_ready &&
	  k.ring_size == RINGCAP_RING_SIZE_MIN && !strcmp(k.ifname, "lo"),
	  "the first inject opens a transmit-only socket on lo, the smallest receive ring, 256 KiB to send, asked for before its bind (%u)",
	  k.tx_ring);
	ok(ret == 60 && txg.n == 1 && txg.len == 60 && !memcmp(txg.last, f, 60) &&
	  ftx.kicks == 1,
	  "pcap_inject: 60 bytes, one kick, the device sent them byte for byte (ret %d)",
	  ret);
	ret = pcap_sendpacket(p, f + 1, 1518);
	ok(ret == 0 && txg.n == 2 && txg.len == 1518 &&
	  !memcmp(txg.last, f + 1, 1518) && ftx.kicks == 2,
	  "pcap_sendpacket: 1518 bytes (MTU 1500 + 18) sent byte for byte (ret %d)",
	  ret);
	ok(ftx.hdr->producer == ftx.hdr->completion,
	  "... each is done with when the call returns");

	kicks = ftx.kicks;
	ret = pcap_inject(p, f, 13);
	ok(ret == -1 && !strcmp(pcap_geterr(p),
	  "ringcap: cannot send a frame of 13 bytes on lo: it takes 14 to 1518 bytes (its MTU plus an Ethernet and a VLAN header)") &&
	  ftx.kicks == kicks,
	  "13 bytes: refused before the ring (%s)", pcap_geterr(p));
	ret = pcap_inject(p, f, 1519);
	ok(ret == -1 && strstr(pcap_geterr(p), "a frame of 1519 bytes on lo") &&
	  ftx.kicks == kicks, "1519 bytes: refused before the ring (%s)",
	  pcap_geterr(p));

	/*
	 * The kernel's refusals: a length past an MTU lowered since the
	 * last kick, then the device down.
	 */
	ftx.dev_max = 1000;
	ret = pcap_inject(p, f, 1200);
	ok(ret == -1 && !strcmp(pcap_geterr(p),
	  "ringcap: lo refused the 1200-byte frame as too short or too long for it") &&
	  txg.n == 2,
	  "a frame the kernel refuses by length: PCAP_ERROR saying so (%s)",
	  pcap_geterr(p));
	kicks = ftx.kicks;
	ret = pcap_inject(p, f, 1200);
	ok(ret == -1 && !strcmp(pcap_geterr(p),
	  "ringcap: cannot send a frame of 1200 bytes on lo: it takes 14 to 1000 bytes (its MTU plus an Ethernet and a VLAN header)") &&
	  ftx.kicks == kicks,
	  "... and once that kick renewed frame_max, refused before the ring (%s)",
	  pcap_geterr(p));
	ftx.dev_max = 1518;
	ftx.down = 1;
	ret = pcap_inject(p, f, 100);
	ok(ret == -1 && !strcmp(pcap_geterr(p),
	  "ringcap: lo is down or has no carrier: the 100-byte frame was not sent"),
	  "a device down: PCAP_ERROR saying so (%s)", pcap_geterr(p));
	ftx.down = 0;
	ret = pcap_inject(p, f, 100);
	ok(ret == 100 && txg.n == 3, "up again: sent (ret %d)", ret);

	/*
	 * A device queue that stays full: the frame waits in the ring. Two
	 * of 1500 bytes fill the 4 KiB ring; the third finds no room.
	 */
	ftx.budget = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = pcap_inject(p, f, 1500);
	ms = ms_since(&t0);
	ok(ret == -1 && !strcmp(pcap_geterr(p),
	  "ringcap: lo's transmit queue stayed full for 250 ms: the frame waits in the transmit ring and goes out with the next pcap_inject() (do not send it again)") &&
	  ms >= 249 && ms < 2000,
	  "a device queue full for good: PCAP_ERROR after %.0f ms, saying so (%s)",
	  ms, pcap_geterr(p));
	ret = pcap_inject(p, f + 2, 1500);
	ok(ret == -1 && strstr(pcap_geterr(p), "transmit queue stayed full"),
	  "... and again for a second frame");
	ret = pcap_inject(p, f + 3, 1500);
	ok(ret == -1 && !strcmp(pcap_geterr(p),
	  "ringcap: cannot send on lo: its transmit ring stayed full for 250 ms (the device is not sending)"),
	  "... a third finds the ring full: PCAP_ERROR saying so (%s)",
	  pcap_geterr(p));
	ftx.budget = -1;
	ret = pcap_inject(p, f + 4, 60);
	ok(ret == 60 && txg.n == 6 && txg.len == 60 &&
	  !memcmp(txg.last, f + 4, 60),
	  "the device drains: the next inject sends the two waiting frames, then its own (ret %d, %d sent)",
	  ret, txg.n);

	k.kick_errno = ENODEV;
	ret = pcap_inject(p, f, 60);
	ok(ret == -1 && !strcmp(pcap_geterr(p),
	  "ringcap: sending: the transmit device went away"),
	  "a device gone: PCAP_ERROR saying so (%s)", pcap_geterr(p));
	pcap_close(p);

	/* No transmit ring: the capture opens all the same. */
	p = open_dev("ringcap:lo", 0, 0);
	k.tx_errno = ENOPROTOOPT;
	ret = pcap_inject(p, f, 60);
	ok(ret == -1 && !ftx_ready && !strcmp(pcap_geterr(p),
	  "ringcap: cannot send on lo: the loaded ringcap module has no transmit ring"),
	  "a module without transmit rings: inject says why (%s)",
	  pcap_geterr(p));
	pcap_close(p);
	binds = k.binds;
	p = open_dev("ringcap:lo", 0, 0);
	k.tx_nobufs = 1;
	ret = pcap_inject(p, f, 60);
	ok(k.binds == binds + 1 && !ftx_ready && ret == -1 &&
	  !strcmp(pcap_geterr(p),
	  "ringcap: cannot send on lo: binding to lo (all queues): No buffer space available (for the 256 KiB transmit ring)"),
	  "no room for the transmit ring: the inject fails saying so (%s)",
	  pcap_geterr(p));
	memset(&txg, 0, sizeof(txg));
	ret = pcap_inject(p, f, 60);
	ok(ret == 60 && ftx_ready && txg.n == 1,
	  "... and the next one, with room, opens it and sends (ret %d)", ret);
	pcap_close(p);
	p = open_dev("ringcap:lo", 0, 0);
	k.tx_errno = EINVAL;
	ret = pcap_inject(p, f, 60);
	ok(ret == -1 && !strcmp(pcap_geterr(p),
	  "ringcap: cannot send on lo: setting transmit ring size to 262144: Invalid argument"),
	  "any other refusal of the transmit ring fails the inject, saying so (%s)",
	  pcap_geterr(p));
	pcap_close(p);
	(void)err;
}

/*
 * The adaptive watermark: 64 while frames come slowly, what a sustained
 * rate brings in 10 ms once a 1 s window has shown it (at most the
 * quarter ring's 168 full frames of the default 1 MiB), 64 again after
 * an idle window; a burst after idleness is read at 64. RINGCAP_WATERMARK
 * and immediate mode fix N.
 */
static uint32_t drain_burst(pcap_t *p, int frames)
{
	struct got g;
	int i;

	for (i = 0; i < frames; i += 400) {
		put((uint32_t)i, frames - i < 400 ? frames - i : 400, 60);
		memset(&g, 0, sizeof(g));
		while (pcap_dispatch(p, -1, cb, (u_char *)&g) > 0)
			;
	}
	return k.watermark;
}

static void test_adaptive(void)
{
	uint32_t n;
	int sets;
	pcap_t *p;

	k.ring_size = 0;	/* the module's default, 1 MiB */
	p = open_dev("ringcap:lo", 0, 0);
	pcap_setnonblock(p, 1, NULL);
	sets = k.wm_sets;
	n = drain_burst(p, 20000);
	ok(n == 64 && k.wm_sets == sets,
	  "adaptive: a burst of 20000 frames inside the first window is read at N=64 (N=%u)",
	  n);
	usleep(1050000);
	n = drain_burst(p, 1);
	ok(n == 168 && k.wm_sets == sets + 1,
	  "20000 frames in a window of ~1.05 s: N grows to the quarter ring, 168, not past it (N=%u)",
	  n);
	usleep(1050000);
	n = drain_burst(p, 1);
	ok(n == 64, "an idle window: N=64 again (N=%u)", n);
	usleep(1050000);
	n = drain_burst(p, 5000);
	ok(n == 64, "... so the burst after it is read at 64 (N=%u)", n);
	usleep(1000000);
	/* 5001 frames in ~1 s: 50 in 10 ms, under the floor. */
	n = drain_burst(p, 1);
	ok(n == 64, "a slower rate (about 5000 a second) keeps N=64 (N=%u)",
	  n);
	pcap_close(p);

	setenv("RINGCAP_WATERMARK", "16", 1);
	p = open_dev("ringcap:lo", 0, 0);
	pcap_setnonblock(p, 1, NULL);
	drain_burst(p, 20000);
	usleep(1050000);
	n = drain_burst(p, 1);
	unsetenv("RINGCAP_WATERMARK");
	ok(n == 16, "RINGCAP_WATERMARK=16 fixes N under the same load (N=%u)",
	  n);
	pcap_close(p);
}

static void *breaker(void *arg)
{
	usleep(200000);
	pcap_breakloop(arg);
	return NULL;
}

int main(void)
{
	struct bpf_program prog;
	struct pcap_stat ps;
	struct ringcap_rec *rec;
	struct got g;
	pthread_t th;
	pcap_t *p;
	int i, ret;

	printf("TAP version 13\n");
	p = open_dev("ringcap:lo", 0, 0);
	ok(!strcmp(k.ifname, "lo") && k.queue == -1,
	  "ringcap:lo binds lo, all queues");
	/* N adapts from 64 up to the 168 full frames of a quarter ring. */
	ok(k.snaplen == RINGCAP_SNAPLEN_MAX && k.watermark == 64 &&
	  k.timeout_us == 100000,
	  "snaplen capped at RINGCAP_SNAPLEN_MAX, N=64 to start with, m=timeout (got %u %u %u)",
	  k.snaplen, k.watermark, k.timeout_us);
	ok(pcap_datalink(p) == DLT_EN10MB && pcap_get_selectable_fd(p) >= 0 &&
	  !pcap_get_required_select_timeout(p),
	  "EN10MB, a selectable fd, no required select timeout");

	put(0, 300, 60);
	memset(&g, 0, sizeof(g));
	ret = pcap_dispatch(p, 100, cb, (u_char *)&g);
	ok(ret == 100 && g.n == 100 && !g.bad && g.bytes[0] == 99,
	  "dispatch(100) stops at exactly 100 (ret %d)", ret);
	memset(&g, 0, sizeof(g));
	ret = pcap_dispatch(p, -1, cb, (u_char *)&g);
	ok(ret == 200 && !g.bad && g.bytes[0] == (uint8_t)299,
	  "the rest of the batch is not lost: 200 more (ret %d)", ret);
	ret = pcap_dispatch(p, -1, cb, (u_char *)&g);
	ok(fr.hdr->consumer == fr.hdr->producer,
	  "everything read is given back to the ring");

	/* A persistent ring's gap record reaches no callback. */
	put(300, 1, 60);
	rec = fake_ring_reserve(&fr, sizeof(struct ringcap_gap));
	rec->flags = RINGCAP_REC_GAP;
	memset(rec + 1, 0, sizeof(struct ringcap_gap));
	((struct ringcap_gap *)(rec + 1))->ring_full = 7;
	fake_ring_commit(&fr, rec);
	put(308, 1, 60);
	memset(&g, 0, sizeof(g));
	ret = pcap_dispatch(p, -1, cb, (u_char *)&g);
	ok(ret == 2 && g.n == 2 && !g.bad,
	  "a gap record between two frames: the two frames only (ret %d)", ret);

	pcap_setnonblock(p, 1, NULL);
	ret = pcap_dispatch(p, -1, cb, (u_char *)&g);
	ok(ret == 0 && pcap_getnonblock(p, NULL) == 1,
	  "non-blocking read of an empty ring returns 0");
	pcap_setnonblock(p, 0, NULL);

	/* An empty ring: the read sleeps, 20 frames arrive meanwhile. */
	kp.calls = 0;
	kp.frames = 20;
	kp.seq = 500;
	memset(&g, 0, sizeof(g));
	ret = pcap_dispatch(p, -1, cb, (u_char *)&g);
	ok(ret == 20 && !g.bad && kp.calls == 1,
	  "one poll() per wake-up: 20 frames after %d poll() calls (ret %d)",
	  kp.calls, ret);

	pthread_create(&th, NULL, breaker, p);
	ret = pcap_loop(p, -1, cb, (u_char *)&g);
	pthread_join(th, NULL);
	ok(ret == PCAP_ERROR_BREAK, "pcap_breakloop ends a blocked pcap_loop");

	/* A filter the kernel refuses runs in user space. */
	k.filter_refuse = 1;
	pcap_compile(p, &prog, "ether[0] < 16", 1, PCAP_NETMASK_UNKNOWN);
	ret = pcap_setfilter(p, &prog);
	put(1000, 100, 60);	/* byte 0: 232..255, 0..75 */
	memset(&g, 0, sizeof(g));
	pcap_dispatch(p, -1, cb, (u_char *)&g);
	ok(ret == 0 && g.n == 16 && !k.filter_attached,
	  "refused kernel filter: user space delivers the 16 matching (%d)",
	  g.n);
	/* Accepted: frames already in the ring are filtered here once. */
	k.filter_refuse = 0;
	put(2000, 100, 60);	/* byte 0: 208..255, 0..51 */
	pcap_setfilter(p, &prog);
	memset(&g, 0, sizeof(g));
	pcap_dispatch(p, -1, cb, (u_char *)&g);
	pcap_dispatch(p, -1, cb, (u_char *)&g);
	ok(k.filter_attached && g.n == 16,
	  "kernel filter: frames queued before it still filtered (%d)", g.n);
	put(3000, 10, 60);	/* the "kernel" let these through */
	memset(&g, 0, sizeof(g));
	pcap_dispatch(p, -1, cb, (u_char *)&g);
	ok(g.n == 10, "after the ring ran empty, no second filtering (%d)",
	  g.n);
	pcap_freecode(&prog);

	k.st.received = 10;
	k.st.dropped = 5;
	k.st.nic_dropped = 3;
	k.st.cutoff = 7;
	pcap_stats(p, &ps);
	ok(ps.ps_recv == 22 && ps.ps_drop == 5 && ps.ps_ifdrop == 3,
	  "stats: recv = received + dropped + cutoff, drop, ifdrop = nic_dropped");
	ok(pcap_setdirection(p, PCAP_D_OUT) < 0 &&
	  !pcap_setdirection(p, PCAP_D_IN), "direction: OUT refused, IN ok");

	/*
	 * The device goes away with 3 frames arriving: they come first,
	 * then the error, again on every later read.
	 */
	kp.calls = 0;
	kp.frames = 3;
	kp.seq = 600;
	kp.gone = 1;
	kp.sk_err = ENODEV;
	memset(&g, 0, sizeof(g));
	ret = pcap_dispatch(p, -1, cb, (u_char *)&g);
	ok(ret == 3 && kp.calls == 1,
	  "device gone: frames readable with POLLERR still delivered (ret %d, %d polls)",
	  ret, kp.calls);
	ret = pcap_dispatch(p, -1, cb, (u_char *)&g);
	ok(ret == PCAP_ERROR && kp.calls == 2 &&
	  !strcmp(pcap_geterr(p), "ringcap: the capture device went away"),
	  "device gone: then PCAP_ERROR, one poll, \"%s\"", pcap_geterr(p));
	ret = pcap_dispatch(p, -1, cb, (u_char *)&g);
	ok(ret == PCAP_ERROR &&
	  !strcmp(pcap_geterr(p), "ringcap: the capture device went away"),
	  "device gone: the same error again once SO_ERROR is cleared");
	/* libringcap's own wait decodes it in the same place. */
	kp.calls = 0;
	errno = 0;
	ret = rcap_wait(fr.rc, 0);
	ok(ret == -1 && errno == ENODEV && kp.calls == 1,
	  "rcap_wait: one poll(), the same ENODEV (ret %d, %s)", ret,
	  strerror(errno));
	kp.gone = 0;
	pcap_close(p);

	/* rcap_poll_result() alone, on a fresh handle. */
	rcap_open();
	ok(rcap_poll_result(fr.rc, 0) == 0 &&
	  rcap_poll_result(fr.rc, POLLOUT) == 0 &&
	  rcap_poll_result(fr.rc, POLLIN | POLLERR) == 1,
	  "poll result: nothing is 0, readable wins over POLLERR");
	errno = 0;
	ret = rcap_poll_result(fr.rc, POLLNVAL);
	ok(ret == -1 && errno == EBADF, "poll result: POLLNVAL is EBADF");
	kp.sk_err = ENETDOWN;
	ret = rcap_poll_result(fr.rc, POLLERR);
	ok(ret == -1 && errno == ENETDOWN &&
	  !strcmp(rcap_errmsg(fr.rc), "socket error: Network is down"),
	  "poll result: POLLERR is SO_ERROR's errno (%s)",
	  rcap_errmsg(fr.rc));
	rcap_open();
	ret = rcap_poll_result(fr.rc, POLLHUP);
	ok(ret == -1 && errno == EIO,
	  "poll result: POLLHUP, no socket error: EIO (%s)",
	  rcap_errmsg(fr.rc));

	p = open_dev("ringcap:lo@1", 1, 1);
	ok(k.queue == 1 && k.watermark == 1, "lo@1: queue 1; immediate: N=1");
	put(1500000123, 1, 60);
	rec = fake_ring_reserve(&fr, 60);
	rec->flags = RINGCAP_REC_VLAN;
	rec->vlan_tci = 0x123;
	rec->vlan_proto = htons(0x8100);
	for (i = 0; i < 60; i++)
		((uint8_t *)(rec + 1))[i] = (uint8_t)i;
	fake_ring_commit(&fr, rec);
	memset(&g, 0, sizeof(g));
	pcap_dispatch(p, 1, cb, (u_char *)&g);
	ok(g.last.ts.tv_sec == 1 && g.last.ts.tv_usec == 500000123,
	  "nanosecond precision: %ld.%09ld", (long)g.last.ts.tv_sec,
	  (long)g.last.ts.tv_usec);
	memset(&g, 0, sizeof(g));
	pcap_dispatch(p, 1, cb, (u_char *)&g);
	ok(g.last.caplen == 64 && g.last.len == 64 && g.bytes[11] == 11 &&
	  g.bytes[12] == 0x81 && g.bytes[13] == 0 && g.bytes[14] == 0x01 &&
	  g.bytes[15] == 0x23 && g.bytes[16] == 12,
	  "a stripped VLAN tag is put back after the MAC addresses");
	pcap_close(p);

	/* Options past the module's limits are brought inside them. */
	open_close("ringcap:lo", 60000, 1, 0);
	ok(k.timeout_us == RINGCAP_TIMEOUT_US_MAX &&
	  k.ring_size == RINGCAP_RING_SIZE_MIN && k.watermark == 1,
	  "timeout 60 s: m = RINGCAP_TIMEOUT_US_MAX; 1-byte buffer: RINGCAP_RING_SIZE_MIN, N=1 (got %u %u %u)",
	  k.timeout_us, k.ring_size, k.watermark);
	open_close("ringcap:lo", 1000, 0x7fffffff, 0);
	ok(k.timeout_us == 1000000 && k.ring_size == RINGCAP_RING_SIZE_MAX &&
	  k.watermark == 64,
	  "timeout 1 s: m = 1 s; 2 GiB buffer: RINGCAP_RING_SIZE_MAX, N=64 to start with (got %u %u %u)",
	  k.timeout_us, k.ring_size, k.watermark);
	open_close("ringcap:lo", 1000, 1 << 20, 96);
	ok(k.snaplen == 96 && k.watermark == 64,
	  "snaplen 96 in 1 MiB: N=64 to start with (got %u %u)",
	  k.snaplen, k.watermark);
	setenv("RINGCAP_WATERMARK", "16", 1);
	open_close("ringcap:lo", 1000, 0x7fffffff, 0);
	unsetenv("RINGCAP_WATERMARK");
	ok(k.watermark == 16, "RINGCAP_WATERMARK=16: N=16 (got %u)",
	  k.watermark);

	test_adaptive();
	test_env();
	test_env_zerocopy();
	test_env_persist();
	test_env_cutoff();
	test_zerocopy_read();
	test_inject();
	return tap_done();
}
