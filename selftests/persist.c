// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent rings (uapi "Persistent rings"): a ring bound with a name
 * outlives its reader, a new socket takes it over at the first record not
 * released, what it could not hold meanwhile is one gap, a reader
 * SIGKILLed under traffic loses and duplicates nothing, and every misuse
 * gets its errno: from root, and from users in a user namespace (another
 * user's name, too many rings, a name reused across devices).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include "kselftest_harness.h"
#include "rc_test.h"

#define RING	65536

FIXTURE(persist)
{
	struct rc_env env;
};

FIXTURE_SETUP(persist)
{
	RC_SETUP_SIM(&self->env);
}

FIXTURE_TEARDOWN(persist)
{
	/* Deleting the device deletes the rings nobody reads. */
	rc_teardown(&self->env);
}

static int set_name(int fd, int opt, const char *name)
{
	if (setsockopt(fd, SOL_RINGCAP, opt, name, strlen(name)))
		return -errno;
	return 0;
}

/* Its name, and a wake-up for every frame. */
static int named(int fd, const void *name)
{
	int err = set_name(fd, RINGCAP_PERSIST, name);

	return err ? err : rc_setopt(fd, RINGCAP_WATERMARK, 1);
}

/* A socket with a name, bound and mapped, reading gap records. */
static int open_named(struct rc_ring *r, const char *name, int ifindex,
		      unsigned int queue, uint32_t ring_size)
{
	int err = rc_open_bound_with(r, ifindex, queue, ring_size, named,
				     name);

	r->gaps = true;
	return err;
}

static int delete_ring(const char *name)
{
	int fd = rc_socket(), err;

	if (fd < 0)
		return fd;
	err = set_name(fd, RINGCAP_PERSIST_DELETE, name);
	close(fd);
	return err;
}

/* Is the ring there, and unclaimed (pid 0, inode 0)? */
static int unclaimed(const char *name)
{
	struct rc_proc_line l;
	int err = rc_proc_find_persist(name, &l);

	return err ? err : !l.pid && !l.inode;
}

TEST_F_TIMEOUT(persist, restart_resumes_at_first_unreleased, 120)
{
	struct rc_spec *a, *b;
	struct ringcap_stats st;
	struct rc_proc_line l;
	struct rc_ring r;
	struct rc_cap cap;
	unsigned int i;
	uint32_t v;

	a = rc_specs(NULL, 50, 0, 0, 21, 60);
	b = rc_specs(NULL, 50, 50, 0, 21, 60);
	ASSERT_EQ(0, open_named(&r, "p1", self->env.sim_idx,
				RINGCAP_QUEUE_ANY, RING));
	ASSERT_EQ(0, rc_getopt_u32(r.fd, RINGCAP_GAPS, &v));
	ASSERT_EQ(1, v);	/* a persistent ring keeps gap records */
	ASSERT_EQ(0, rc_proc_find_persist("p1", &l));
	ASSERT_EQ(getpid(), l.pid);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, a, 50));
	RC_WAIT_ACCOUNTED(r.fd, 50, &st);
	rc_cap_init(&cap, 100);
	ASSERT_EQ(20, rc_drain_max(&r, &cap, 20)) TH_LOG("%s", cap.why);
	rc_close(&r);

	/* Nobody reads: the ring stays bound and keeps capturing. */
	ASSERT_EQ(1, unclaimed("p1"));
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, b, 50));
	RC_WAIT_UNTIL(!rc_proc_find_persist("p1", &l) &&
		      l.received == 100, 10000);

	ASSERT_EQ(0, open_named(&r, "p1", self->env.sim_idx,
				RINGCAP_QUEUE_ANY, 0));
	ASSERT_EQ(RING, r.info.data_size);	/* the ring's, not a new one */
	ASSERT_EQ(0, rc_proc_find(r.fd, &l));
	ASSERT_EQ(getpid(), l.pid);
	ASSERT_STREQ("p1", l.persist);
	ASSERT_EQ(80, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	ASSERT_EQ(0, cap.bad) TH_LOG("%s", cap.why);
	ASSERT_EQ(0, cap.gaps);
	/* 0-19 read before, then 20-99 in order: nothing lost or twice */
	for (i = 0; i < 100; i++)
		ASSERT_EQ(i, cap.v[i].seq);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(100, st.received);
	ASSERT_EQ(0, st.dropped);

	/* Held by a reader: not deleted; once closed, deleted, and gone. */
	ASSERT_EQ(-EBUSY, delete_ring("p1"));
	rc_close(&r);
	ASSERT_EQ(0, delete_ring("p1"));
	ASSERT_EQ(-ENOENT, rc_proc_find_persist("p1", &l));
	ASSERT_EQ(-ENOENT, delete_ring("p1"));
	/* The name is free again: a new ring, counting from zero. */
	ASSERT_EQ(0, open_named(&r, "p1", self->env.sim_idx,
				RINGCAP_QUEUE_ANY, 0));
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(0, st.received);
	rc_close(&r);
	ASSERT_EQ(0, delete_ring("p1"));
	rc_cap_free(&cap);
	free(a);
	free(b);
}

