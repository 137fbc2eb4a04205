/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rcfuzz: random and hostile use of ringcap's whole user API by several
 * processes at once, under traffic, checking cheap invariants as it goes.
 * See rcfuzz.c for the process layout and the README-style summary.
 *
 * Every process shares one struct fz_shared (an anonymous MAP_SHARED
 * page set mapped before the first fork), so counts and failures from
 * workers, their fork children and the supervisor end up in one place.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/ringcap.h>

#define FZ_MAX_WORKERS	8
#define FZ_MAX_SOCKS	12
#define FZ_MAX_MAPS	3
#define FZ_MAX_DEVS	8
#define FZ_MAX_GENS	4
#define FZ_MAX_ORPHANS	6
#define FZ_PAGE		4096u
/* Ring sizes the workers ask for stay small: the guest has 2 GiB. */
#define FZ_RING_MAX	(4u << 20)
#define FZ_TRAFFIC_RUN	200
#define FZ_SEQ_BITS	(1u << 20)	/* duplicate check window */

/* Operation kinds, counted separately in the summary. */
enum fz_op {
	OP_SOCKET, OP_CLOSE, OP_SETSOCKOPT, OP_GETSOCKOPT, OP_SOLSOCKET,
	OP_BIND, OP_MMAP, OP_MUNMAP, OP_MREMAP, OP_HDR_WRITE, OP_DATA_WRITE,
	OP_READ, OP_POLL, OP_EPOLL, OP_FILTER_ATTACH, OP_FILTER_DETACH,
	OP_FILTER_OTHER, OP_FORK, OP_CHILD_OP, OP_UNSHARE, OP_SETNS,
	OP_CAPDROP, OP_USERNS, OP_DEV_CREATE, OP_DEV_DELETE, OP_LINK_FLAP,
	OP_INJECT, OP_SIM_KNOB, OP_SEND, OP_PARAM, OP_RMMOD, OP_SIM_RELOAD, OP_PROC,
	OP_TRAFFIC,
	OP_TX, OP_TX_MMAP, OP_TX_KICK, OP_DEV_FLAP, OP_ZEROCOPY, OP_ZC_MMAP,
	OP_ZC_READ, OP_ZC_RACE, OP_CLUSTER, OP_XDP_LINK,
	OP_MAX
};

/* Socket option numbers counted by name, set and get (RINGCAP_TX_STATS). */
#define FZ_OPT_MAX	(RINGCAP_TX_STATS + 1)

struct fz_shared {
	volatile int stop;
	uint64_t seed;
	uint64_t ops[OP_MAX];		/* calls made */
	uint64_t errs[OP_MAX];		/* of those, documented failures */
	uint64_t checks;		/* invariant checks made */
	uint64_t fails;			/* invariant failures */
	uint64_t bad_errno;		/* errnos outside the documented set */
	uint64_t rmmod_refused;
	uint64_t records;		/* ring records checked */
	uint64_t frames_checked;	/* test frames compared byte by byte */
	uint64_t skipped[OP_MAX];	/* not possible here (e.g. no userns) */
	uint64_t zc_binds[4];		/* 82574L: bound, EBUSY, down/gone, other */
	uint64_t opt_set[FZ_OPT_MAX];	/* well-formed calls by option */
	uint64_t opt_get[FZ_OPT_MAX];
	unsigned int dev_seq;		/* numbers every device name, once */
	char first_fail[256];
	int first_fail_set;
};

/* One device a worker made, in one of its network namespaces. */
struct fz_dev {
	char name[16];
	int ifindex;
	int gen;		/* which of the worker's netns */
	int nq;			/* RX queues ringcap sees */
	bool sim;
	int peer;		/* veth: the other end's slot, else -1 */
	int pkt_fd;		/* AF_PACKET socket to send on (veth end a) */
	bool alive;
};

struct fz_map {
	void *p;
	size_t len;
	bool whole;		/* the whole ring, from offset 0 */
	bool writable;
	size_t hole;		/* 1 + offset of a page unmapped, or 0 */
};

