// SPDX-License-Identifier: GPL-2.0
/*
 * The ring protocol (uapi/linux/ringcap.h): a full ring drops and counts,
 * records wrap with pad records and stay intact, and a consumer position
 * that user space corrupts is caught, counted and recovered from; gap
 * records say where frames were lost, exactly.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include "kselftest_harness.h"
#include "rc_test.h"

#define NFRAMES	1009

FIXTURE(ring)
{
	struct rc_env env;
};

FIXTURE_VARIANT(ring)
{
	int mode;
};

/* Mode 1 feeds rings from the aware driver, mode 0 from the packet hook. */
FIXTURE_VARIANT_ADD(ring, mode1) { .mode = 1 };
FIXTURE_VARIANT_ADD(ring, mode0) { .mode = 0 };

FIXTURE_SETUP(ring)
{
	RC_SETUP_SIM(&self->env);
	RC_SET_MODE(variant->mode);
}

FIXTURE_TEARDOWN(ring)
{
	rc_teardown(&self->env);
}

TEST_F_TIMEOUT(ring, stalled_reader_counts_every_drop, 120)
{
	struct rc_spec *specs, *want, *more;
	struct ringcap_stats st;
	struct rc_ring r;
	struct rc_cap cap;
	bool fit[NFRAMES];
	unsigned int i, n, k;

	specs = rc_specs(NULL, NFRAMES, 0, 0, 10, RC_LEN_VARIED);
	want = calloc(NFRAMES, sizeof(*want));
	ASSERT_EQ(0, rc_open_bound(&r, self->env.sim_idx, RINGCAP_QUEUE_ANY,
				   4096));
	ASSERT_EQ(4096, r.info.data_size);

	/* What the ring's rules let in while nobody reads. */
	n = rc_ring_model(4096, specs, NFRAMES, RINGCAP_SNAPLEN_MAX, fit);
	ASSERT_EQ(9, n);	/* seqs 0-5, 8, 12 and 27: 4064 bytes */
	for (i = 0, k = 0; i < NFRAMES; i++)
		if (fit[i])
			want[k++] = specs[i];

	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs, NFRAMES));
	RC_WAIT_ACCOUNTED(r.fd, NFRAMES, &st);
	ASSERT_EQ(NFRAMES, st.received + st.dropped);
	ASSERT_EQ(9, st.received);
	ASSERT_EQ(1000, st.dropped);
	ASSERT_EQ(0, st.filtered);
	ASSERT_EQ(0, st.bad_consumer);
	ASSERT_EQ(9, r.hdr->received);
	ASSERT_EQ(1000, r.hdr->dropped);
	ASSERT_EQ(4064, r.hdr->producer);

	rc_cap_init(&cap, NFRAMES);
	ASSERT_EQ(9, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	RC_EXPECT_FRAMES(&cap, want, n, self->env.sim_idx,
			 RINGCAP_SNAPLEN_MAX, 0, 0);

	/* Space handed back is used again. */
	more = rc_specs(NULL, 3, NFRAMES, 0, 10, 60);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, more, 3));
	RC_WAIT_ACCOUNTED(r.fd, NFRAMES + 3, &st);
	ASSERT_EQ(12, st.received);
	ASSERT_EQ(1000, st.dropped);
	rc_cap_reset(&cap);
	ASSERT_EQ(3, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	RC_EXPECT_FRAMES(&cap, more, 3, self->env.sim_idx,
			 RINGCAP_SNAPLEN_MAX, 0, 0);
	/* the first of them did not fit before the end: one pad */
	ASSERT_EQ(1, r.pads);
	rc_close(&r);
	rc_cap_free(&cap);
	free(specs);
	free(want);
	free(more);
}