/* What the ring could not hold while unclaimed is one gap, exact. */
TEST_F_TIMEOUT(persist, filled_meanwhile_is_one_gap, 120)
{
	struct rc_spec *burst, *tail;
	struct ringcap_stats st;
	struct rc_ring r;
	struct rc_cap cap;
	unsigned int i, holes = 0;

	burst = rc_specs(NULL, 300, 0, 0, 22, 60);
	tail = rc_specs(NULL, 3, 300, 0, 22, 60);
	ASSERT_EQ(0, open_named(&r, "p2", self->env.sim_idx,
				RINGCAP_QUEUE_ANY, 8192));
	rc_close(&r);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, burst, 300));
	ASSERT_EQ(0, open_named(&r, "p2", self->env.sim_idx,
				RINGCAP_QUEUE_ANY, 0));
	RC_WAIT_ACCOUNTED(r.fd, 300, &st);
	ASSERT_LT(200, st.dropped);
	rc_cap_init(&cap, 303);
	ASSERT_LT(0, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, tail, 3));
	RC_WAIT_ACCOUNTED(r.fd, 303, &st);
	ASSERT_EQ(3, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(st.received, cap.n);
	for (i = 0; i < cap.n; i++) {
		ASSERT_EQ(i ? cap.v[i].seq - cap.v[i - 1].seq - 1 : cap.v[i].seq,
			  cap.v[i].gap);
		holes += !!cap.v[i].gap;
	}
	ASSERT_EQ(1, holes);		/* one place, however many records */
	ASSERT_EQ(st.dropped, cap.gap_sum.ring_full);
	ASSERT_EQ(302, cap.v[cap.n - 1].seq);
	TH_LOG("%u frames kept, %llu lost in one gap of %u records", cap.n,
	       (unsigned long long)st.dropped, cap.gaps);
	rc_close(&r);
	ASSERT_EQ(0, delete_ring("p2"));
	rc_cap_free(&cap);
	free(burst);
	free(tail);
}

/*
 * The reader a child runs: each frame's sequence number and the ring
 * position just past it are stored in shared memory, then the frame is
 * released, one at a time, until it is killed.
 */
struct progress {
	_Atomic unsigned int n;
	struct { uint32_t seq; uint64_t end; } f[1024];
};

static void __attribute__((noreturn))
child_reader(struct rc_ring *r, struct progress *pg)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	const struct ringcap_rec *rec;
	const uint8_t *d;
	uint64_t prod;
	uint32_t off;

	for (;;) {
		poll(&p, 1, 10);
		prod = __atomic_load_n(&r->hdr->producer, __ATOMIC_ACQUIRE);
		while (r->cons < prod) {
			off = r->cons & (r->info.data_size - 1);
			rec = (const void *)(r->data + off);
			r->cons += rec->rec_len;
			if (!(rec->flags & (RINGCAP_REC_PAD | RINGCAP_REC_GAP))) {
				d = (const uint8_t *)(rec + 1);
				pg->f[pg->n].seq = (uint32_t)d[22] << 24 |
					d[23] << 16 | d[24] << 8 | d[25];
				pg->f[pg->n].end = r->cons;
				atomic_fetch_add(&pg->n, 1);
			}
			rc_release(r);
		}
	}
}

