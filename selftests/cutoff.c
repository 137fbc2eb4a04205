// SPDX-License-Identifier: GPL-2.0
/*
 * The per-flow cut-off (RINGCAP_FLOW_CUTOFF), through the sim device in
 * every transparent mode (0: the packet hook, 1 and 2: the aware path):
 * each flow's kept frames are exactly its prefix, byte for byte, and
 * every frame past it is counted once, where it was left out; flows
 * restart after FIN, RST, SYN and idle time; a full flow table keeps
 * more, never less; a flow cluster's members each see whole flows.
 *
 * The frames are IPv4 and IPv6 (some behind extension headers) TCP and
 * UDP in both directions. Many flows share their addresses and differ
 * only in a port, so a parser that missed the ports would merge them,
 * and the prefixes would come out wrong.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "kselftest_harness.h"
#include "rc_test.h"

#define CO_MAGIC	0x52434f31	/* "RCO1" */
#define NFLOWS		12
#define NFRAMES		600
#define CUTOFF		5000
#define NMEMBERS	3

/* One test frame: its flow and direction, TCP flags, length and number. */
struct co_frame {
	uint16_t flow;
	uint8_t dir;
	uint8_t tcp;		/* TCP flags; flows with odd numbers are TCP */
	uint16_t len;
	uint32_t id;
};

/*
 * Flow f: IPv6 when f % 4 == 3 (behind a hop-by-hop and a destination
 * options header when f % 8 == 7), TCP when f is odd; addresses shared by
 * every third flow, the client port 1000 + f.
 */
