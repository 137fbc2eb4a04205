// SPDX-License-Identifier: GPL-2.0
/*
 * rcfuzz: the socket calls. socket(), setsockopt/getsockopt at SOL_RINGCAP
 * with valid, boundary and garbage values, lengths, levels and pointers,
 * a few SOL_SOCKET options of the core, and bind(). The errnos allowed for
 * each call are those of docs/CONTRACTS.md and module/{sock,sockopt,bind}.c;
 * ENOMEM/ENOBUFS wherever a ring may be allocated (ENOBUFS: the user's
 * locked-memory limit for rings).
 *
 * Each socket carries a model of its options, bound state and ring; read
 * backs are compared with it while no fork child can have changed it.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include "fuzz.h"
#include "rc_util.h"

#define UNKNOWN		0xffffffffu
#define MAX_WATERMARK	(1u << 20)
#define MAX_TIMEOUT_US	RINGCAP_TIMEOUT_US_MAX
#define BAD_PTR		((void *)8)

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* The options that take a __u32 (optlen other than 4: EINVAL). */
static bool u32_opt(int name)
{
	return (name >= RINGCAP_RING_SIZE && name <= RINGCAP_PROMISC) ||
	       (name >= RINGCAP_ZEROCOPY && name <= RINGCAP_GAPS) ||
	       name == RINGCAP_FLOW_CUTOFF;
}

static const int u32_names[] = { RINGCAP_RING_SIZE, RINGCAP_SNAPLEN,
	RINGCAP_WATERMARK, RINGCAP_TIMEOUT_US, RINGCAP_PROMISC,
	RINGCAP_ZEROCOPY, RINGCAP_TX_RING_SIZE, RINGCAP_CAPTURE,
	RINGCAP_GAPS, RINGCAP_FLOW_CUTOFF };
#define NR_U32_NAMES	(int)(sizeof(u32_names) / sizeof(u32_names[0]))

/* The largest snaplen a ring of this size takes (uapi header). */
static uint32_t snap_for(uint32_t size)
{
	return RINGCAP_SNAPLEN_FOR_RING(size);
}

struct fz_sock *fz_pick_sock(struct fz_worker *w)
{
	return w->nsocks ? &w->socks[fz_rnd(w, w->nsocks)] : NULL;
}

void fz_sock_forget(struct fz_worker *w, int i)
{
	free(w->socks[i].seen[0]);
	free(w->socks[i].seen[1]);
	w->socks[i] = w->socks[--w->nsocks];
}

static void sock_model_init(struct fz_worker *w, struct fz_sock *s, int fd)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->gen = w->gen;
	s->dev = -1;
	s->queue = RINGCAP_QUEUE_ANY;
	s->shared = w->child;
	/* Defaults come from parameters the supervisor keeps changing. */
	s->ring_size = UNKNOWN;
	s->snaplen = UNKNOWN;
	s->max_snaplen = RINGCAP_SNAPLEN_MAX;
	s->watermark = UNKNOWN;
	s->timeout_us = UNKNOWN;
	s->promisc = 1;
	s->capture = 1;
	s->hdr_cnt_ok = !w->child;
	s->walk_ok = true;
}

void fz_op_socket(struct fz_worker *w)
{
	static const int odd_types[] = { SOCK_STREAM, SOCK_DGRAM,
		SOCK_SEQPACKET, SOCK_RDM, SOCK_PACKET, 0, SOCK_DCCP };
	int type = SOCK_RAW, proto = htons(ETH_P_ALL), fd, err, t, r;
	struct fz_sock *s;

	r = fz_rnd(w, 100);
	if (r < 10)
		type = odd_types[fz_rnd(w, 7)];
	else if (r < 14)
		type = fz_rand(&w->rng);
	else if (r < 20)
		proto = fz_chance(w, 50) ? (int)fz_rand(&w->rng) :
					   htons(ETH_P_IP);
	else if (r < 50)
		proto = 0;
	if (fz_chance(w, 50) && type == SOCK_RAW)
		type |= SOCK_CLOEXEC;
	if (fz_chance(w, 10) && type == SOCK_RAW)
		type |= SOCK_NONBLOCK;

	fd = socket(fz_family, type, proto);
	err = fd < 0 ? errno : 0;
	t = type & 0xf;
	if (type & ~(0xf | SOCK_CLOEXEC | SOCK_NONBLOCK) || t >= 11)
		FZ_EXPECT(OP_SOCKET, err, ("socket(type 0x%x)", type), EINVAL);
	else if (t != SOCK_RAW)
		FZ_EXPECT(OP_SOCKET, err, ("socket(type %d)", type), ESOCKTNOSUPPORT);
	else if (proto && proto != htons(ETH_P_ALL))
		FZ_EXPECT(OP_SOCKET, err, ("socket(protocol 0x%x)", proto),
			  EPROTONOSUPPORT);
	else
		FZ_EXPECT(OP_SOCKET, err, ("socket(SOCK_RAW)"), 0, ENOMEM,
			  ENOBUFS);
	if (fd < 0)
		return;
	if (w->nsocks == FZ_MAX_SOCKS) {
		close(fd);
		return;
	}
	s = &w->socks[w->nsocks++];
	sock_model_init(w, s, fd);
}

