// SPDX-License-Identifier: GPL-2.0
/*
 * The wake-up policy: a reader asleep in poll() is woken once N frames
 * have arrived since the last signal, or m microseconds after the first
 * unsignalled frame; a reader that is not asleep is never woken. Counted
 * in stats.wakeups (and wakeups_timer for the timer's share).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"
#include "rc_test.h"

FIXTURE(wake)
{
	struct rc_env env;
	long wm_saved, to_saved;
};

FIXTURE_SETUP(wake)
{
	RC_SETUP_SIM(&self->env);
	self->wm_saved = rc_param_get("watermark");
	self->to_saved = rc_param_get("timeout_us");
	/* the aware path delivers inside the inject write: no softirq lag */
	RC_SET_MODE(1);
}

FIXTURE_TEARDOWN(wake)
{
	if (self->wm_saved > 0)
		rc_param_set("watermark", self->wm_saved);
	if (self->to_saved >= 0)
		rc_param_set("timeout_us", self->to_saved);
	rc_teardown(&self->env);
}

/* A reader thread: poll, drain, repeat, until it has seen `want` frames. */
struct reader {
	struct rc_ring *r;
	struct rc_cap cap;
	unsigned int want;
	int poll_ms;
	pid_t tid;
	volatile unsigned int seen;	/* frames read so far */
	volatile unsigned int polls;	/* poll() calls that returned > 0 */
	volatile short last_revents;
	volatile int err;
};

static void *reader_fn(void *arg)
{
	struct reader *rd = arg;
	struct pollfd p = { .fd = rd->r->fd, .events = POLLIN };
	int n;

	rd->tid = syscall(SYS_gettid);
	while (rd->seen < rd->want && !rd->err) {
		n = poll(&p, 1, rd->poll_ms);
		if (n < 0) {
			rd->err = -errno;
			break;
		}
		if (n == 0) {
			rd->err = -ETIMEDOUT;
			break;
		}
		rd->polls++;
		rd->last_revents = p.revents;
		n = rc_drain(rd->r, &rd->cap);
		if (n < 0) {
			rd->err = n;
			break;
		}
		__atomic_store_n(&rd->seen, rd->cap.n, __ATOMIC_RELEASE);
	}
	return NULL;
}

static bool reader_asleep(struct reader *rd)
{
	pid_t tid = __atomic_load_n(&rd->tid, __ATOMIC_ACQUIRE);

	return tid && rc_task_in_poll(tid);
}

/* Start a reader on r for its `want` frames. */
static int reader_start(struct reader *rd, struct rc_ring *r, pthread_t *th)
{
	rd->r = r;
	rc_cap_init(&rd->cap, rd->want);
	return pthread_create(th, NULL, reader_fn, rd);
}

/* A ring on ifindex with the wake-up policy: N frames or m microseconds. */
static int open_policy(struct rc_ring *r, int ifindex, uint32_t bytes,
		       uint32_t n, uint32_t m_us)
{
	int err = rc_open_bound(r, ifindex, RINGCAP_QUEUE_ANY, bytes);

	if (err)
		return err;
	err = rc_setopt(r->fd, RINGCAP_WATERMARK, n);
	if (!err)
		err = rc_setopt(r->fd, RINGCAP_TIMEOUT_US, m_us);
	if (err)
		rc_close(r);
	return err;
}

TEST_F_TIMEOUT(wake, watermark_64_wakes_at_most_100_times_for_6400, 300)
{
	struct reader rd = { .want = 6400, .poll_ms = 20000 };
	struct ringcap_stats st;
	struct rc_spec *specs;
	struct rc_ring r;
	pthread_t th;

	specs = rc_specs(NULL, 6400, 0, 0, 20, 60);
	ASSERT_EQ(0, open_policy(&r, self->env.sim_idx, 1 << 20, 64,
				  RINGCAP_TIMEOUT_US_MAX));
	ASSERT_EQ(0, reader_start(&rd, &r, &th));
	ASSERT_TRUE(RC_WAIT_UNTIL(reader_asleep(&rd), 10000));
	/* 6400 frames of 60 bytes, 665600 bytes of ring: no drops */
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs, 6400));
	pthread_join(th, NULL);
	ASSERT_EQ(0, rd.err) TH_LOG("reader: %s (%u frames seen)",
				    strerror(-rd.err), rd.seen);
	RC_EXPECT_FRAMES(&rd.cap, specs, 6400, self->env.sim_idx,
			 RINGCAP_SNAPLEN_MAX, 0, 0);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(6400, st.received);
	ASSERT_EQ(0, st.dropped);
	ASSERT_LT(0, st.wakeups);
	ASSERT_GE(100, st.wakeups) TH_LOG("%llu wake-ups for 6400 frames",
					  (unsigned long long)st.wakeups);
	ASSERT_EQ(0, st.wakeups_timer);
	ASSERT_EQ(st.wakeups, r.hdr->wakeups);
	rc_close(&r);
	rc_cap_free(&rd.cap);
	free(specs);
}

