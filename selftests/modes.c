// SPDX-License-Identifier: GPL-2.0
/*
 * Transparent modes through the sim device (an aware driver):
 *   0  rings get frames from the packet hook, the stack gets them too
 *   1  the driver feeds the rings and the stack
 *   2  the driver feeds the rings only, while a socket is bound to the
 *      frame's device and queue; otherwise the stack gets the frame
 * In every mode a frame reaches a socket once.
 *
 * What the stack got is seen twice: by an AF_PACKET socket on the device
 * and by the device's rx_packets counter.
 *
 * Every test runs once per mode (FIXTURE_VARIANT); what differs between
 * the modes is only whether frames a socket takes also reach the stack.
 */
#include <errno.h>
#include <string.h>
#include "kselftest_harness.h"
#include "rc_test.h"

#define NFRAMES	1009
#define MARKER_RUN 99

FIXTURE(modes)
{
	struct rc_env env;
	int pkt;		/* AF_PACKET socket: the stack's view */
	long long rx0;		/* rx_packets at the start */
	struct rc_cap stack;
};

FIXTURE_VARIANT(modes)
{
	int mode;
	bool to_stack;	/* frames bound sockets take also reach the stack */
};

FIXTURE_VARIANT_ADD(modes, mode0)
{
	.mode = 0,
	.to_stack = true,
};

FIXTURE_VARIANT_ADD(modes, mode1)
{
	.mode = 1,
	.to_stack = true,
};

FIXTURE_VARIANT_ADD(modes, mode2)
{
	.mode = 2,
	.to_stack = false,
};

FIXTURE_SETUP(modes)
{
	RC_SETUP_SIM(&self->env);
	/* keep every frame on one CPU's backlog, in order */
	ASSERT_EQ(0, rc_pin_cpu(0));
	self->pkt = rc_packet_open(self->env.sim_idx);
	ASSERT_LE(0, self->pkt);
	self->rx0 = rc_rx_packets(self->env.sim);
	ASSERT_LE(0, self->rx0);
	rc_cap_init(&self->stack, 4 * NFRAMES);
}

FIXTURE_TEARDOWN(modes)
{
	rc_cap_free(&self->stack);
	rc_teardown(&self->env);
}

static long long stack_rx(FIXTURE_DATA(modes) *self)
{
	return rc_rx_packets(self->env.sim) - self->rx0;
}

/*
 * Wait until the AF_PACKET socket has seen `want` test frames in all.
 * Returns how many it has seen.
 */
static unsigned int stack_wait(FIXTURE_DATA(modes) *self, unsigned int want)
{
	RC_WAIT_UNTIL((rc_packet_drain(self->pkt, &self->stack),
		       self->stack.n >= want), 20000);
	return self->stack.n;
}

/*
 * Prove that nothing more is on its way to the stack: in a mode that
 * passes frames up, send a marker on queue 0 and wait for it. The backlog
 * is one ordered queue on our CPU, so anything sent before it is there
 * first. The marker also reaches any ring bound to queue 0 or all queues.
 */
static void stack_flush(struct __test_metadata *_metadata,
			FIXTURE_DATA(modes) *self, int mode, uint32_t seq)
{
	struct rc_spec m = { .seq = seq, .len = 60, .queue = 0,
			     .run = MARKER_RUN };
	unsigned int before;

	/* The sim delivers synchronously: what came before is queued now. */
	rc_packet_drain(self->pkt, &self->stack);
	before = self->stack.n;

	RC_SET_MODE(mode);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, &m, 1));
	ASSERT_EQ(before + 1, stack_wait(self, before + 1));
	ASSERT_EQ(MARKER_RUN, self->stack.v[before].run);
	ASSERT_EQ(seq, self->stack.v[before].seq);
}