void fz_op_close(struct fz_worker *w)
{
	int i;

	if (!w->nsocks)
		return;
	i = fz_rnd(w, w->nsocks);
	/* Half the time the mappings outlive the descriptor. */
	fz_unmap_all(w, &w->socks[i], fz_chance(w, 50));
	FZ_EXPECT(OP_CLOSE, close(w->socks[i].fd) ? errno : 0, ("close"), 0);
	fz_sock_forget(w, i);
}

/* A value for option name: valid, boundary or garbage. */
static uint32_t opt_value(struct fz_worker *w, int name)
{
	static const uint32_t ring[] = { 4096, 8192, 65536, 262144, 1 << 20,
		FZ_RING_MAX, 0, 2048, 4095, 4097, 12288, 1u << 31,
		0xffffffff, 3 << 20 };
	static const uint32_t snap[] = { 1, 14, 60, 64, 128, 1514, 2048,
		9018, 65535, 0, 65536, 0xffffffff, 4096, 60000 };
	static const uint32_t wm[] = { 1, 2, 64, 1000, MAX_WATERMARK, 0,
		MAX_WATERMARK + 1, 0xffffffff };
	static const uint32_t to[] = { 0, 1, 100, 1000, 50000, MAX_TIMEOUT_US,
		MAX_TIMEOUT_US + 1, 0xffffffff };

	if (fz_chance(w, 5))
		return fz_rand(&w->rng);
	switch (name) {
	case RINGCAP_RING_SIZE: return ring[fz_rnd(w, 14)];
	case RINGCAP_SNAPLEN: return snap[fz_rnd(w, 14)];
	case RINGCAP_WATERMARK: return wm[fz_rnd(w, 8)];
	case RINGCAP_TIMEOUT_US: return to[fz_rnd(w, 8)];
	case RINGCAP_PROMISC:
	case RINGCAP_ZEROCOPY:
	case RINGCAP_CAPTURE:
	case RINGCAP_GAPS: return fz_rnd(w, 3) ? fz_rnd(w, 2) : 2;
	case RINGCAP_TX_RING_SIZE:
		return fz_chance(w, 30) ? 0 : ring[fz_rnd(w, 14)];
	case RINGCAP_FLOW_CUTOFF: {
		static const uint32_t co[] = { 0, 1, 60, 1500, 65536,
			RINGCAP_FLOW_CUTOFF_MAX, RINGCAP_FLOW_CUTOFF_MAX + 1,
			0xffffffff };

		return co[fz_rnd(w, 8)];
	}
	default: return fz_rand(&w->rng);
	}
}

static int odd_level(struct fz_worker *w)
{
	static const int levels[] = { 0, 6, 17, 41, 263, 299, 301, -1,
				      0x7fffffff };

	return fz_chance(w, 80) ? levels[fz_rnd(w, 9)] :
				  (int)fz_rand(&w->rng);
}

/*
 * Names past the known ones, and some known ones with the wrong kind of
 * value. Not RINGCAP_PERSIST: a socket it names outlives the fuzzer's
 * close() and holds the module, which the supervisor reloads; its misuse
 * is selftests/persist.c's.
 */
static int odd_name(struct fz_worker *w)
{
	static const int names[] = { 0, 6, 7, 14, 15, 16, 17, 18, 19, 22, -1,
				     0x7fffffff };

	return names[fz_rnd(w, 12)];
}

/* The documented outcomes of a well-formed SOL_RINGCAP set of val. */
static void set_expect(struct fz_sock *s, int name, uint32_t v, int *set)
{
	int n = 0;

	switch (name) {
	case RINGCAP_RING_SIZE:
		if (v < RINGCAP_RING_SIZE_MIN || !pow2(v) || v > RINGCAP_RING_SIZE_MAX) {
			set[n++] = EINVAL;
			if (s->ring)
				set[n++] = EBUSY;
			break;
		}
		/* max_ring_mem moves, but never below RINGCAP_RING_SIZE_MIN */
		if (v > RINGCAP_RING_SIZE_MIN || s->shared)
			set[n++] = EINVAL;
		if (s->ring || s->shared)
			set[n++] = EBUSY;
		if (s->ring == 2 && !s->shared)
			break;
		/* A snaplen that was set must fit the new size. */
		if (s->snaplen_set && !s->shared && s->snaplen > snap_for(v))
			set[n++] = EINVAL;
		else
			set[n++] = 0;
		break;
	case RINGCAP_SNAPLEN:
		if (!v || v > RINGCAP_SNAPLEN_MAX) {
			set[n++] = EINVAL;
			break;
		}
		if (s->ring_size == UNKNOWN || s->shared) {
			set[n++] = 0;
			if (v > snap_for(RINGCAP_RING_SIZE_MIN))
				set[n++] = EINVAL;
		} else {
			set[n++] = v > snap_for(s->ring_size) ? EINVAL : 0;
		}
		break;
	case RINGCAP_WATERMARK:
		set[n++] = !v || v > MAX_WATERMARK ? EINVAL : 0;
		break;
	case RINGCAP_TIMEOUT_US:
		set[n++] = v > MAX_TIMEOUT_US ? EINVAL : 0;
		break;
	case RINGCAP_PROMISC:
	case RINGCAP_ZEROCOPY:
	case RINGCAP_CAPTURE:
	case RINGCAP_GAPS:
	case RINGCAP_FLOW_CUTOFF:
		/*
		 * fixed at bind, and by a device that went away; the cut-off's
		 * table is small (cutoff_flows' default)
		 */
		if (v > (name == RINGCAP_FLOW_CUTOFF ? RINGCAP_FLOW_CUTOFF_MAX : 1)) {
			set[n++] = EINVAL;
		} else {
			if ((!s->bound && !s->gone) || s->shared)
				set[n++] = 0;
			if (s->bound || s->gone || s->shared)
				set[n++] = EBUSY;
		}
		break;
	case RINGCAP_TX_RING_SIZE:
		if (v && (v < RINGCAP_RING_SIZE_MIN || !pow2(v) ||
			  v > RINGCAP_RING_SIZE_MAX)) {
			set[n++] = EINVAL;
			break;
		}
		/* max_ring_mem moves (the supervisor) */
		if (v > RINGCAP_RING_SIZE_MIN)
			set[n++] = EINVAL;
		/* fixed once the ring exists, at bind and after the device */
		if (s->tx || s->bound || s->gone || s->shared)
			set[n++] = EBUSY;
		if (s->tx != 2 && !s->bound && !s->gone)
			set[n++] = 0;
		break;
	default:
		set[n++] = ENOPROTOOPT;
	}
	set[n] = -1;
}