TEST_F_TIMEOUT(ring, records_wrap_with_pad_byte_exact, 180)
{
	struct rc_spec *specs;
	struct ringcap_stats st;
	struct rc_ring r;
	struct rc_cap cap;
	unsigned int i, b;

	specs = rc_specs(NULL, NFRAMES, 0, 0, 11, RC_LEN_VARIED);
	ASSERT_EQ(0, rc_open_bound(&r, self->env.sim_idx, RINGCAP_QUEUE_ANY,
				   8192));
	rc_cap_init(&cap, NFRAMES);
	/* 4 frames are at most 4136 bytes of records: always room */
	for (i = 0; i < NFRAMES; i += 4) {
		b = i + 4 < NFRAMES ? 4 : NFRAMES - i;
		ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs + i, b));
		RC_WAIT_ACCOUNTED(r.fd, i + b, &st);
		ASSERT_EQ(b, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	}
	RC_EXPECT_FRAMES(&cap, specs, NFRAMES, self->env.sim_idx,
			 RINGCAP_SNAPLEN_MAX, 0, 0);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(NFRAMES, st.received);
	ASSERT_EQ(0, st.dropped);
	ASSERT_LT(50, r.pads);		/* 836320 bytes through 8 KiB */
	ASSERT_EQ(r.hdr->producer, r.cons);
	rc_close(&r);
	rc_cap_free(&cap);
	free(specs);
}

struct reader {
	struct rc_ring *r;
	struct rc_cap *cap;
	volatile bool stop;
	int err;
};

static void *reader_fn(void *arg)
{
	struct reader *rd = arg;
	struct pollfd p = { .fd = rd->r->fd, .events = POLLIN };

	while (!rd->stop) {
		poll(&p, 1, 10);
		if (rc_drain(rd->r, rd->cap) < 0) {
			rd->err = -EIO;
			break;
		}
	}
	return NULL;
}

/* A reader racing the producer in a small ring loses only whole frames. */
TEST_F_TIMEOUT(ring, racing_reader_sees_intact_records, 120)
{
	struct rc_spec *specs;
	struct ringcap_stats st;
	struct reader rd = {};
	struct rc_ring r;
	struct rc_cap cap;
	pthread_t th;
	unsigned int i;

	specs = rc_specs(NULL, NFRAMES, 0, 0, 12, RC_LEN_VARIED);
	ASSERT_EQ(0, rc_open_bound(&r, self->env.sim_idx, RINGCAP_QUEUE_ANY,
				   8192));
	ASSERT_EQ(0, rc_setopt(r.fd, RINGCAP_WATERMARK, 1));
	rc_cap_init(&cap, NFRAMES);
	rd.r = &r;
	rd.cap = &cap;
	ASSERT_EQ(0, pthread_create(&th, NULL, reader_fn, &rd));
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs, NFRAMES));
	RC_WAIT_ACCOUNTED(r.fd, NFRAMES, &st);
	RC_WAIT_UNTIL(cap.n + cap.bad == st.received || rd.err, 10000);
	rd.stop = true;
	pthread_join(th, NULL);
	ASSERT_EQ(0, rd.err) TH_LOG("%s", cap.why);
	ASSERT_EQ(0, cap.bad) TH_LOG("%s", cap.why);
	ASSERT_EQ(0, cap.foreign);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(NFRAMES, st.received + st.dropped);
	ASSERT_EQ(st.received, cap.n);
	for (i = 1; i < cap.n; i++)
		ASSERT_LT(cap.v[i - 1].seq, cap.v[i].seq);
	rc_close(&r);
	rc_cap_free(&cap);
	free(specs);
}

/*
 * Every frame the capture holds carries the loss just before it: each
 * gap is the jump in sequence numbers since the previous frame, and the
 * gaps add up to what the kernel counted as dropped.
 */
static void expect_gaps_exact(struct __test_metadata *_metadata,
			      const struct rc_cap *cap, unsigned int sent,
			      const struct ringcap_stats *st)
{
	uint32_t want = 0;
	unsigned int i;

	ASSERT_EQ(0, cap->bad) TH_LOG("%s", cap->why);
	ASSERT_EQ(0, cap->foreign);
	for (i = 0; i < cap->n; i++) {
		ASSERT_EQ(cap->v[i].seq - want, cap->v[i].gap)
			TH_LOG("frame %u (seq %u) after seq %u", i,
			       cap->v[i].seq, want - 1);
		want = cap->v[i].seq + 1;
	}
	ASSERT_EQ(sent, want);
	ASSERT_EQ(0, cap->gap_next);
	ASSERT_EQ(st->dropped, cap->gap_sum.ring_full);
	ASSERT_EQ(0, cap->gap_sum.cluster_full);
	ASSERT_EQ(0, cap->gap_sum.nic);
	ASSERT_EQ(st->received, cap->n);
	ASSERT_EQ(sent, cap->n + cap->gap_sum.ring_full);
}