TEST_F_TIMEOUT(persist, sigkilled_reader_loses_and_doubles_nothing, 180)
{
	struct ringcap_stats st;
	struct progress *pg;
	struct rc_ring r;
	struct rc_cap cap;
	struct rc_spec *s;
	unsigned int i, kept = 0, batch;
	uint64_t cons;
	int ready[2], status;
	bool *seen;
	pid_t pid;
	char c;

	pg = mmap(NULL, sizeof(*pg), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, pg);
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(ready[0]);
		if (open_named(&r, "p3", self->env.sim_idx, RINGCAP_QUEUE_ANY,
			       RING))
			_exit(1);
		c = 1;
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		child_reader(&r, pg);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);

	/* 10 batches of 30; the reader is killed after the fourth. */
	s = rc_specs(NULL, 300, 0, 0, 23, 60);
	for (batch = 0; batch < 10; batch++) {
		ASSERT_EQ(0, rc_sim_inject(self->env.sim, s + batch * 30, 30));
		rc_sleep_us(20000);
		if (batch == 3) {
			kill(pid, SIGKILL);
			ASSERT_EQ(pid, waitpid(pid, &status, 0));
			ASSERT_TRUE(WIFSIGNALED(status));
			ASSERT_EQ(1, unclaimed("p3"));
		}
	}
	ASSERT_EQ(0, open_named(&r, "p3", self->env.sim_idx,
				RINGCAP_QUEUE_ANY, 0));
	RC_WAIT_ACCOUNTED(r.fd, 300, &st);
	cons = r.cons;		/* where the killed reader had released to */
	rc_cap_init(&cap, 300);
	ASSERT_LE(0, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(0, st.dropped);

	/* Released by the first reader, or read by the second: once each. */
	seen = calloc(300, sizeof(*seen));
	for (i = 0; i < pg->n; i++) {
		if (pg->f[i].end > cons)
			continue;	/* stored, not released: not its */
		ASSERT_FALSE(seen[pg->f[i].seq]);
		seen[pg->f[i].seq] = true;
		kept++;
	}
	for (i = 0; i < cap.n; i++) {
		ASSERT_FALSE(seen[cap.v[i].seq]) TH_LOG("seq %u twice",
							cap.v[i].seq);
		seen[cap.v[i].seq] = true;
	}
	for (i = 0; i < 300; i++)
		ASSERT_TRUE(seen[i]) TH_LOG("seq %u lost", i);
	TH_LOG("the killed reader released %u, the next read %u", kept, cap.n);
	ASSERT_LT(0, kept);
	ASSERT_LT(0, cap.n);
	rc_close(&r);
	ASSERT_EQ(0, delete_ring("p3"));
	rc_cap_free(&cap);
	free(seen);
	free(s);
	munmap(pg, sizeof(*pg));
}

/* Another thread's calls on the socket while it takes a ring over. */
struct hammer {
	int fd, ifindex;
	volatile bool stop;
	unsigned long calls;
	int binds;		/* its own binds that took the ring over */
};

static void *hammer_fn(void *arg)
{
	struct hammer *h = arg;
	struct pollfd p = { .fd = h->fd, .events = POLLIN };
	struct ringcap_stats st;
	socklen_t len;
	uint32_t v = 4;

	while (!h->stop) {
		len = sizeof(st);
		getsockopt(h->fd, SOL_RINGCAP, RINGCAP_STATS, &st, &len);
		setsockopt(h->fd, SOL_RINGCAP, RINGCAP_WATERMARK, &v, sizeof(v));
		/*
		 * The name again and a bind of its own, racing the main
		 * thread's: on the replaced sock both must be refused.
		 */
		setsockopt(h->fd, SOL_RINGCAP, RINGCAP_PERSIST, "p5", 2);
		h->binds += !rc_bind(h->fd, h->ifindex, RINGCAP_QUEUE_ANY);
		poll(&p, 1, 0);
		h->calls++;
	}
	return NULL;
}

/*
 * The takeover swaps the sock under the socket: a call that fetched the
 * old one must find it still there (KASAN on the debug kernel would say
 * otherwise), and the ring must come through whole.
 */
TEST_F_TIMEOUT(persist, takeover_under_concurrent_calls, 180)
{
	struct ringcap_stats st;
	struct hammer h;
	struct rc_ring r;
	unsigned long calls = 0;
	struct rc_proc_line l;
	pthread_t th;
	int i, fd, err;

	ASSERT_EQ(0, open_named(&r, "p5", self->env.sim_idx,
				RINGCAP_QUEUE_ANY, 0));
	rc_close(&r);
	for (i = 0; i < 50; i++) {
		fd = rc_socket();
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, set_name(fd, RINGCAP_PERSIST, "p5"));
		memset(&h, 0, sizeof(h));
		h.fd = fd;
		h.ifindex = self->env.sim_idx;
		ASSERT_EQ(0, pthread_create(&th, NULL, hammer_fn, &h));
		rc_sleep_us(1000 * (i % 3));
		err = rc_bind(fd, self->env.sim_idx, RINGCAP_QUEUE_ANY);
		rc_sleep_us(1000);
		h.stop = true;
		pthread_join(th, NULL);
		calls += h.calls;
		/* one bind of the two took it over; the other saw EBUSY */
		ASSERT_EQ(1, !err + h.binds) TH_LOG("main %d, other %d", err,
						    h.binds);
		ASSERT_EQ(0, rc_stats(fd, &st));
		close(fd);
		ASSERT_EQ(1, unclaimed("p5"));
	}
	TH_LOG("50 takeovers under %lu calls from another thread", calls);
	/* the replaced socks never became rings of their own */
	ASSERT_EQ(1, rc_proc_count());
	ASSERT_EQ(0, delete_ring("p5"));
	ASSERT_EQ(-ENOENT, rc_proc_find_persist("p5", &l));
}