static uint16_t co_build(const struct co_frame *c, uint8_t *buf)
{
	unsigned int f = c->flow, off, k;
	bool v6 = f % 4 == 3, ext = f % 8 == 7, tcp = f % 2;
	uint8_t a[16] = { 0 }, b[16] = { 0 }, *src, *dst;
	uint16_t pa = 1000 + f, pb = tcp ? 80 : 53;

	memset(buf, 0, c->len);
	memcpy(buf, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	a[0] = 10; a[1] = 1; a[3] = f % 3 + 1;
	b[0] = 10; b[1] = 2; b[3] = 1;
	src = c->dir ? b : a;
	dst = c->dir ? a : b;
	if (v6) {
		a[0] = b[0] = 0xfd;
		rc_put16(buf + 12, 0x86dd);
		buf[14] = 0x60;
		rc_put16(buf + 18, c->len - 54);
		buf[20] = ext ? 0 : tcp ? IPPROTO_TCP : IPPROTO_UDP;
		buf[21] = 64;
		memcpy(buf + 22, src, 16);
		memcpy(buf + 38, dst, 16);
		off = 54;
		if (ext) {
			/* hop-by-hop, 8 bytes, then destination options, 16 */
			buf[off] = IPPROTO_DSTOPTS;
			buf[off + 2] = 1;	/* PadN */
			buf[off + 3] = 4;
			buf[off + 8] = tcp ? IPPROTO_TCP : IPPROTO_UDP;
			buf[off + 9] = 1;
			buf[off + 10] = 1;
			buf[off + 11] = 12;
			off += 24;
		}
	} else {
		rc_put16(buf + 12, 0x0800);
		buf[14] = 0x45;
		rc_put16(buf + 16, c->len - 14);
		buf[22] = 64;
		buf[23] = tcp ? IPPROTO_TCP : IPPROTO_UDP;
		memcpy(buf + 26, src, 4);
		memcpy(buf + 30, dst, 4);
		off = 34;
	}
	rc_put16(buf + off, c->dir ? pb : pa);
	rc_put16(buf + off + 2, c->dir ? pa : pb);
	if (tcp) {
		buf[off + 12] = 5 << 4;
		buf[off + 13] = c->tcp;
		off += 20;
	} else {
		rc_put16(buf + off + 4, c->len - off);
		off += 8;
	}
	rc_put32(buf + off, CO_MAGIC);
	rc_put32(buf + off + 4, c->id);
	buf[off + 8] = c->flow;
	buf[off + 9] = c->dir;
	buf[off + 10] = c->tcp;
	for (k = off + 11; k < c->len; k++)
		buf[k] = (c->id * 13 + k) & 0xff;
	return c->len;
}

/* Frame i of the array arg, on queue 0. */
static uint16_t co_build_on(unsigned int i, const void *arg, uint8_t *buf,
			    unsigned int *queue)
{
	*queue = 0;
	return co_build((const struct co_frame *)arg + i, buf);
}

/* Inject frames fr[0..n), in order. */
static int co_inject(const char *dev, const struct co_frame *fr,
		     unsigned int n)
{
	return rc_sim_inject_built(dev, 0, n, co_build_on, fr);
}

/* What the documented rules keep: keep[i] for each frame of fr. */
struct co_flowstate {
	uint64_t bytes;
	bool live;
};

static unsigned int co_model(const struct co_frame *fr, unsigned int n,
			     uint32_t cutoff, bool *keep)
{
	struct co_flowstate st[64][2] = { 0 };
	unsigned int i, kept = 0;

	for (i = 0; i < n; i++) {
		struct co_flowstate *s = &st[fr[i].flow][fr[i].dir];
		bool syn = fr[i].tcp & 0x02;

		if (!s->live || syn)
			s->bytes = 0;
		s->live = true;
		keep[i] = s->bytes < cutoff;
		kept += keep[i];
		s->bytes += fr[i].len;
		if (fr[i].tcp & 0x05)	/* FIN or RST */
			s->live = false;
	}
	return kept;
}

/* What one socket read: frame numbers in order, cut-off before each. */
struct co_seen {
	uint32_t id[NFRAMES];
	uint64_t cut_before[NFRAMES];
	unsigned int n;
	uint64_t cut_pending;		/* in gap records after the last frame */
	uint64_t lost;			/* any other reason in a gap record */
	char why[160];
};

/* The frame number of a record, after checking its every byte; -1 if not. */
static int co_frame_id(const struct ringcap_rec *rec, const struct co_frame *fr,
		       unsigned int nfr, char *why, size_t len)
{
	const uint8_t *d = (const uint8_t *)(rec + 1);
	uint8_t want[1600];
	unsigned int off;
	uint32_t id;

	for (off = 34; off + 8 <= rec->caplen; off++)
		if (ntohl(*(const uint32_t *)(d + off)) == CO_MAGIC)
			break;
	id = off + 8 <= rec->caplen ? ntohl(*(const uint32_t *)(d + off + 4))
				    : ~0U;
	if (id >= nfr || rec->caplen != rec->wire_len ||
	    co_build(&fr[id], want) != rec->caplen ||
	    memcmp(want, d, rec->caplen)) {
		snprintf(why, len, "a frame of %u bytes is not one we sent",
			 rec->caplen);
		return -1;
	}
	return id;
}

static int co_drain(struct rc_ring *r, const struct co_frame *fr,
		    unsigned int nfr, struct co_seen *s)
{
	uint32_t size = r->info.data_size;
	const struct ringcap_rec *rec;
	uint64_t prod;
	int id;

	prod = __atomic_load_n(&r->hdr->producer, __ATOMIC_ACQUIRE);
	while (r->cons < prod) {
		rec = (const void *)(r->data + (r->cons & (size - 1)));
		if (rec->rec_len < 8 || rec->rec_len % RINGCAP_REC_ALIGN) {
			snprintf(s->why, sizeof(s->why), "bad rec_len %u",
				 rec->rec_len);
			return -1;
		}
		r->cons += rec->rec_len;
		if (rec->flags & RINGCAP_REC_PAD)
			continue;
		if (rec->flags & RINGCAP_REC_GAP) {
			const struct ringcap_gap *g = (const void *)(rec + 1);

			if (!r->gaps) {
				snprintf(s->why, sizeof(s->why),
					 "a gap record, not asked for");
				return -1;
			}
			if (rec->caplen < RINGCAP_GAP_SIZE_V2) {
				snprintf(s->why, sizeof(s->why),
					 "a gap record of %u bytes", rec->caplen);
				return -1;
			}
			s->cut_pending += g->cutoff;
			s->lost += g->ring_full + g->cluster_full + g->nic;
			continue;
		}
		id = co_frame_id(rec, fr, nfr, s->why, sizeof(s->why));
		if (id < 0)
			return -1;
		if (s->n == NFRAMES) {
			snprintf(s->why, sizeof(s->why), "too many frames");
			return -1;
		}
		s->id[s->n] = id;
		s->cut_before[s->n++] = s->cut_pending;
		s->cut_pending = 0;
	}
	rc_release(r);
	return 0;
}

/* Every frame accounted for: taken, lost, filtered or cut off. */
static int co_wait(int fd, uint64_t total, struct ringcap_stats *st)
{
	int ms;

	for (ms = 0; ms < 5000; ms++) {
		if (rc_stats(fd, st))
			return -1;
		if (st->received + st->dropped + st->filtered + st->cutoff >=
		    total)
			return 0;
		rc_sleep_us(1000);
	}
	return -ETIMEDOUT;
}

/*
 * Compare what a socket read with the model: the kept frames of the
 * flows it owns (own[flow], NULL: all), in order, and before each the
 * number of its cut frames since the one before. 0, or -1 with why.
 */
static int co_check(const struct co_seen *s, const struct co_frame *fr,
		    unsigned int n, const bool *keep, const bool *own,
		    uint64_t *cut, char *why, size_t len)
{
	unsigned int i, k = 0;
	uint64_t pending = 0;

	*cut = 0;
	for (i = 0; i < n; i++) {
		if (own && !own[fr[i].flow])
			continue;
		if (!keep[i]) {
			pending++;
			(*cut)++;
			continue;
		}
		if (k >= s->n || s->id[k] != i) {
			snprintf(why, len, "kept frame %u (flow %u dir %u) %s",
				 i, fr[i].flow, fr[i].dir,
				 k < s->n ? "out of place" : "missing");
			return -1;
		}
		if (s->cut_before[k] != pending) {
			snprintf(why, len,
				 "before frame %u: %llu cut off in gap records, %llu sent",
				 i, (unsigned long long)s->cut_before[k],
				 (unsigned long long)pending);
			return -1;
		}
		pending = 0;
		k++;
	}
	if (k != s->n) {
		snprintf(why, len, "%u frames read, %u kept", s->n, k);
		return -1;
	}
	return 0;
}

/* The mixed traffic: flows interleaved, lengths 100..1399, no TCP flags. */
static void co_mixed(struct co_frame *fr, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		fr[i] = (struct co_frame) {
			.flow = (i * 7) % NFLOWS,
			.dir = (i / NFLOWS) % 2,
			.tcp = (i * 7) % NFLOWS % 2 ? 0x10 : 0,
			.len = 100 + (i * 53) % 1300,
			.id = i,
		};
}

struct co_opts {
	uint32_t cutoff;
	bool gaps;
	uint32_t cluster;
};

static int co_before_bind(int fd, const void *arg)
{
	const struct co_opts *o = arg;
	struct ringcap_cluster cl = { .id = o->cluster,
				      .policy = RINGCAP_CLUSTER_FLOW };
	int err;

	err = rc_setopt(fd, RINGCAP_FLOW_CUTOFF, o->cutoff);
	if (!err && o->gaps)
		err = rc_setopt(fd, RINGCAP_GAPS, 1);
	if (!err && o->cluster &&
	    setsockopt(fd, SOL_RINGCAP, RINGCAP_CLUSTER, &cl, sizeof(cl)))
		err = -errno;
	return err;
}

FIXTURE(cutoff)
{
	struct rc_env env;
	struct rc_ring m[NMEMBERS];
	struct co_frame fr[NFRAMES];
	bool keep[NFRAMES];
	struct co_seen seen[NMEMBERS];
	long flows_saved, idle_saved;
};

FIXTURE_VARIANT(cutoff)
{
	int mode;
};

FIXTURE_VARIANT_ADD(cutoff, mode0) { .mode = 0 };
FIXTURE_VARIANT_ADD(cutoff, mode1) { .mode = 1 };
FIXTURE_VARIANT_ADD(cutoff, mode2) { .mode = 2 };

FIXTURE_SETUP(cutoff)
{
	unsigned int i;

	for (i = 0; i < NMEMBERS; i++)
		self->m[i].fd = -1;
	memset(self->seen, 0, sizeof(self->seen));
	self->flows_saved = rc_param_get("cutoff_flows");
	self->idle_saved = rc_param_get("cutoff_idle");
	RC_SETUP_SIM(&self->env);
	RC_SET_MODE(variant->mode);
	ASSERT_LT(0, self->flows_saved) TH_LOG("no cutoff_flows parameter");
	/* one CPU's backlog keeps the frames in order in mode 0 */
	ASSERT_EQ(0, rc_pin_cpu(0));
}

FIXTURE_TEARDOWN(cutoff)
{
	unsigned int i;

	for (i = 0; i < NMEMBERS; i++)
		if (self->m[i].fd >= 0)
			rc_close(&self->m[i]);
	if (self->flows_saved > 0)
		rc_param_set("cutoff_flows", self->flows_saved);
	if (self->idle_saved > 0)
		rc_param_set("cutoff_idle", self->idle_saved);
	rc_teardown(&self->env);
}

/* Send fr[0..n) to one socket with opts and read all of it. */
static int co_run(FIXTURE_DATA(cutoff) *self, unsigned int n,
		  const struct co_opts *o, struct ringcap_stats *st)
{
	struct co_seen *s = &self->seen[0];
	int err;

	if (self->m[0].fd < 0) {
		err = rc_open_bound_with(&self->m[0], self->env.sim_idx,
					 RINGCAP_QUEUE_ANY, 1 << 20,
					 co_before_bind, o);
		if (err)
			return err;
		self->m[0].gaps = o->gaps;
	}
	err = co_inject(self->env.sim, self->fr, n);
	if (!err)
		err = co_wait(self->m[0].fd, n, st);
	if (!err)
		err = co_drain(&self->m[0], self->fr, n, s);
	return err;
}

TEST_F(cutoff, prefixes_are_exact)
{
	struct co_opts o = { .cutoff = CUTOFF, .gaps = true };
	struct ringcap_stats st;
	uint64_t cut, cut_bytes = 0;
	unsigned int i, kept;
	char why[160];

	co_mixed(self->fr, NFRAMES);
	kept = co_model(self->fr, NFRAMES, CUTOFF, self->keep);
	for (i = 0; i < NFRAMES; i++)
		if (!self->keep[i])
			cut_bytes += self->fr[i].len;
	ASSERT_EQ(0, co_run(self, NFRAMES, &o, &st)) TH_LOG("%s",
							    self->seen[0].why);
	ASSERT_EQ(0, co_check(&self->seen[0], self->fr, NFRAMES, self->keep,
			      NULL, &cut, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(kept, st.received);
	EXPECT_EQ(cut, st.cutoff);
	EXPECT_EQ(cut_bytes, st.cutoff_bytes);
	EXPECT_EQ(0, st.dropped);
	EXPECT_EQ(0, st.flows_evicted);
	EXPECT_EQ(0, self->seen[0].lost);
	/* a gap record is written before a frame, never after the last */
	EXPECT_EQ(0, self->seen[0].cut_pending);
	rc_report("cutoff_prefixes", true,
		  "%u frames of %d flows in 2 directions: %u kept (%llu bytes cut in %llu frames)",
		  NFRAMES, NFLOWS, kept, (unsigned long long)cut_bytes,
		  (unsigned long long)cut);
}

TEST_F(cutoff, flows_restart_after_fin_rst_syn_and_idle)
{
	struct co_opts o = { .cutoff = 2500, .gaps = true };
	/* TCP flow 1, one direction, frames of 1000 bytes */
	static const uint8_t flags[] = {
		0x02, 0x10, 0x10, 0x10, 0x10,	/* SYN, then past the cut-off */
		0x11,				/* FIN: cut, and the flow ends */
		0x10, 0x10, 0x10, 0x10,		/* afresh: 3 kept, 1 cut */
		0x14,				/* RST: cut, ends */
		0x10,				/* afresh: kept */
		0x10, 0x10,			/* kept, then cut (3000) */
		0x02,				/* SYN: a new connection, kept */
	};
	unsigned int n = sizeof(flags), i;
	struct ringcap_stats st;
	struct co_seen *s = &self->seen[0];
	uint64_t cut;
	char why[160];

	for (i = 0; i < n; i++)
		self->fr[i] = (struct co_frame) { .flow = 1, .tcp = flags[i],
						  .len = 1000, .id = i };
	co_model(self->fr, n, o.cutoff, self->keep);
	ASSERT_EQ(0, co_run(self, n, &o, &st)) TH_LOG("%s", s->why);
	ASSERT_EQ(0, co_check(s, self->fr, n, self->keep, NULL, &cut, why,
			      sizeof(why))) TH_LOG("%s", why);
	/* kept: SYN 0, 1, 2 | after FIN 6, 7, 8 | after RST 11, 12, 13 | SYN 14 */
	EXPECT_EQ(10, s->n);
	EXPECT_EQ(5, st.cutoff);

	/* UDP flow 0: 3 kept, 1 cut; quiet past cutoff_idle; kept again */
	ASSERT_EQ(0, rc_param_set("cutoff_idle", 1));
	for (i = 0; i < 5; i++)
		self->fr[i] = (struct co_frame) { .flow = 0, .len = 1000,
						  .id = i };
	memset(s, 0, sizeof(*s));
	ASSERT_EQ(0, co_inject(self->env.sim, self->fr, 4));
	ASSERT_EQ(0, co_wait(self->m[0].fd, n + 4, &st));
	EXPECT_EQ(6, st.cutoff);
	rc_sleep_us(2500 * 1000);
	ASSERT_EQ(0, co_inject(self->env.sim, self->fr + 4, 1));
	ASSERT_EQ(0, co_wait(self->m[0].fd, n + 5, &st));
	ASSERT_EQ(0, co_drain(&self->m[0], self->fr, 5, s)) TH_LOG("%s",
								  s->why);
	ASSERT_EQ(4, s->n);
	EXPECT_EQ(0, s->id[0]);
	EXPECT_EQ(2, s->id[2]);
	EXPECT_EQ(4, s->id[3]) TH_LOG("the frame after the idle time");
	EXPECT_EQ(1, s->cut_before[3]);
	EXPECT_EQ(6, st.cutoff);
}

TEST_F(cutoff, a_full_table_keeps_more_never_less)
{
	struct co_opts o = { .cutoff = 1 };
	struct ringcap_stats st;
	unsigned int i;

	/* 17 flows round robin through 16 entries: each is forgotten first */
	ASSERT_EQ(0, rc_param_set("cutoff_flows", 16));
	for (i = 0; i < 51; i++)
		self->fr[i] = (struct co_frame) { .flow = 20 + i % 17,
						  .dir = 0, .len = 200,
						  .id = i };
	ASSERT_EQ(0, co_run(self, 51, &o, &st)) TH_LOG("%s",
						       self->seen[0].why);
	EXPECT_EQ(51, st.received);
	EXPECT_EQ(0, st.cutoff);
	EXPECT_EQ(51 - 16, st.flows_evicted);
	rc_close(&self->m[0]);
	self->m[0].fd = -1;

	/* 16 flows fit: only each one's first frame is kept */
	memset(&self->seen[0], 0, sizeof(self->seen[0]));
	for (i = 0; i < 48; i++)
		self->fr[i].flow = 20 + i % 16;
	ASSERT_EQ(0, co_run(self, 48, &o, &st)) TH_LOG("%s",
						       self->seen[0].why);
	EXPECT_EQ(16, st.received);
	EXPECT_EQ(32, st.cutoff);
	EXPECT_EQ(0, st.flows_evicted);
}

TEST_F(cutoff, flow_cluster_members_each_see_whole_flows)
{
	struct co_opts o = { .cutoff = CUTOFF, .gaps = true, .cluster = 9 };
	bool own[NMEMBERS][64] = { { 0 } };
	struct ringcap_stats st;
	uint64_t cut, sum = 0, total = 0;
	unsigned int i, j, got = 0, kept;
	char why[160];

	for (j = 0; j < NMEMBERS; j++)
		ASSERT_EQ(0, rc_open_bound_with(&self->m[j], self->env.sim_idx,
						RINGCAP_QUEUE_ANY, 1 << 20,
						co_before_bind, &o));
	co_mixed(self->fr, NFRAMES);
	kept = co_model(self->fr, NFRAMES, CUTOFF, self->keep);
	ASSERT_EQ(0, co_inject(self->env.sim, self->fr, NFRAMES));
	for (i = 0; i < 5000 && total < NFRAMES; i++) {
		total = 0;
		for (j = 0; j < NMEMBERS; j++) {
			ASSERT_EQ(0, rc_stats(self->m[j].fd, &st));
			total += st.received + st.dropped + st.cutoff;
		}
		rc_sleep_us(1000);
	}
	ASSERT_EQ(NFRAMES, total);
	for (j = 0; j < NMEMBERS; j++) {
		self->m[j].gaps = true;
		ASSERT_EQ(0, co_drain(&self->m[j], self->fr, NFRAMES,
				      &self->seen[j]))
			TH_LOG("%s", self->seen[j].why);
		/* the flows this member got, by their kept frames */
		for (i = 0; i < self->seen[j].n; i++)
			own[j][self->fr[self->seen[j].id[i]].flow] = true;
	}
	for (j = 0; j < NMEMBERS; j++) {
		ASSERT_EQ(0, co_check(&self->seen[j], self->fr, NFRAMES,
				      self->keep, own[j], &cut, why,
				      sizeof(why)))
			TH_LOG("member %u: %s", j, why);
		ASSERT_EQ(0, rc_stats(self->m[j].fd, &st));
		EXPECT_EQ(cut, st.cutoff) TH_LOG("member %u", j);
		sum += st.cutoff;
		got += self->seen[j].n;
	}
	EXPECT_EQ(kept, got);
	EXPECT_EQ(NFRAMES - kept, sum);
}

TEST_F(cutoff, option_rules)
{
	uint32_t v = 1, big = RINGCAP_FLOW_CUTOFF_MAX + 1;
	socklen_t len = sizeof(v);
	struct ringcap_stats st;
	int fd = rc_socket();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, getsockopt(fd, SOL_RINGCAP, RINGCAP_FLOW_CUTOFF, &v,
				&len));
	EXPECT_EQ(0, v) TH_LOG("off by default");
	EXPECT_EQ(-EINVAL, rc_setopt(fd, RINGCAP_FLOW_CUTOFF, big));
	EXPECT_EQ(-EINVAL, setsockopt(fd, SOL_RINGCAP, RINGCAP_FLOW_CUTOFF,
				      &v, 2) ? -errno : 0);
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_FLOW_CUTOFF, 1500));
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_FLOW_CUTOFF, &v));
	EXPECT_EQ(1500, v);
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_FLOW_CUTOFF, 0));
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_FLOW_CUTOFF, &v));
	EXPECT_EQ(0, v);
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_FLOW_CUTOFF, RINGCAP_FLOW_CUTOFF_MAX));
	ASSERT_EQ(0, rc_bind(fd, self->env.sim_idx, RINGCAP_QUEUE_ANY));
	EXPECT_EQ(-EBUSY, rc_setopt(fd, RINGCAP_FLOW_CUTOFF, 100))
		TH_LOG("fixed at bind");
	/* the first size still works, and the new one carries the fields */
	len = RINGCAP_STATS_SIZE_V1;
	EXPECT_EQ(0, getsockopt(fd, SOL_RINGCAP, RINGCAP_STATS, &st, &len));
	EXPECT_EQ(RINGCAP_STATS_SIZE_V1, len);
	len = sizeof(st);
	EXPECT_EQ(0, getsockopt(fd, SOL_RINGCAP, RINGCAP_STATS, &st, &len));
	EXPECT_EQ(RINGCAP_STATS_SIZE_V2, len);
	close(fd);
}