/* A ringcap socket and what the worker knows about it. */
struct fz_sock {
	int fd;
	int gen;		/* netns it was created in */
	/* model: reliable only while no fork child could have changed it */
	bool shared;
	bool bound, gone;
	bool cluster;		/* joined a cluster (id != 0) for its bind */
	int dev;		/* slot in devs[] or -1 (foreign device) */
	int ifindex;
	int queue;
	bool must_be_gone;	/* we deleted its device ourselves */
	int ring;		/* 0 none, 1 maybe, 2 yes */
	uint32_t ring_size, snaplen, watermark, timeout_us, promisc;
	uint32_t zerocopy, capture, tx_size;	/* as set (0/1, bytes) */
	uint32_t gaps;				/* as set (0/1) */
	uint32_t cutoff;			/* as set (bytes, 0: none) */
	int tx;			/* transmit ring: 0 none, 1 maybe, 2 yes */
	bool snaplen_set;	/* else it follows the ring size */
	uint32_t max_snaplen;	/* largest snaplen it ever had */
	int filter;		/* 0 none, 1 attached, -1 unknown */
	uint32_t filter_len;
	bool locked;
	/* RING_INFO as first seen: kernel constants, never to change */
	struct ringcap_ring_info info;
	bool have_info;
	/* STATS and header counters as last seen, for monotonicity */
	struct ringcap_stats st;
	bool have_st;
	uint64_t hdr_cnt[4];	/* received, dropped, filtered, wakeups */
	bool hdr_cnt_ok;	/* no one wrote those header fields */
	/* the reader's view */
	struct fz_map maps[FZ_MAX_MAPS];
	uint64_t cons;		/* our consumer position */
	uint64_t last_prod;
	bool walk_ok;		/* consumer and records are ours to trust */
	bool prod_stale;	/* someone wrote hdr->producer */
	uint64_t prod_stale_recv;	/* STATS.received when they did */
	bool cons_ever_bad;	/* consumer was ever invalid */
	bool desc_dirty;	/* someone wrote the read-only header part */
	bool vandal;		/* a fork child that may write it is alive */
	/* test frames seen, by sequence number: ours, the traffic process' */
	uint8_t *seen[2];
};

struct fz_worker {
	int id;
	uint64_t rng;
	int gen, ngens;
	int netns_fd[FZ_MAX_GENS];
	int ctl_fd[FZ_MAX_GENS];	/* for SIOCSIFFLAGS in that netns */
	struct fz_sock socks[FZ_MAX_SOCKS];
	int nsocks;
	struct fz_dev devs[FZ_MAX_DEVS];
	struct fz_map orphans[FZ_MAX_ORPHANS];
	int epfd;
	int children;
	int vandals;		/* live fork children that may write */
	int unshares;
	uint32_t frame_seq;
	uint8_t run;		/* marks our test frames: id, 100 + id in children */
	bool child;		/* a fork child: models are off */
	bool init_netns;	/* worker 0: sees the guest's NICs */
};

extern struct fz_shared *fz;
extern int fz_family;
extern const char *fz_sim_ko;
extern int fz_verbose;

/* xorshift64*: one stream per process, seeded from the run's seed. */
static inline uint64_t fz_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static inline uint32_t fz_rnd(struct fz_worker *w, uint32_t n)
{
	return n ? fz_rand(&w->rng) % n : 0;
}

/* true with probability pct percent */
static inline bool fz_chance(struct fz_worker *w, unsigned int pct)
{
	return fz_rnd(w, 100) < pct;
}

uint64_t fz_seed_mix(uint64_t seed, uint64_t a, uint64_t b);

/* Count one call of kind op that ended with err (0 or an errno). */
void fz_count(enum fz_op op, int err);
/* Count a SOL_RINGCAP option reached, by number, set or get. */
void fz_count_opt(bool set, int name);
/* An invariant check: cond must hold, else the failure is reported. */
bool fz_check(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fz_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * err must be one of the listed values (0 = success): the errnos that
 * docs/CONTRACTS.md and the module document for the call. Anything
 * else is reported with the call's description.
 */
bool fz_expect_set(enum fz_op op, int err, const int *set, const char *fmt,
		   ...) __attribute__((format(printf, 4, 5)));
#define FZ_UNPAREN(...) __VA_ARGS__
/* FZ_EXPECT(op, err, ("desc %d", x), allowed...) */
#define FZ_EXPECT(op, err, desc, set...) ({				\
	static const int __set[] = { set, -1 };				\
	fz_expect_set(op, err, __set, FZ_UNPAREN desc);			\
})
#define FZ_EXPECTF(op, err, set, fmt, ...) ({				\
	fz_expect_set(op, err, set, fmt, __VA_ARGS__);			\
})