static void set_apply(struct fz_sock *s, int name, uint32_t v)
{
	switch (name) {
	case RINGCAP_RING_SIZE:
		s->ring_size = v;
		if (!s->snaplen_set)
			s->snaplen = snap_for(v);
		break;
	case RINGCAP_SNAPLEN:
		s->snaplen = v;
		s->snaplen_set = true;
		if (v > s->max_snaplen)
			s->max_snaplen = v;
		break;
	case RINGCAP_WATERMARK: s->watermark = v; break;
	case RINGCAP_TIMEOUT_US: s->timeout_us = v; break;
	case RINGCAP_PROMISC: s->promisc = v; break;
	case RINGCAP_ZEROCOPY: s->zerocopy = v; break;
	case RINGCAP_CAPTURE: s->capture = v; break;
	case RINGCAP_GAPS: s->gaps = v; break;
	case RINGCAP_FLOW_CUTOFF: s->cutoff = v; break;
	case RINGCAP_TX_RING_SIZE: s->tx_size = v; break;
	}
}

/*
 * RINGCAP_CLUSTER and RINGCAP_XDP_LINK take 8-byte structs. Here no link
 * is handed over (xdp.c does, and cluster.c joins with ids of its own): a
 * descriptor is not one (EINVAL) or not open (EBADF), and "no link, error
 * e" is recorded (0) on a bound socket of a device without an aware
 * driver.
 */
static void set_struct(struct fz_worker *w, struct fz_sock *s, int name)
{
	static const uint32_t policy[] = { RINGCAP_CLUSTER_FLOW,
		RINGCAP_CLUSTER_RR, RINGCAP_CLUSTER_QUEUE, 3, 0xffffffff };
	static const int32_t fds[] = { -1, -1, 0, 2, 1000, -7 };
	static const int32_t errs[] = { 0, EBUSY, EOPNOTSUPP, -1 };
	union {
		struct ringcap_cluster cl;
		struct ringcap_xdp_link xl;
		char raw[16];
	} buf;
	int len = 8, set[8], n = 0, err, r;
	void *ptr = &buf;

	memset(&buf, 0, sizeof(buf));
	if (name == RINGCAP_CLUSTER) {
		buf.cl.id = fz_rnd(w, 4);
		buf.cl.policy = policy[fz_rnd(w, 5)];
	} else {
		buf.xl.fd = fds[fz_rnd(w, 6)];
		buf.xl.error = errs[fz_rnd(w, 4)];
	}
	r = fz_rnd(w, 100);
	if (r < 10)
		len = (int[]){ 0, 4, 7, 9, 16 }[fz_rnd(w, 5)];
	else if (r < 14)
		ptr = fz_chance(w, 50) ? NULL : BAD_PTR;

	err = setsockopt(s->fd, SOL_RINGCAP, name, ptr, len) ? errno : 0;
	/* XDP_LINK takes 16 bytes (flags 0 here) as well as its first 8. */
	if (len != 8 && !(name == RINGCAP_XDP_LINK && len == 16)) {
		set[n++] = EINVAL;
	} else if (ptr != &buf) {
		set[n++] = EFAULT;
	} else if (name == RINGCAP_CLUSTER) {
		if (buf.cl.policy > RINGCAP_CLUSTER_QUEUE) {
			set[n++] = EINVAL;
		} else {
			if ((!s->bound && !s->gone) || s->shared)
				set[n++] = 0;
			if (s->bound || s->gone || s->shared)
				set[n++] = EBUSY;
		}
	} else {
		/* Capabilities may have been dropped (capdrop, userns). */
		set[n++] = EPERM;
		set[n++] = EINVAL;
		if (buf.xl.fd >= 0)
			set[n++] = EBADF;
		else if (buf.xl.error > 0 && (s->bound || s->shared))
			set[n++] = 0;
	}
	set[n] = -1;
	FZ_EXPECTF(OP_SETSOCKOPT, err, set, "setsockopt(%d, len %d) (bound %d)",
		   name, len, s->bound);
	if (!err && name == RINGCAP_CLUSTER)
		s->cluster = buf.cl.id != 0;
}