/* Gap records, and a wake-up for every frame. */
static int with_gaps(int fd, const void *arg)
{
	int err = rc_setopt(fd, RINGCAP_GAPS, 1);

	(void)arg;
	return err ? err : rc_setopt(fd, RINGCAP_WATERMARK, 1);
}

TEST_F_TIMEOUT(ring, gap_records_sit_where_frames_were_lost, 180)
{
	struct rc_spec *stalled, *raced, *t1, *t2;
	struct ringcap_stats st;
	struct reader rd = {};
	struct rc_ring r;
	struct rc_cap cap;
	unsigned int sent;
	pthread_t th;

	stalled = rc_specs(NULL, NFRAMES, 0, 0, 13, RC_LEN_VARIED);
	t1 = rc_specs(NULL, 3, NFRAMES, 0, 13, 60);
	raced = rc_specs(NULL, NFRAMES, NFRAMES + 3, 0, 13, RC_LEN_VARIED);
	t2 = rc_specs(NULL, 3, 2 * NFRAMES + 3, 0, 13, 60);
	ASSERT_EQ(0, rc_open_bound_with(&r, self->env.sim_idx,
					RINGCAP_QUEUE_ANY, 8192, with_gaps,
					NULL));
	r.gaps = true;
	rc_cap_init(&cap, 2 * NFRAMES + 6);

	/* Nobody reads: the ring fills, and smaller frames fit later. */
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, stalled, NFRAMES));
	RC_WAIT_ACCOUNTED(r.fd, NFRAMES, &st);
	ASSERT_LT(900, st.dropped);
	ASSERT_LE(0, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	/* The loss after the last frame that fit comes with the next one. */
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, t1, 3));
	RC_WAIT_ACCOUNTED(r.fd, NFRAMES + 3, &st);
	ASSERT_EQ(3, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	expect_gaps_exact(_metadata, &cap, NFRAMES + 3, &st);
	ASSERT_LT(1, cap.gaps);

	/* A reader racing the producer: gaps wherever it fell behind. */
	rd.r = &r;
	rd.cap = &cap;
	ASSERT_EQ(0, pthread_create(&th, NULL, reader_fn, &rd));
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, raced, NFRAMES));
	sent = 2 * NFRAMES + 3;
	RC_WAIT_ACCOUNTED(r.fd, sent, &st);
	RC_WAIT_UNTIL(cap.n + cap.bad == st.received || rd.err, 10000);
	rd.stop = true;
	pthread_join(th, NULL);
	ASSERT_EQ(0, rd.err) TH_LOG("%s", cap.why);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, t2, 3));
	sent += 3;
	RC_WAIT_ACCOUNTED(r.fd, sent, &st);
	ASSERT_EQ(3, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	TH_LOG("%llu frames captured, %llu lost in %u gap records",
	       (unsigned long long)st.received,
	       (unsigned long long)st.dropped, cap.gaps);
	expect_gaps_exact(_metadata, &cap, sent, &st);
	rc_close(&r);
	rc_cap_free(&cap);
	free(stalled);
	free(raced);
	free(t1);
	free(t2);
}

/*
 * What the NIC reports lost is a gap of its own reason before the next
 * frame, for every socket with gap records on the device (the sim reports
 * a rise of its missed counter as ringcap_e1000e reports MPC, which
 * QEMU's 82574L never counts).
 */