/* The stack got all NFRAMES of specs, in order, and nothing else. */
static void stack_got_all(struct __test_metadata *_metadata,
			  FIXTURE_DATA(modes) *self, struct rc_spec *specs)
{
	ASSERT_EQ(NFRAMES, stack_wait(self, NFRAMES));
	RC_EXPECT_FRAMES(&self->stack, specs, NFRAMES, 0, RC_SNAP_WHOLE, 0, 0);
	ASSERT_EQ(NFRAMES, stack_rx(self));
	ASSERT_EQ(0, rc_packet_drops(self->pkt));
}

/*
 * A socket on all queues gets every frame once; the stack gets them too
 * except in mode 2, where a marker sent in mode 1 is its first frame.
 */
TEST_F_TIMEOUT(modes, bound_ring_once_stack_by_mode, 180)
{
	struct rc_spec *specs = rc_specs(NULL, NFRAMES, 0, RC_QUEUE_MIXED, 30,
					 RC_LEN_VARIED);
	struct rc_spec marker = { .seq = NFRAMES, .len = 60, .run = MARKER_RUN };
	struct ringcap_stats st;
	struct rc_ring r;
	struct rc_cap cap;

	RC_SET_MODE(variant->mode);
	ASSERT_EQ(0, rc_open_bound(&r, self->env.sim_idx, RINGCAP_QUEUE_ANY,
				   1 << 21));
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs, NFRAMES));
	if (variant->to_stack)
		stack_got_all(_metadata, self, specs);
	RC_WAIT_ACCOUNTED(r.fd, NFRAMES, &st);
	rc_cap_init(&cap, 2 * NFRAMES);
	ASSERT_EQ(NFRAMES, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	RC_EXPECT_FRAMES(&cap, specs, NFRAMES, self->env.sim_idx,
			 RINGCAP_SNAPLEN_MAX, 0, 0);
	if (variant->to_stack) {
		/*
		 * The stack has had them all, so a second copy through the
		 * packet hook would be in the ring by now.
		 */
		ASSERT_EQ(0, rc_stats(r.fd, &st));
		ASSERT_EQ(NFRAMES, st.received);
		ASSERT_EQ(0, rc_drain(&r, &cap));
	} else {
		ASSERT_EQ(0, stack_rx(self));
		stack_flush(_metadata, self, 1, NFRAMES);
		ASSERT_EQ(1, self->stack.n);
		ASSERT_EQ(1, stack_rx(self));
		RC_WAIT_ACCOUNTED(r.fd, NFRAMES + 1, &st);
		rc_cap_reset(&cap);
		ASSERT_EQ(1, rc_drain(&r, &cap));
		RC_EXPECT_FRAMES(&cap, &marker, 1, self->env.sim_idx,
				 RINGCAP_SNAPLEN_MAX, 0, 0);
	}
	rc_close(&r);
	rc_cap_free(&cap);
	free(specs);
}

/* A socket that exists but is not bound changes nothing, in any mode. */
TEST_F_TIMEOUT(modes, unbound_socket_stack_gets_frames, 180)
{
	struct rc_spec *specs = rc_specs(NULL, NFRAMES, 0, RC_QUEUE_MIXED, 32,
					 RC_LEN_VARIED);
	int fd;

	RC_SET_MODE(variant->mode);
	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs, NFRAMES));
	stack_got_all(_metadata, self, specs);
	close(fd);
	free(specs);
}

static bool on_q0(const struct rc_spec *s)
{
	return s->queue == 0;
}

static bool on_q1(const struct rc_spec *s)
{
	return s->queue == 1;
}

/*
 * A socket on queue 1 only gets queue 1's frames; queue 0's reach the
 * stack in every mode, queue 1's only where the mode passes them up.
 */