void fz_op_setsockopt(struct fz_worker *w)
{
	struct fz_sock *s = fz_pick_sock(w);
	uint32_t buf[16] = { 0 }, v;
	int level = SOL_RINGCAP, name, len = 4, set[8], err, r;
	void *ptr = buf;

	if (!s)
		return;
	r = fz_rnd(w, 100);
	name = r < 75 ? u32_names[fz_rnd(w, NR_U32_NAMES)] :
	       r < 85 ? RINGCAP_CLUSTER + (int)fz_rnd(w, 2) : odd_name(w);
	if ((name == RINGCAP_CLUSTER || name == RINGCAP_XDP_LINK) &&
	    fz_chance(w, 80)) {
		set_struct(w, s, name);
		return;
	}
	v = opt_value(w, name);
	buf[0] = v;
	r = fz_rnd(w, 100);
	if (r < 5)
		level = odd_level(w);
	else if (r < 12)
		len = (int[]){ 0, 1, 2, 3, 5, 8, 64 }[fz_rnd(w, 7)];
	else if (r < 14)
		len = -1;
	else if (r < 17)
		ptr = fz_chance(w, 50) ? NULL : BAD_PTR;
	if (level == SOL_SOCKET)
		level = SOL_RINGCAP;

	err = setsockopt(s->fd, level, name, ptr, len) ? errno : 0;
	if (len < 0) {
		FZ_EXPECT(OP_SETSOCKOPT, err, ("setsockopt(optlen -1)"), EINVAL);
	} else if (level != SOL_RINGCAP) {
		FZ_EXPECT(OP_SETSOCKOPT, err, ("setsockopt(level %d)", level),
			  ENOPROTOOPT);
	} else if ((name == RINGCAP_CLUSTER || name == RINGCAP_XDP_LINK) &&
		   len != 8) {
		FZ_EXPECT(OP_SETSOCKOPT, err,
			  ("setsockopt(%d, optlen %d)", name, len), EINVAL);
	} else if (name == RINGCAP_CLUSTER || name == RINGCAP_XDP_LINK) {
		/* Raw words as the struct: set_struct() models them closely. */
		FZ_EXPECT(OP_SETSOCKOPT, err, ("setsockopt(%d, raw)", name),
			  0, EINVAL, EFAULT, EPERM, EBUSY, EBADF);
		if (!err && name == RINGCAP_CLUSTER)
			s->cluster = buf[0] != 0;	/* the struct's id */
	} else if (len != 4) {
		if (u32_opt(name))
			FZ_EXPECT(OP_SETSOCKOPT, err,
				  ("setsockopt(%d, optlen %d)", name, len), EINVAL);
		else
			FZ_EXPECT(OP_SETSOCKOPT, err,
				  ("setsockopt(name %d, optlen %d)", name, len),
				  ENOPROTOOPT, EINVAL);
	} else if (ptr != buf) {
		if (u32_opt(name))
			FZ_EXPECT(OP_SETSOCKOPT, err,
				  ("setsockopt(%d, bad optval)", name), EFAULT);
		else
			FZ_EXPECT(OP_SETSOCKOPT, err,
				  ("setsockopt(name %d, bad optval)", name), EFAULT,
				  ENOPROTOOPT);
	} else {
		set_expect(s, name, v, set);
		fz_count_opt(true, name);
		FZ_EXPECTF(OP_SETSOCKOPT, err, set,
			   "setsockopt(%d, %u) (ring %d bound %d)", name, v,
			   s->ring, s->bound);
		if (!err)
			set_apply(s, name, v);
	}
}

static void check_u32(struct fz_worker *w, struct fz_sock *s, int name,
		      uint32_t v)
{
	uint32_t want = UNKNOWN;

	switch (name) {
	case RINGCAP_RING_SIZE:
		fz_check(pow2(v) && v >= RINGCAP_RING_SIZE_MIN, "RING_SIZE reads %u", v);
		if (s->ring == 2 && s->have_info)
			want = s->info.data_size;
		else if (s->ring == 0)
			want = s->ring_size;
		break;
	case RINGCAP_SNAPLEN:
		fz_check(v >= 1 && v <= RINGCAP_SNAPLEN_MAX, "SNAPLEN reads %u", v);
		want = s->snaplen;
		break;
	case RINGCAP_WATERMARK:
		fz_check(v >= 1 && v <= MAX_WATERMARK, "WATERMARK reads %u", v);
		want = s->watermark;
		break;
	case RINGCAP_TIMEOUT_US:
		fz_check(v <= MAX_TIMEOUT_US, "TIMEOUT_US reads %u", v);
		want = s->timeout_us;
		break;
	case RINGCAP_PROMISC:
		fz_check(v <= 1, "PROMISC reads %u", v);
		want = s->promisc;
		break;
	case RINGCAP_ABI:
		fz_check(v == RINGCAP_ABI_VERSION, "ABI reads %u", v);
		break;
	case RINGCAP_ZEROCOPY:
		fz_check(v <= 1, "ZEROCOPY reads %u", v);
		want = s->zerocopy;
		break;
	case RINGCAP_CAPTURE:
		fz_check(v <= 1, "CAPTURE reads %u", v);
		want = s->capture;
		break;
	case RINGCAP_GAPS:
		fz_check(v <= 1, "GAPS reads %u", v);
		want = s->gaps;
		break;
	case RINGCAP_FLOW_CUTOFF:
		fz_check(v <= RINGCAP_FLOW_CUTOFF_MAX, "FLOW_CUTOFF reads %u", v);
		want = s->cutoff;
		break;
	case RINGCAP_TX_RING_SIZE:
		fz_check(!v || (pow2(v) && v >= RINGCAP_RING_SIZE_MIN),
			 "TX_RING_SIZE reads %u", v);
		want = s->tx_size;
		break;
	}
	if (want != UNKNOWN && !s->shared)
		fz_check(v == want, "option %d reads %u, was set to %u", name,
			 v, want);
	/* Learn the defaults the supervisor's parameters gave. */
	if (s->shared)
		return;
	if (name == RINGCAP_WATERMARK || name == RINGCAP_TIMEOUT_US)
		set_apply(s, name, v);
	if (name == RINGCAP_RING_SIZE && s->ring == 0) {
		s->ring_size = v;
		if (!s->snaplen_set)
			s->snaplen = snap_for(v);
	}
	if (name == RINGCAP_SNAPLEN)
		s->snaplen = v;
}