static int co_persist(int fd, const void *arg)
{
	int err = rc_setopt(fd, RINGCAP_FLOW_CUTOFF, *(const uint32_t *)arg);

	if (!err && setsockopt(fd, SOL_RINGCAP, RINGCAP_PERSIST, "co1", 3))
		err = -errno;
	return err;
}

/* A persistent ring keeps its cut-off; a taker asking for another is told. */
TEST_F(cutoff, persistent_ring_keeps_its_cutoff)
{
	uint32_t mine = 1500, other = 3000, none = 0, v = 0;
	struct rc_ring r, t;
	int fd;

	ASSERT_EQ(0, rc_open_bound_with(&r, self->env.sim_idx,
					RINGCAP_QUEUE_ANY, 1 << 16,
					co_persist, &mine));
	rc_close(&r);
	EXPECT_EQ(-EINVAL, rc_open_bound_with(&t, self->env.sim_idx,
					      RINGCAP_QUEUE_ANY, 1 << 16,
					      co_persist, &other));
	ASSERT_EQ(0, rc_open_bound_with(&t, self->env.sim_idx,
					RINGCAP_QUEUE_ANY, 1 << 16,
					co_persist, &none))
		TH_LOG("a taker that sets none takes the ring's");
	EXPECT_EQ(0, rc_getopt_u32(t.fd, RINGCAP_FLOW_CUTOFF, &v));
	EXPECT_EQ(1500, v);
	rc_close(&t);
	fd = rc_socket();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, setsockopt(fd, SOL_RINGCAP, RINGCAP_PERSIST_DELETE,
				"co1", 3) ? -errno : 0);
	close(fd);
}

TEST_HARNESS_MAIN