TEST_F_TIMEOUT(wake, watermark_1_wakes_for_every_frame, 300)
{
	struct reader rd = { .want = 100, .poll_ms = 20000 };
	struct ringcap_stats st;
	struct rc_spec *specs;
	struct rc_ring r;
	pthread_t th;
	unsigned int i;

	specs = rc_specs(NULL, 100, 0, 0, 21, RC_LEN_VARIED);
	ASSERT_EQ(0, open_policy(&r, self->env.sim_idx, 1 << 20, 1, 0));
	ASSERT_EQ(0, reader_start(&rd, &r, &th));
	for (i = 0; i < 100; i++) {
		/* the reader took frame i-1 and is back asleep in poll() */
		ASSERT_TRUE(RC_WAIT_UNTIL(rd.seen == i && reader_asleep(&rd),
					  10000))
			TH_LOG("frame %u: reader saw %u, err %d", i, rd.seen,
			       rd.err);
		ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs + i, 1));
	}
	pthread_join(th, NULL);
	ASSERT_EQ(0, rd.err);
	RC_EXPECT_FRAMES(&rd.cap, specs, 100, self->env.sim_idx,
			 RINGCAP_SNAPLEN_MAX, 0, 0);
	ASSERT_EQ(100, rd.polls);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(100, st.received);
	ASSERT_EQ(100, st.wakeups);
	ASSERT_EQ(0, st.wakeups_timer);
	rc_close(&r);
	rc_cap_free(&rd.cap);
	free(specs);
}

TEST_F_TIMEOUT(wake, timer_delivers_a_single_frame, 120)
{
	struct reader rd = { .want = 1, .poll_ms = 20000 };
	struct ringcap_stats st;
	struct rc_spec *specs;
	struct rc_ring r;
	pthread_t th;

	specs = rc_specs(NULL, 1, 0, 0, 22, 60);
	ASSERT_EQ(0, open_policy(&r, self->env.sim_idx, 0, 1000000, 2000));
	ASSERT_EQ(0, reader_start(&rd, &r, &th));
	ASSERT_TRUE(RC_WAIT_UNTIL(reader_asleep(&rd), 10000));
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs, 1));
	pthread_join(th, NULL);
	ASSERT_EQ(0, rd.err) TH_LOG("reader: %s", strerror(-rd.err));
	ASSERT_EQ(POLLIN, rd.last_revents & (POLLIN | POLLERR));
	RC_EXPECT_FRAMES(&rd.cap, specs, 1, self->env.sim_idx,
			 RINGCAP_SNAPLEN_MAX, 0, 0);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(1, st.received);
	ASSERT_EQ(1, st.wakeups);
	ASSERT_EQ(1, st.wakeups_timer);
	rc_close(&r);
	rc_cap_free(&rd.cap);
	free(specs);
}

/* Nobody in poll(): 640 frames, 10 watermark signals, no wake-up. */
TEST_F(wake, reader_not_sleeping_is_never_woken)
{
	struct ringcap_stats st;
	struct rc_spec *specs;
	struct rc_ring r;
	struct pollfd p;

	specs = rc_specs(NULL, 640, 0, 0, 23, 60);
	ASSERT_EQ(0, open_policy(&r, self->env.sim_idx, 0, 64, 0));
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs, 640));
	RC_WAIT_ACCOUNTED(r.fd, 640, &st);
	ASSERT_EQ(640, st.received);
	ASSERT_EQ(0, st.wakeups);
	/* but the frames are signalled: poll() finds them ready */
	p.fd = r.fd;
	p.events = POLLIN;
	ASSERT_EQ(1, poll(&p, 1, 0));
	ASSERT_EQ(POLLIN, p.revents & (POLLIN | POLLERR));
	rc_close(&r);
	free(specs);
}

/* Below N and without a timer, frames wait unsignalled. */
TEST_F(wake, below_watermark_without_timer_not_ready)
{
	struct ringcap_stats st;
	struct rc_spec *specs;
	struct rc_ring r;
	struct pollfd p;

	specs = rc_specs(NULL, 65, 0, 0, 24, 60);
	ASSERT_EQ(0, open_policy(&r, self->env.sim_idx, 0, 64, 0));
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs, 63));
	RC_WAIT_ACCOUNTED(r.fd, 63, &st);
	p.fd = r.fd;
	p.events = POLLIN;
	ASSERT_EQ(0, poll(&p, 1, 0));
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs + 63, 1));
	RC_WAIT_ACCOUNTED(r.fd, 64, &st);
	ASSERT_EQ(1, poll(&p, 1, 0));
	ASSERT_EQ(POLLIN, p.revents);
	rc_close(&r);
	free(specs);
}

TEST_F(wake, defaults_come_from_module_parameters)
{
	uint32_t v;
	int fd;

	ASSERT_EQ(0, rc_param_set("watermark", 7));
	ASSERT_EQ(0, rc_param_set("timeout_us", 1234));
	ASSERT_EQ(-EINVAL, rc_param_set("watermark", 0));
	ASSERT_EQ(-EINVAL, rc_param_set("timeout_us", 10000001));
	ASSERT_EQ(7, rc_param_get("watermark"));
	ASSERT_EQ(1234, rc_param_get("timeout_us"));
	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_WATERMARK, &v));
	ASSERT_EQ(7, v);
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_TIMEOUT_US, &v));
	ASSERT_EQ(1234, v);
	close(fd);
}

TEST_HARNESS_MAIN