/* RING_INFO, checked: kernel constants, the same every time. */
int fz_ring_info(struct fz_sock *s, struct ringcap_ring_info *info)
{
	socklen_t len = sizeof(*info);
	int err;

	err = getsockopt(s->fd, SOL_RINGCAP, RINGCAP_RING_INFO, info, &len) ?
	      errno : 0;
	FZ_EXPECT(OP_GETSOCKOPT, err, ("getsockopt(RING_INFO)"), 0, ENOMEM,
		  ENOBUFS);
	if (err)
		return err;
	fz_check(len == sizeof(*info), "RING_INFO optlen %u", len);
	fz_check(info->data_offset == FZ_PAGE && pow2(info->data_size) &&
		 info->data_size >= RINGCAP_RING_SIZE_MIN &&
		 info->mmap_size == (uint64_t)info->data_offset +
				    info->data_size,
		 "RING_INFO mmap_size %llu data_offset %u data_size %u",
		 (unsigned long long)info->mmap_size, info->data_offset,
		 info->data_size);
	if (s->have_info) {
		fz_check(!memcmp(info, &s->info, sizeof(*info)),
			 "RING_INFO changed: data_offset %u data_size %u mmap_size %llu, was %u %u %llu",
			 info->data_offset, info->data_size,
			 (unsigned long long)info->mmap_size,
			 s->info.data_offset, s->info.data_size,
			 (unsigned long long)s->info.mmap_size);
	} else {
		if (s->ring_size != UNKNOWN && !s->shared)
			fz_check(info->data_size == s->ring_size,
				 "ring of %u bytes, RING_SIZE was %u",
				 info->data_size, s->ring_size);
		s->info = *info;
		s->have_info = true;
	}
	s->ring = 2;
	return 0;
}

/* RINGCAP_PATH: known values, none but "unbound" before bind. */
static void check_path(const struct fz_sock *s, const struct ringcap_path *p)
{
	fz_check(p->path <= RINGCAP_PATH_XDP_COPY &&
		 p->why <= RINGCAP_XDP_NO_COPY_PROGRAM &&
		 !(p->flags & ~(RINGCAP_PATH_PASS | RINGCAP_PATH_KFUNC)) &&
		 (p->path != RINGCAP_PATH_UNBOUND ||
		  !(p->flags & RINGCAP_PATH_PASS)),
		 "PATH reads path %u why %u flags %#x", p->path, p->why,
		 p->flags);
	if (!s->shared && !s->zerocopy)
		fz_check(p->path != RINGCAP_PATH_ZEROCOPY,
			 "PATH reads zerocopy on a copy-mode socket");
	fz_check(p->path == RINGCAP_PATH_HOOK || p->why == RINGCAP_XDP_NONE,
		 "PATH reads why %u with path %u", p->why, p->path);
	if (!s->bound && !s->shared)
		fz_check(p->path == RINGCAP_PATH_UNBOUND,
			 "PATH reads path %u on an unbound socket", p->path);
}