TEST_F_TIMEOUT(ring, nic_loss_is_a_gap, 60)
{
	struct rc_spec *a, *b;
	struct ringcap_stats st;
	struct rc_ring r;
	struct rc_cap cap;

	a = rc_specs(NULL, 2, 0, 0, 14, 60);
	b = rc_specs(NULL, 2, 2, 0, 14, 60);
	ASSERT_EQ(0, rc_sh("echo 100 >/sys/kernel/debug/ringcap_sim/%s/rx_missed",
			   self->env.sim));
	ASSERT_EQ(0, rc_open_bound_with(&r, self->env.sim_idx,
					RINGCAP_QUEUE_ANY, 8192, with_gaps,
					NULL));
	r.gaps = true;
	rc_cap_init(&cap, 4);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, a, 2));
	RC_WAIT_ACCOUNTED(r.fd, 2, &st);
	/* 100 before bind are no loss of ours; 37 after are. */
	ASSERT_EQ(0, rc_sh("echo 137 >/sys/kernel/debug/ringcap_sim/%s/rx_missed",
			   self->env.sim));
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, b, 2));
	RC_WAIT_ACCOUNTED(r.fd, 4, &st);
	ASSERT_EQ(4, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	ASSERT_EQ(0, cap.v[0].gap);
	ASSERT_EQ(0, cap.v[1].gap);
	ASSERT_EQ(37, cap.v[2].gap);
	ASSERT_EQ(0, cap.v[3].gap);
	ASSERT_EQ(37, cap.gap_sum.nic);
	ASSERT_EQ(0, cap.gap_sum.ring_full);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(37, st.nic_dropped);
	ASSERT_EQ(0, st.dropped);
	rc_close(&r);
	rc_cap_free(&cap);
	free(a);
	free(b);
}

static short poll_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) < 0 ? -1 : p.revents;
}

TEST_F_TIMEOUT(ring, garbage_consumer_counted_then_recovers, 120)
{
	struct rc_spec *a, *b, *c, *d;
	struct rc_proc_line l;
	struct ringcap_stats st;
	struct rc_ring r;
	struct rc_cap cap;
	uint64_t prod;

	a = rc_specs(NULL, 5, 0, 0, 13, RC_LEN_VARIED);
	b = rc_specs(NULL, 7, 5, 0, 13, RC_LEN_VARIED);
	c = rc_specs(NULL, 11, 12, 0, 13, RC_LEN_VARIED);
	d = rc_specs(NULL, 101, 23, 0, 13, RC_LEN_VARIED);
	ASSERT_EQ(0, rc_open_bound(&r, self->env.sim_idx, RINGCAP_QUEUE_ANY,
				   1 << 20));
	rc_cap_init(&cap, 200);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, a, 5));
	RC_WAIT_ACCOUNTED(r.fd, 5, &st);
	ASSERT_EQ(5, rc_drain(&r, &cap));
	prod = r.hdr->producer;
	ASSERT_EQ(prod, r.hdr->consumer);

	/* unaligned */
	r.hdr->consumer = prod + 3;
	ASSERT_EQ(POLLERR, poll_now(r.fd) & POLLERR);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, b, 7));
	RC_WAIT_ACCOUNTED(r.fd, 12, &st);
	ASSERT_EQ(5, st.received);
	ASSERT_EQ(7, st.dropped);
	ASSERT_EQ(7, st.bad_consumer);

	/* aligned but ahead of the producer, and far away */
	r.hdr->consumer = prod + (1 << 24);
	ASSERT_EQ(POLLERR, poll_now(r.fd) & POLLERR);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, c, 6));
	r.hdr->consumer = 0x8000000000000000ull;
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, c + 6, 5));
	RC_WAIT_ACCOUNTED(r.fd, 23, &st);
	ASSERT_EQ(5, st.received);
	ASSERT_EQ(18, st.dropped);
	ASSERT_EQ(18, st.bad_consumer);
	ASSERT_EQ(prod, r.hdr->producer);	/* nothing was written */
	ASSERT_EQ(0, rc_proc_find(r.fd, &l));
	ASSERT_EQ(18, l.bad_consumer);
	ASSERT_EQ(18, l.dropped);

	/* a valid position again: the socket recovers */
	r.hdr->consumer = prod;
	ASSERT_EQ(0, poll_now(r.fd) & POLLERR);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, d, 101));
	RC_WAIT_ACCOUNTED(r.fd, 124, &st);
	ASSERT_EQ(106, st.received);
	ASSERT_EQ(18, st.dropped);
	ASSERT_EQ(18, st.bad_consumer);
	rc_cap_reset(&cap);
	r.cons = prod;
	ASSERT_EQ(101, rc_drain(&r, &cap)) TH_LOG("%s", cap.why);
	RC_EXPECT_FRAMES(&cap, d, 101, self->env.sim_idx,
			 RINGCAP_SNAPLEN_MAX, 0, 0);
	rc_close(&r);
	rc_cap_free(&cap);
	free(a);
	free(b);
	free(c);
	free(d);
}

TEST_HARNESS_MAIN