/* CAP_NET_RAW alone, uid 0: the ring "e2" root bound is not to be had. */
static int child_no_net_admin(void *arg, char *why, size_t len)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { 0 };
	struct rc_ring r;
	int err;

	d[CAP_NET_RAW / 32].effective = d[CAP_NET_RAW / 32].permitted =
		1u << (CAP_NET_RAW % 32);
	if (syscall(SYS_capset, &h, d)) {
		snprintf(why, len, "capset: %s", strerror(errno));
		return 2;
	}
	err = open_named(&r, "e2", *(const int *)arg, RINGCAP_QUEUE_ANY, 0);
	if (err != -EPERM) {
		snprintf(why, len, "taking over e2 without CAP_NET_ADMIN: %s, expected EPERM",
			 strerror(-err));
		return 1;
	}
	return 0;
}

TEST_F(persist, misuse_gets_its_errno)
{
	char name[RINGCAP_PERSIST_NAME_MAX + 1];
	struct rc_proc_line l;
	struct rc_ring r, r2;
	struct sock_filter ins = BPF_STMT(BPF_RET | BPF_K, 0xffff);
	struct sock_fprog prog = { 1, &ins };
	socklen_t len = sizeof(name);
	char why[256];
	long timeout;
	char sim2[IFNAMSIZ];
	int fd, idx2;

	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(-EINVAL, set_name(fd, RINGCAP_PERSIST, ""));
	ASSERT_EQ(-EINVAL, set_name(fd, RINGCAP_PERSIST, "a b"));
	ASSERT_EQ(-EINVAL, set_name(fd, RINGCAP_PERSIST, "../x"));
	memset(name, 'a', sizeof(name));
	name[RINGCAP_PERSIST_NAME_MAX] = '\0';
	ASSERT_EQ(0, set_name(fd, RINGCAP_PERSIST, name));
	ASSERT_EQ(-EINVAL, setsockopt(fd, SOL_RINGCAP, RINGCAP_PERSIST,
				      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 33) ?
			   -errno : 0);
	ASSERT_EQ(-EINVAL, setsockopt(fd, SOL_RINGCAP, RINGCAP_PERSIST,
				      "a\0b", 3) ? -errno : 0);
	ASSERT_EQ(0, set_name(fd, RINGCAP_PERSIST, "x.y_z-1"));
	memset(name, 1, sizeof(name));
	ASSERT_EQ(0, getsockopt(fd, SOL_RINGCAP, RINGCAP_PERSIST, name, &len));
	ASSERT_EQ(RINGCAP_PERSIST_NAME_MAX, len);
	ASSERT_STREQ("x.y_z-1", name);
	/* not with a transmit ring, nor transmit only */
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_TX_RING_SIZE, 8192));
	ASSERT_EQ(-EINVAL, rc_bind(fd, self->env.sim_idx, RINGCAP_QUEUE_ANY));
	close(fd);
	fd = rc_socket();
	ASSERT_EQ(0, set_name(fd, RINGCAP_PERSIST, "e0"));
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_CAPTURE, 0));
	ASSERT_EQ(-EINVAL, rc_bind(fd, self->env.sim_idx, RINGCAP_QUEUE_ANY));
	close(fd);

	/* a reader has it: EBUSY, and the name is fixed once bound */
	ASSERT_EQ(0, open_named(&r, "e1", self->env.sim_idx,
				RINGCAP_QUEUE_ANY, 0));
	ASSERT_EQ(-EBUSY, set_name(r.fd, RINGCAP_PERSIST, "e9"));
	ASSERT_EQ(-EBUSY, open_named(&r2, "e1", self->env.sim_idx,
				     RINGCAP_QUEUE_ANY, 0));
	/* another device or queue: EEXIST, held or not */
	ASSERT_EQ(-EEXIST, open_named(&r2, "e1", self->env.sim_idx, 0, 0));
	ASSERT_EQ(-EEXIST, open_named(&r2, "e1", 1, RINGCAP_QUEUE_ANY, 0));
	rc_close(&r);
	ASSERT_EQ(-EEXIST, open_named(&r2, "e1", 1, RINGCAP_QUEUE_ANY, 0));
	/* a filter comes after the takeover, not with it */
	fd = rc_socket();
	ASSERT_EQ(0, set_name(fd, RINGCAP_PERSIST, "e1"));
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
				sizeof(prog)));
	ASSERT_EQ(-EINVAL, rc_bind(fd, self->env.sim_idx, RINGCAP_QUEUE_ANY));
	close(fd);
	ASSERT_EQ(0, delete_ring("e1"));

	/* root without CAP_NET_ADMIN may not take over a ring that steals */
	ASSERT_EQ(0, open_named(&r, "e2", self->env.sim_idx,
				RINGCAP_QUEUE_ANY, 0));
	rc_close(&r);
	ASSERT_EQ(0, rc_in_child(child_no_net_admin, &self->env.sim_idx, why,
				 sizeof(why)))
		TH_LOG("%s", why);
	ASSERT_EQ(0, delete_ring("e2"));

	/* deleted with its device */
	snprintf(sim2, sizeof(sim2), "rcsp%d", getpid());
	idx2 = rc_sim_create(sim2);
	ASSERT_LT(0, idx2);
	ASSERT_EQ(0, open_named(&r, "e3", idx2, RINGCAP_QUEUE_ANY, 0));
	rc_close(&r);
	ASSERT_EQ(1, unclaimed("e3"));
	ASSERT_EQ(0, rc_link_del(sim2));
	ASSERT_EQ(-ENOENT, rc_proc_find_persist("e3", &l));
	ASSERT_EQ(-ENOENT, delete_ring("e3"));

	/* unclaimed past persist_timeout: deleted */
	timeout = rc_param_get("persist_timeout");
	ASSERT_EQ(0, rc_param_set("persist_timeout", 1));
	ASSERT_EQ(0, open_named(&r, "e4", self->env.sim_idx,
				RINGCAP_QUEUE_ANY, 0));
	rc_close(&r);
	RC_WAIT_UNTIL(rc_proc_find_persist("e4", &l) == -ENOENT, 10000);
	ASSERT_EQ(0, rc_param_set("persist_timeout", timeout));
}