void fz_op_getsockopt(struct fz_worker *w)
{
	struct fz_sock *s = fz_pick_sock(w);
	static const int names[] = { 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 14,
				     16, 17, 18, 19, 20, 21 };
	union {
		uint32_t u;
		struct ringcap_ring_info info;
		struct ringcap_stats st;
		struct ringcap_cluster cl;
		struct ringcap_path path;
		struct ringcap_tx_stats txst;
		char raw[128];
	} buf;
	int level = SOL_RINGCAP, name, size, first, r, err, len;
	socklen_t *lenp, l;
	void *ptr = &buf;

	if (!s)
		return;
	name = fz_chance(w, 90) ?
	       names[fz_rnd(w, sizeof(names) / sizeof(names[0]))] :
	       odd_name(w);
	if (name == RINGCAP_RING_INFO && fz_chance(w, 70)) {
		fz_ring_info(s, &buf.info);
		return;
	}
	if (name == RINGCAP_STATS && fz_chance(w, 70)) {
		fz_sock_check_stats(w, s);
		return;
	}
	size = name == RINGCAP_RING_INFO || name == RINGCAP_TX_INFO ?
	       (int)sizeof(buf.info) :
	       name == RINGCAP_TX_STATS ? (int)sizeof(buf.txst) :
	       name == RINGCAP_STATS ? (int)sizeof(buf.st) :
	       name == RINGCAP_CLUSTER ? (int)sizeof(buf.cl) :
	       name == RINGCAP_PATH ? (int)sizeof(buf.path) :
	       name == RINGCAP_PERSIST ? RINGCAP_PERSIST_NAME_MAX : 4;
	len = size;
	lenp = &l;
	r = fz_rnd(w, 100);
	if (r < 5)
		level = odd_level(w);
	else if (r < 20)
		len = (int[]){ 0, 1, 3, size - 1, size + 8, 100, -1 }[fz_rnd(w, 7)];
	else if (r < 23)
		lenp = fz_chance(w, 50) ? NULL : BAD_PTR;
	else if (r < 26)
		ptr = fz_chance(w, 50) ? NULL : BAD_PTR;
	if (level == SOL_SOCKET)
		level = SOL_RINGCAP;
	l = len;

	err = getsockopt(s->fd, level, name, ptr, lenp) ? errno : 0;
	if (level != SOL_RINGCAP) {
		FZ_EXPECT(OP_GETSOCKOPT, err, ("getsockopt(level %d)", level),
			  ENOPROTOOPT);
		return;
	}
	if (lenp != &l) {
		FZ_EXPECT(OP_GETSOCKOPT, err, ("getsockopt(bad optlen)"), EFAULT);
		return;
	}
	if (len < 0) {
		FZ_EXPECT(OP_GETSOCKOPT, err, ("getsockopt(optlen -1)"), EINVAL);
		return;
	}
	/* RINGCAP_XDP_LINK (7) is write-only. */
	if (name < 1 || name == RINGCAP_XDP_LINK ||
	    name == RINGCAP_PERSIST_DELETE ||
	    (name > RINGCAP_FLOW_CUTOFF && name < RINGCAP_RING_INFO) ||
	    name > RINGCAP_TX_STATS) {
		FZ_EXPECT(OP_GETSOCKOPT, err, ("getsockopt(name %d)", name),
			  ENOPROTOOPT);
		return;
	}
	fz_count_opt(false, name);
	/*
	 * The structures that grow take any length from their first size
	 * up and write what fits (uapi); the others want theirs.
	 */
	first = name == RINGCAP_RING_INFO || name == RINGCAP_TX_INFO ?
		RINGCAP_RING_INFO_SIZE_V1 :
		name == RINGCAP_STATS ? RINGCAP_STATS_SIZE_V1 :
		name == RINGCAP_TX_STATS ? RINGCAP_TX_STATS_SIZE_V1 : size;
	if (name == RINGCAP_TX_INFO || name == RINGCAP_TX_STATS) {
		/*
		 * TX_INFO makes the ring (as RING_INFO does) before it looks
		 * at the length; both are ENXIO without one.
		 */
		int set[8], n = 0;
		bool none = !s->tx_size && !s->shared;
		bool mk = name == RINGCAP_TX_INFO;

		if (!none) {
			if (len < first)
				set[n++] = EINVAL;
			else if (ptr != &buf)
				set[n++] = EFAULT;
			else
				set[n++] = 0;
			if (mk) {
				set[n++] = ENOMEM;
				set[n++] = ENOBUFS;
			}
		}
		if (s->tx != 2 && (none || s->shared || !mk))
			set[n++] = ENXIO;
		set[n] = -1;
		FZ_EXPECTF(OP_GETSOCKOPT, err, set, "getsockopt(%d, optlen %d) (tx_size %u, tx %d)",
			   name, len, s->tx_size, s->tx);
		if (mk && (!err || err == EINVAL || err == EFAULT) && !s->shared)
			s->tx = 2;
		if (err || ptr != &buf)
			return;
		fz_check(l == (socklen_t)(len < size ? len : size),
			 "getsockopt(%d) optlen %u, expected %d", name, l,
			 len < size ? len : size);
		if (len < size)
			return;
		if (mk)
			fz_check(buf.info.data_offset == FZ_PAGE &&
				 pow2(buf.info.data_size) &&
				 buf.info.mmap_size == FZ_PAGE + (uint64_t)buf.info.data_size &&
				 (s->shared || buf.info.data_size == s->tx_size),
				 "TX_INFO data_offset %u data_size %u mmap_size %llu (TX_RING_SIZE %u)",
				 buf.info.data_offset, buf.info.data_size,
				 (unsigned long long)buf.info.mmap_size, s->tx_size);
		else
			fz_check(buf.txst.bad_producer <= buf.txst.kicks &&
				 buf.txst.full <= buf.txst.kicks,
				 "TX_STATS bad_producer %llu full %llu kicks %llu",
				 (unsigned long long)buf.txst.bad_producer,
				 (unsigned long long)buf.txst.full,
				 (unsigned long long)buf.txst.kicks);
		return;
	}
	if (name == RINGCAP_RING_INFO) {
		/* The ring is allocated before the length is looked at. */
		if (len < first)
			FZ_EXPECT(OP_GETSOCKOPT, err, ("RING_INFO optlen %d", len),
				  EINVAL, ENOMEM, ENOBUFS);
		else if (ptr != &buf)
			FZ_EXPECT(OP_GETSOCKOPT, err, ("RING_INFO bad optval"),
				  EFAULT, ENOMEM, ENOBUFS);
		else
			FZ_EXPECT(OP_GETSOCKOPT, err, ("RING_INFO optlen %d", len), 0,
				  ENOMEM, ENOBUFS);
		if (!err || err == EINVAL || err == EFAULT)
			s->ring = s->ring ? s->ring : 1;
	} else if (len < first) {
		FZ_EXPECT(OP_GETSOCKOPT, err, ("getsockopt(%d, optlen %d)", name, len),
			  EINVAL);
	} else if (ptr != &buf) {
		FZ_EXPECT(OP_GETSOCKOPT, err, ("getsockopt(%d, bad optval)", name),
			  EFAULT);
	} else {
		FZ_EXPECT(OP_GETSOCKOPT, err, ("getsockopt(%d, optlen %d)", name, len), 0);
	}
	if (err || ptr != &buf)
		return;
	fz_check(l == (socklen_t)(len < size ? len : size),
		 "getsockopt(%d) optlen %u, expected %d", name, l,
		 len < size ? len : size);
	if (name == RINGCAP_STATS || name == RINGCAP_RING_INFO || len < size)
		return;
	if (name == RINGCAP_CLUSTER) {
		fz_check(buf.cl.policy <= RINGCAP_CLUSTER_QUEUE,
			 "CLUSTER reads policy %u", buf.cl.policy);
		return;
	}
	if (name == RINGCAP_PATH) {
		check_path(s, &buf.path);
		return;
	}
	if (name == RINGCAP_PERSIST) {
		/* never set here (odd_name()): no name */
		fz_check(!buf.raw[0], "PERSIST reads \"%.32s\", never set",
			 buf.raw);
		return;
	}
	check_u32(w, s, name, buf.u);
}