const char *fz_op_name(enum fz_op op);

/* sock.c: socket calls, options, bind */
void fz_op_socket(struct fz_worker *w);
void fz_op_close(struct fz_worker *w);
void fz_op_setsockopt(struct fz_worker *w);
void fz_op_getsockopt(struct fz_worker *w);
void fz_op_solsocket(struct fz_worker *w);
void fz_op_bind(struct fz_worker *w);
void fz_sock_check_stats(struct fz_worker *w, struct fz_sock *s);
struct fz_sock *fz_pick_sock(struct fz_worker *w);
int fz_ring_info(struct fz_sock *s, struct ringcap_ring_info *info);
void fz_sock_forget(struct fz_worker *w, int i);

/* map.c: mapping, header and data writes, reading, poll */
void fz_op_mmap(struct fz_worker *w);
void fz_op_munmap(struct fz_worker *w);
void fz_op_mremap(struct fz_worker *w);
void fz_op_hdr_write(struct fz_worker *w);
void fz_op_data_write(struct fz_worker *w);
void fz_op_read(struct fz_worker *w);
void fz_op_poll(struct fz_worker *w);
void fz_op_epoll(struct fz_worker *w);
struct fz_map *fz_main_map(struct fz_sock *s);
void fz_unmap_all(struct fz_worker *w, struct fz_sock *s, bool orphan);

/* filter.c: classic BPF */
void fz_op_filter_attach(struct fz_worker *w);
void fz_op_filter_detach(struct fz_worker *w);
void fz_op_filter_other(struct fz_worker *w);

/* proc.c: fork, namespaces, capabilities */
void fz_op_fork(struct fz_worker *w);
void fz_op_unshare(struct fz_worker *w);
void fz_op_setns(struct fz_worker *w);
void fz_op_capdrop(struct fz_worker *w);
void fz_op_userns(struct fz_worker *w);
void fz_reap(struct fz_worker *w, bool block);
int fz_session_netns(struct fz_worker *w, int g);

/* dev.c: devices and traffic of a worker */
int fz_dev_setup(struct fz_worker *w);
void fz_op_dev_create(struct fz_worker *w);
void fz_op_dev_delete(struct fz_worker *w);
void fz_op_link_flap(struct fz_worker *w);
void fz_op_inject(struct fz_worker *w);
void fz_op_sim_knob(struct fz_worker *w);
void fz_op_send(struct fz_worker *w);
int fz_pick_ifindex(struct fz_worker *w, int *dev);
void fz_dev_cleanup(struct fz_worker *w);
void fz_ipv6_off(const char *dev);

/* nl.c: rtnetlink, without ip(8); 0 or -errno */
int fz_nl_veth(const char *a, const char *b);
int fz_nl_add(const char *name, const char *kind);
int fz_nl_del(const char *name);

/* super.c: supervisor (parameters, rmmod, sim reload) and traffic */
void fz_supervise_init(void);
void fz_supervise_step(struct fz_worker *w);
void fz_supervise_restore(void);
void fz_traffic(struct fz_worker *w, uint64_t deadline_ns);

/* dev.c: a pair of the worker's own, for one session, and its state */
int fz_session_veth(struct fz_worker *w, char *a, char *b);
int fz_set_updown(struct fz_worker *w, const char *name, bool up);

/* tx.c: the transmit ring and RINGCAP_CAPTURE */
void fz_op_tx(struct fz_worker *w);
/* zc.c: zero-copy sockets on the 82574Ls (worker 0) */
void fz_op_zerocopy(struct fz_worker *w);
/* cluster.c: joins with valid, conflicting and garbage ids and policies */
void fz_op_cluster(struct fz_worker *w);
/* xdp.c: RINGCAP_XDP_LINK with links of libringcap's program */
void fz_op_xdp_link(struct fz_worker *w);

/* the worker's op loop, also used by fork children with a subset */
void fz_worker_ops(struct fz_worker *w, uint64_t deadline_ns, long max_ops);

#endif /* FUZZ_H */