/* ---- in a user namespace ------------------------------------------------ */

#define BASE_UID	200000	/* what the namespace's uids 0 and 1 are */

/* Raise the effective capability @cap from the permitted set. */
static int cap_raise(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[cap / 32].effective |= 1u << (cap % 32);
	return syscall(SYS_capset, &h, d);
}

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		snprintf(why, len, __VA_ARGS__);			\
		return 1;						\
	}								\
} while (0)

/*
 * In a user namespace whose uids 0 and 1 are BASE_UID and BASE_UID + 1
 * (the parent mapped them), with its own network namespace: ns-root may
 * hold max_persist rings (2 here) and no more, and cannot reuse a name
 * on another device; ns-uid 1, with CAP_NET_RAW alone, can neither take
 * over nor delete ns-root's ring.
 */
/* ns-uid 1, with CAP_NET_RAW alone: ns-root's ring is not its own. */
static int other_user(char *why, size_t len)
{
	struct rc_ring r;
	int err, lo = 1;

	CHECK(!prctl(PR_SET_KEEPCAPS, 1) && !setresuid(1, 1, 1) &&
	      !cap_raise(CAP_NET_RAW), "becoming ns-uid 1 with CAP_NET_RAW: %s",
	      strerror(errno));
	err = open_named(&r, "u1", lo, RINGCAP_QUEUE_ANY, 0);
	CHECK(err == -EACCES, "ns-uid 1 taking ns-root's ring: %s, expected EACCES",
	      strerror(-err));
	err = delete_ring("u1");
	CHECK(err == -EACCES, "ns-uid 1 deleting ns-root's ring: %s, expected EACCES",
	      strerror(-err));
	/* its own, under its own allowance */
	CHECK(!open_named(&r, "w1", lo, RINGCAP_QUEUE_ANY, 0), "ns-uid 1's w1");
	rc_close(&r);
	CHECK(!delete_ring("w1"), "ns-uid 1 deleting w1");
	return 0;
}