void fz_sock_check_stats(struct fz_worker *w, struct fz_sock *s)
{
	struct ringcap_stats st;
	uint64_t h[4] = { 0 };
	struct fz_map *m = fz_main_map(s);
	const struct ringcap_ring_hdr *hdr = m ? m->p : NULL;
	const uint64_t *a, *b;
	int err, i;

	/* Header first: it may only be behind STATS, never ahead. */
	if (hdr && s->hdr_cnt_ok) {
		h[0] = __atomic_load_n(&hdr->received, __ATOMIC_ACQUIRE);
		h[1] = __atomic_load_n(&hdr->dropped, __ATOMIC_ACQUIRE);
		h[2] = __atomic_load_n(&hdr->filtered, __ATOMIC_ACQUIRE);
		h[3] = __atomic_load_n(&hdr->wakeups, __ATOMIC_ACQUIRE);
	}
	err = -rc_stats(s->fd, &st);
	if (err == EPROTO)
		err = -2;
	FZ_EXPECT(OP_GETSOCKOPT, err, ("getsockopt(STATS)"), 0);
	if (err)
		return;
	fz_check(st.wakeups_timer <= st.wakeups,
		 "STATS wakeups_timer %llu > wakeups %llu",
		 (unsigned long long)st.wakeups_timer,
		 (unsigned long long)st.wakeups);
	if (!s->cons_ever_bad && !s->shared)
		fz_check(!st.bad_consumer,
			 "STATS bad_consumer %llu, but the consumer was always valid",
			 (unsigned long long)st.bad_consumer);
	if (s->have_st) {
		a = (const uint64_t *)&s->st;
		b = (const uint64_t *)&st;
		for (i = 0; i < 7; i++)
			fz_check(b[i] >= a[i],
				 "STATS field %d went back from %llu to %llu",
				 i, (unsigned long long)a[i],
				 (unsigned long long)b[i]);
	}
	if (hdr && s->hdr_cnt_ok) {
		b = (const uint64_t *)&st;
		/* received, dropped, filtered, wakeups: STATS fields 0-3 */
		for (i = 0; i < 4; i++) {
			fz_check(h[i] <= b[i],
				 "header counter %d is %llu, ahead of STATS' %llu",
				 i, (unsigned long long)h[i],
				 (unsigned long long)b[i]);
			fz_check(h[i] >= s->hdr_cnt[i],
				 "header counter %d went back from %llu to %llu",
				 i, (unsigned long long)s->hdr_cnt[i],
				 (unsigned long long)h[i]);
			s->hdr_cnt[i] = h[i];
		}
	}
	if (s->prod_stale && st.received > s->prod_stale_recv)
		s->prod_stale = false;	/* the kernel wrote it since */
	s->st = st;
	s->have_st = true;
}

/* A few SOL_SOCKET options of the socket core on our socket. */
void fz_op_solsocket(struct fz_worker *w)
{
	struct fz_sock *s = fz_pick_sock(w);
	static const int setters[] = { SO_RCVBUF, SO_RCVBUFFORCE, SO_MARK,
		SO_PRIORITY, SO_RCVLOWAT, SO_TIMESTAMP, SO_BUSY_POLL,
		SO_PEEK_OFF, SO_BINDTOIFINDEX, SO_KEEPALIVE, SO_LINGER };
	int v = 0, err, name;
	socklen_t len = sizeof(v);

	if (!s)
		return;
	switch (fz_rnd(w, 4)) {
	case 0:
		err = getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &v, &len) ?
		      errno : 0;
		FZ_EXPECT(OP_SOLSOCKET, err, ("getsockopt(SO_ERROR)"), 0);
		fz_check(!v || v == ENODEV, "SO_ERROR reads %d", v);
		break;
	case 1:
		err = getsockopt(s->fd, SOL_SOCKET, SO_TYPE, &v, &len) ?
		      errno : 0;
		FZ_EXPECT(OP_SOLSOCKET, err, ("getsockopt(SO_TYPE)"), 0);
		fz_check(v == SOCK_RAW, "SO_TYPE reads %d", v);
		break;
	case 2:
		err = getsockopt(s->fd, SOL_SOCKET, SO_DOMAIN, &v, &len) ?
		      errno : 0;
		FZ_EXPECT(OP_SOLSOCKET, err, ("getsockopt(SO_DOMAIN)"), 0);
		fz_check(v == fz_family, "SO_DOMAIN reads %d", v);
		break;
	default:
		/* The core's own options: any of its errnos will do. */
		name = setters[fz_rnd(w, 11)];
		v = fz_chance(w, 50) ? (int)fz_rnd(w, 70000) :
				       (int)fz_rand(&w->rng);
		err = setsockopt(s->fd, SOL_SOCKET, name, &v, sizeof(v)) ?
		      errno : 0;
		FZ_EXPECT(OP_SOLSOCKET, err, ("setsockopt(SOL_SOCKET, %d)", name), 0,
			  EINVAL, EPERM, ENOPROTOOPT, EOPNOTSUPP, ENODEV,
			  EFAULT);
	}
}