TEST_F_TIMEOUT(modes, queue1_bound_queue0_reaches_stack, 180)
{
	struct rc_spec *specs = rc_specs(NULL, NFRAMES, 0, RC_QUEUE_MIXED, 33,
					 RC_LEN_VARIED);
	struct rc_spec *q0 = rc_specs(NULL, NFRAMES, 0, RC_QUEUE_MIXED, 33,
				      RC_LEN_VARIED);
	struct rc_spec *q1 = rc_specs(NULL, NFRAMES, 0, RC_QUEUE_MIXED, 33,
				      RC_LEN_VARIED);
	struct ringcap_stats st;
	struct rc_ring r;
	struct rc_cap cap;

	ASSERT_EQ(606, rc_specs_filter(q0, NFRAMES, on_q0));
	ASSERT_EQ(403, rc_specs_filter(q1, NFRAMES, on_q1));
	RC_SET_MODE(variant->mode);
	ASSERT_EQ(0, rc_open_bound(&r, self->env.sim_idx, 1, 1 << 21));
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs, NFRAMES));
	if (variant->to_stack)
		stack_got_all(_metadata, self, specs);
	RC_WAIT_ACCOUNTED(r.fd, 403, &st);
	rc_cap_init(&cap, NFRAMES);
	ASSERT_EQ(403, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	RC_EXPECT_FRAMES(&cap, q1, 403, self->env.sim_idx,
			 RINGCAP_SNAPLEN_MAX, 0, 0);
	if (!variant->to_stack) {
		/* the marker goes to queue 0, which no socket holds */
		stack_flush(_metadata, self, variant->mode, NFRAMES);
		ASSERT_EQ(607, self->stack.n);
		self->stack.n = 606;
		RC_EXPECT_FRAMES(&self->stack, q0, 606, 0, RC_SNAP_WHOLE, 0, 0);
		ASSERT_EQ(607, stack_rx(self));
	}
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(403, st.received);
	rc_close(&r);
	rc_cap_free(&cap);
	free(specs);
	free(q0);
	free(q1);
}

/*
 * Switch modes between batches while bound, starting from the variant's
 * mode: every frame reaches the ring exactly once, and the stack exactly
 * in modes 0 and 1.
 */
TEST_F_TIMEOUT(modes, mode_switches_never_deliver_twice, 180)
{
	static const int seq_modes[] = { 0, 1, 2, 0, 2, 1, 0 };
	const unsigned int nb = 101, nm = 7;
	struct rc_spec *specs = rc_specs(NULL, nb * nm, 0, RC_QUEUE_MIXED, 35,
					 RC_LEN_VARIED);
	struct rc_spec *to_stack = calloc(nb * nm, sizeof(*to_stack));
	unsigned int i, first, ns = 0;
	struct ringcap_stats st;
	struct rc_ring r;
	struct rc_cap cap;
	int mode;

	for (first = 0; seq_modes[first] != variant->mode; first++)
		;
	ASSERT_EQ(0, rc_open_bound(&r, self->env.sim_idx, RINGCAP_QUEUE_ANY,
				   1 << 21));
	rc_cap_init(&cap, 2 * nb * nm);
	for (i = 0; i < nm; i++) {
		mode = seq_modes[(first + i) % nm];
		RC_SET_MODE(mode);
		ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs + i * nb, nb));
		RC_WAIT_ACCOUNTED(r.fd, (i + 1) * nb, &st);
		if (mode != 2) {
			memcpy(to_stack + ns, specs + i * nb,
			       nb * sizeof(*specs));
			ns += nb;
		}
		/* let the stack catch up before the mode changes again */
		ASSERT_EQ(ns, stack_wait(self, ns));
	}
	ASSERT_EQ(nb * nm, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	RC_EXPECT_FRAMES(&cap, specs, nb * nm, self->env.sim_idx,
			 RINGCAP_SNAPLEN_MAX, 0, 0);
	ASSERT_EQ(505, ns);
	RC_EXPECT_FRAMES(&self->stack, to_stack, ns, 0, RC_SNAP_WHOLE, 0, 0);
	ASSERT_EQ(505, stack_rx(self));
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(707, st.received);
	ASSERT_EQ(0, st.dropped);
	rc_close(&r);
	rc_cap_free(&cap);
	free(specs);
	free(to_stack);
}

TEST_HARNESS_MAIN