/*
 * In a user namespace whose uids 0 and 1 are BASE_UID and BASE_UID + 1
 * (the parent mapped them), with its own network namespace: ns-root may
 * hold max_persist rings (2 here) and no more, and cannot reuse a name
 * on another device; ns-uid 1 (other_user(), in a child) can neither
 * take over nor delete ns-root's ring.
 */
static int userns_child(char *why, size_t len)
{
	struct rc_ring r;
	int err, lo = 1, va, vb, status;
	pid_t pid;

	CHECK(!setresgid(0, 0, 0) && !setresuid(0, 0, 0),
	      "becoming ns-root: %s", strerror(errno));

	/* too many rings: the allowance is per user, held or unclaimed */
	CHECK(!open_named(&r, "u1", lo, RINGCAP_QUEUE_ANY, 0), "u1");
	rc_close(&r);
	CHECK(!open_named(&r, "u2", lo, RINGCAP_QUEUE_ANY, 0), "u2");
	rc_close(&r);
	err = open_named(&r, "u3", lo, RINGCAP_QUEUE_ANY, 0);
	CHECK(err == -EDQUOT, "a third ring of max_persist 2: %s, expected EDQUOT",
	      strerror(-err));
	CHECK(!delete_ring("u2"), "deleting u2");
	CHECK(!open_named(&r, "u3", lo, RINGCAP_QUEUE_ANY, 0),
	      "u3 once u2 is deleted");
	rc_close(&r);
	CHECK(!delete_ring("u3"), "deleting u3");

	/* a name reused across devices */
	CHECK(!rc_sh("ip link add rcpa type veth peer name rcpb"),
	      "a veth pair in the user's namespace");
	va = if_nametoindex("rcpa");
	vb = if_nametoindex("rcpb");
	err = open_named(&r, "v1", va, RINGCAP_QUEUE_ANY, 0);
	CHECK(!err, "v1 on rcpa: %s", strerror(-err));
	rc_close(&r);
	err = open_named(&r, "v1", vb, RINGCAP_QUEUE_ANY, 0);
	CHECK(err == -EEXIST, "v1 on rcpb: %s, expected EEXIST",
	      strerror(-err));
	CHECK(!delete_ring("v1"), "deleting v1");

	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid)
		_exit(other_user(why, len));
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status),
	      "ns-uid 1's checks died");
	return WEXITSTATUS(status);
}

TEST(userns_misuse_gets_its_errno)
{
	int go[2], unshared[2], status, ret;
	char why[256] = "", path[64], *shared, c;
	long max;
	pid_t pid;

	RC_REQUIRE(false);
	rc_sh("modprobe -q veth");
	max = rc_param_get("max_persist");
	ASSERT_EQ(0, rc_param_set("max_persist", 2));
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shared);
	shared[0] = '\0';
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(unshared));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(go[1]);
		close(unshared[0]);
		c = unshare(CLONE_NEWUSER | CLONE_NEWNET) ? 's' : 'u';
		if (c == 's')
			snprintf(shared, 4096, "unshare(user, net): %s",
				 strerror(errno));
		if (write(unshared[1], &c, 1) != 1 || c == 's')
			_exit(KSFT_SKIP);
		if (read(go[0], &c, 1) != 1) {
			snprintf(shared, 4096, "the parent mapped no uids");
			_exit(1);
		}
		ret = userns_child(shared, 4096);
		/* ns-root's rings, whatever the checks left */
		delete_ring("u1");
		delete_ring("u2");
		delete_ring("u3");
		delete_ring("v1");
		_exit(ret);
	}
	close(go[0]);
	close(unshared[1]);
	ret = read(unshared[0], &c, 1) == 1 && c == 'u' ? 0 : -1;
	if (!ret) {
		/* Give the child's namespace two uids and gids of its own. */
		snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
		ret = rc_sh("echo '0 %d 2' >%s", BASE_UID, path);
		snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
		ret |= rc_sh("echo '0 %d 2' >%s", BASE_UID, path);
		if (!ret && write(go[1], "g", 1) != 1)
			ret = -1;
	}
	close(go[1]);
	close(unshared[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	snprintf(why, sizeof(why), "%s", shared);
	munmap(shared, 4096);
	rc_param_set("max_persist", max);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == KSFT_SKIP)
		RC_SKIP_OR_FAIL("%s", why);
	ASSERT_EQ(0, ret) TH_LOG("writing the child's uid_map and gid_map");
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("%s", why);
}

TEST_HARNESS_MAIN