void fz_op_bind(struct fz_worker *w)
{
	struct fz_sock *s = fz_pick_sock(w);
	struct sockaddr_storage ss;
	struct sockaddr_ringcap *a = (struct sockaddr_ringcap *)&ss;
	int len = sizeof(*a), set[20], n = 0, err, dev, idx, r;
	unsigned int queue, nq = 0;
	bool known = false;

	if (!s)
		return;
	memset(&ss, 0, sizeof(ss));
	idx = fz_pick_ifindex(w, &dev);
	r = fz_rnd(w, 100);
	queue = r < 40 ? RINGCAP_QUEUE_ANY : r < 70 ? 0 : r < 85 ? 1 :
		r < 95 ? 2 + fz_rnd(w, 3) : fz_rnd(w, 0x10000);
	a->rc_family = fz_family;
	a->rc_queue = queue;
	a->rc_ifindex = idx;
	r = fz_rnd(w, 100);
	if (r < 4)
		len = (int[]){ 0, 2, 4, 7 }[fz_rnd(w, 4)];
	else if (r < 6)
		len = fz_chance(w, 50) ? 16 : 128;
	else if (r < 9)
		a->rc_family = fz_chance(w, 50) ? AF_PACKET : fz_rand(&w->rng);
	if (a->rc_family == (uint16_t)fz_family && r >= 6 && r < 9)
		a->rc_family++;

	err = bind(s->fd, (struct sockaddr *)&ss, len) ? errno : 0;
	if (len < (int)sizeof(*a)) {
		FZ_EXPECT(OP_BIND, err, ("bind(addrlen %d)", len), EINVAL);
		return;
	}
	if (a->rc_family != fz_family) {
		FZ_EXPECT(OP_BIND, err, ("bind(family %u)", a->rc_family), EAFNOSUPPORT);
		return;
	}
	if ((s->bound || s->gone) && !s->shared) {
		FZ_EXPECT(OP_BIND, err, ("bind of a bound socket"), EBUSY);
		return;
	}
	if (s->shared || s->bound || s->gone)
		set[n++] = EBUSY;
	if (idx == 1) {
		known = true;
		nq = 1;
	} else if (dev >= 0 && w->devs[dev].gen == s->gen &&
		   w->devs[dev].alive) {
		known = true;
		nq = w->devs[dev].nq;
	}
	if (idx <= 0 || idx >= 1000000) {
		set[n++] = ENODEV;
	} else if (known && queue != RINGCAP_QUEUE_ANY && queue >= nq) {
		/* gone meanwhile (the supervisor unloads the sim) */
		set[n++] = ERANGE;
		set[n++] = ENODEV;
	} else {
		set[n++] = ENODEV;
		set[n++] = ENOMEM;
		set[n++] = ENOBUFS;
		if (!known && queue != RINGCAP_QUEUE_ANY && queue)
			set[n++] = ERANGE;
		/* members bound meanwhile, in any process, with another
		 * policy or queue */
		if (s->cluster || s->shared)
			set[n++] = EEXIST;
		/* a queue of a NIC another socket took for zero-copy */
		if (!known && queue != RINGCAP_QUEUE_ANY)
			set[n++] = EBUSY;
		if ((s->zerocopy && s->capture) || s->shared) {
			/*
			 * Zero-copy: the aware driver only (EOPNOTSUPP), one
			 * queue and no cluster (EINVAL), one socket a queue
			 * (EBUSY), up (ENETDOWN), and who may take a queue
			 * from the stack (EPERM).
			 */
			set[n++] = EOPNOTSUPP;
			set[n++] = EINVAL;
			set[n++] = EBUSY;
			set[n++] = ENETDOWN;
			set[n++] = EPERM;
			if (queue != RINGCAP_QUEUE_ANY && queue)
				set[n++] = ERANGE;
		}
		if (s->zerocopy && !s->capture)
			set[n++] = EINVAL;	/* zero-copy that captures nothing */
		if (s->shared || (!s->zerocopy ||
				  (s->capture && queue != RINGCAP_QUEUE_ANY)))
			set[n++] = 0;
	}
	set[n] = -1;
	FZ_EXPECTF(OP_BIND, err, set, "bind(ifindex %d%s, queue %u)", idx,
		   known ? "" : " (not ours)", queue);
	/*
	 * Refused after the rings were made (zero-copy, a cluster, a queue
	 * taken): the receive ring, and a transmit ring asked for, may exist.
	 */
	if (err && err != ENODEV && err != ERANGE) {
		if (!s->ring)
			s->ring = 1;
		if (s->tx_size && !s->tx)
			s->tx = 1;
	}
	if (err)
		return;
	s->bound = true;
	s->dev = known && idx != 1 ? dev : -1;
	s->ifindex = idx;
	s->queue = queue;
	s->ring = 2;
	if (s->tx_size)
		s->tx = 2;
}
