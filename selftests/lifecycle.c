// SPDX-License-Identifier: GPL-2.0
/*
 * A bound device goes away: the socket keeps its ring and counters, a
 * reader asleep in poll() wakes with POLLERR, SO_ERROR reads ENODEV,
 * /proc/net/ringcap says `gone`, and nothing crashes. (Loading and
 * unloading the module is in lifecycle.sh.)
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"
#include "rc_test.h"

FIXTURE(gone)
{
	struct rc_env env;
};

FIXTURE_VARIANT(gone)
{
	bool sim;
	int mode;
};

FIXTURE_VARIANT_ADD(gone, veth) { .sim = false, .mode = -1 };
FIXTURE_VARIANT_ADD(gone, sim_mode0) { .sim = true, .mode = 0 };
FIXTURE_VARIANT_ADD(gone, sim_mode1) { .sim = true, .mode = 1 };
FIXTURE_VARIANT_ADD(gone, sim_mode2) { .sim = true, .mode = 2 };

FIXTURE_SETUP(gone)
{
	if (variant->sim) {
		RC_SETUP_SIM(&self->env);
		RC_SET_MODE(variant->mode);
	} else {
		RC_SETUP_VETH(&self->env);
	}
}

FIXTURE_TEARDOWN(gone)
{
	rc_teardown(&self->env);
}

struct sleeper {
	int fd;
	pid_t tid;
	int ret;
	short revents;
};

static void *sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	struct pollfd p = { .fd = s->fd, .events = POLLIN };

	__atomic_store_n(&s->tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	s->ret = poll(&p, 1, 30000);
	s->revents = p.revents;
	return NULL;
}

static int send_frames(FIXTURE_DATA(gone) *self, const struct rc_spec *s,
		       unsigned int n)
{
	int fd, err;

	if (self->env.sim[0])
		return rc_sim_inject(self->env.sim, s, n);
	fd = rc_packet_open(self->env.va_idx);
	if (fd < 0)
		return fd;
	err = rc_packet_send(fd, self->env.va_idx, s, n);
	close(fd);
	return err;
}

TEST_F_TIMEOUT(gone, device_deleted_while_bound, 120)
{
	const char *dev = self->env.sim[0] ? self->env.sim : self->env.vb;
	int idx = self->env.sim[0] ? self->env.sim_idx : self->env.vb_idx;
	struct rc_spec *specs = rc_specs(NULL, 17, 0, 0, 40, RC_LEN_VARIED);
	struct sleeper s = {};
	struct rc_proc_line l;
	struct ringcap_stats st;
	socklen_t len = sizeof(int);
	struct rc_ring r;
	struct rc_cap cap;
	pthread_t th;
	int soerr;
	uint32_t v;

	ASSERT_EQ(0, rc_open_bound(&r, idx, RINGCAP_QUEUE_ANY, 0));
	/* frames that stay unsignalled until the device goes */
	ASSERT_EQ(0, rc_setopt(r.fd, RINGCAP_WATERMARK, 1000));
	ASSERT_EQ(0, rc_setopt(r.fd, RINGCAP_TIMEOUT_US, 0));
	ASSERT_EQ(0, send_frames(self, specs, 17));
	RC_WAIT_ACCOUNTED(r.fd, 17, &st);
	ASSERT_EQ(17, st.received);
	ASSERT_EQ(0, rc_proc_find(r.fd, &l));
	ASSERT_STREQ(dev, l.device);

	s.fd = r.fd;
	ASSERT_EQ(0, pthread_create(&th, NULL, sleeper_fn, &s));
	ASSERT_TRUE(RC_WAIT_UNTIL(s.tid && rc_task_in_poll(s.tid), 10000));
	/* deleting the sim device, or either end of the veth pair */
	ASSERT_EQ(0, rc_link_del(self->env.sim[0] ? self->env.sim
						  : self->env.va));
	pthread_join(th, NULL);
	ASSERT_EQ(1, s.ret) TH_LOG("poll() returned %d", s.ret);
	ASSERT_EQ(POLLERR, s.revents & POLLERR);

	ASSERT_EQ(0, rc_proc_find(r.fd, &l));
	ASSERT_STREQ("gone", l.device);
	ASSERT_EQ(17, l.received);
	/* counters and ring outlive the device */
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(17, st.received);
	ASSERT_EQ(0, st.dropped);
	rc_cap_init(&cap, 17);
	ASSERT_EQ(17, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	RC_EXPECT_FRAMES(&cap, specs, 17, idx, RINGCAP_SNAPLEN_MAX, 0, 0);
	/* the error, once */
	ASSERT_EQ(0, getsockopt(r.fd, SOL_SOCKET, SO_ERROR, &soerr, &len));
	ASSERT_EQ(ENODEV, soerr);
	/* the socket stays in its error state: no rebinding */
	ASSERT_EQ(-EBUSY, rc_bind(r.fd, 1, RINGCAP_QUEUE_ANY));
	ASSERT_EQ(-EBUSY, rc_setopt(r.fd, RINGCAP_PROMISC, 0));
	ASSERT_EQ(0, rc_getopt_u32(r.fd, RINGCAP_SNAPLEN, &v));
	ASSERT_EQ(RINGCAP_SNAPLEN_MAX, v);
	rc_close(&r);
	ASSERT_EQ(0, rc_proc_count());
	rc_cap_free(&cap);
	free(specs);
}

FIXTURE(again)
{
	struct rc_env env;
};

FIXTURE_SETUP(again)
{
	RC_SETUP_SIM(&self->env);
	RC_SET_MODE(1);
}

FIXTURE_TEARDOWN(again)
{
	rc_teardown(&self->env);
}

/* A device that comes back under the same name is a new device. */
TEST_F(again, recreated_device_not_captured_by_old_socket)
{
	struct rc_spec *specs = rc_specs(NULL, 5, 0, 0, 41, 60);
	struct ringcap_stats st;
	struct rc_ring old, fresh;
	int idx;

	ASSERT_EQ(0, rc_open_bound(&old, self->env.sim_idx,
				   RINGCAP_QUEUE_ANY, 0));
	ASSERT_EQ(0, rc_link_del(self->env.sim));
	idx = rc_sim_create(self->env.sim);
	ASSERT_LT(0, idx);
	ASSERT_EQ(0, rc_open_bound(&fresh, idx, RINGCAP_QUEUE_ANY, 0));
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs, 5));
	RC_WAIT_ACCOUNTED(fresh.fd, 5, &st);
	ASSERT_EQ(5, st.received);
	ASSERT_EQ(0, rc_stats(old.fd, &st));
	ASSERT_EQ(0, st.received + st.dropped + st.filtered);
	rc_close(&old);
	rc_close(&fresh);
	free(specs);
}

TEST_HARNESS_MAIN
