// SPDX-License-Identifier: GPL-2.0
/*
 * Clusters and the one hook per device, through the sim device (an aware
 * driver) in every transparent mode: mode 0 is the device's one
 * packet_type, modes 1 and 2 the aware path.
 *
 * The frames are IPv4 and IPv6 TCP and UDP conversations in both
 * directions, plus non-IP frames; each carries its number in its payload
 * and can be rebuilt from it, so what every socket got is checked by
 * content: which frames, once each, byte for byte.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "kselftest_harness.h"
#include "rc_test.h"

#define NFRAMES		1009
#define NFLOWS		20
#define NMEMBERS	3
#define CL_ID		7
#define CL_MAGIC	0x52434c31	/* "RCL1" */

/* Frame i: flow (i / 2) % NFLOWS, direction i % 2; every 16th non-IP. */
static bool cl_non_ip(unsigned int i)
{
	return i % 16 == 15;
}

static unsigned int cl_flow(unsigned int i)
{
	return cl_non_ip(i) ? NFLOWS : (i / 2) % NFLOWS;
}

static uint16_t cl_build(unsigned int i, uint8_t *buf)
{
	unsigned int f = cl_flow(i), dir = i % 2, off, k;
	uint16_t len = 90 + (i * 37) % 400;
	bool v6 = f % 5 == 4, tcp = f % 2;
	uint8_t a[16] = { 0 }, b[16] = { 0 };
	uint16_t pa = 1000 + f, pb = 2000 + 3 * f;
	uint8_t *src = dir ? b : a, *dst = dir ? a : b;
	uint16_t sport = dir ? pb : pa, dport = dir ? pa : pb;

	memset(buf, 0, len);
	memcpy(buf, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	if (cl_non_ip(i)) {
		rc_put16(buf + 12, RC_ETH_P_TEST + 1);
		off = 14;
		goto payload;
	}
	a[0] = 10; a[1] = 1; a[3] = f + 1;
	b[0] = 10; b[1] = 2; b[3] = (f * 7) % 250 + 1;
	if (v6) {
		a[0] = b[0] = 0xfd;
		rc_put16(buf + 12, 0x86dd);
		buf[14] = 0x60;
		rc_put16(buf + 18, len - 54);
		buf[20] = tcp ? IPPROTO_TCP : IPPROTO_UDP;
		buf[21] = 64;
		memcpy(buf + 22, src, 16);
		memcpy(buf + 38, dst, 16);
		off = 54;
	} else {
		rc_put16(buf + 12, 0x0800);
		buf[14] = 0x45;
		rc_put16(buf + 16, len - 14);
		buf[22] = 64;
		buf[23] = tcp ? IPPROTO_TCP : IPPROTO_UDP;
		memcpy(buf + 26, src, 4);
		memcpy(buf + 30, dst, 4);
		off = 34;
	}
	rc_put16(buf + off, sport);
	rc_put16(buf + off + 2, dport);
	if (tcp) {
		buf[off + 12] = 5 << 4;
		off += 20;
	} else {
		rc_put16(buf + off + 4, len - off);
		off += 8;
	}
payload:
	rc_put32(buf + off, CL_MAGIC);
	rc_put32(buf + off + 4, i);
	for (k = off + 8; k < len; k++)
		buf[k] = (i * 13 + k) & 0xff;
	return len;
}

/* Frame i arrives on queue i % 2. */
static uint16_t cl_build_on(unsigned int i, const void *arg, uint8_t *buf,
			    unsigned int *queue)
{
	*queue = i % 2;
	return cl_build(i, buf);
}

static int cl_inject(const char *dev, unsigned int first, unsigned int n)
{
	return rc_sim_inject_built(dev, first, n, cl_build_on, NULL);
}

/* Where a frame went: owner[i] is the socket that got frame i, or -1. */
struct cl_seen {
	int owner[NFRAMES];
	unsigned int got[NMEMBERS + 1];
	/* gap records (RINGCAP_GAPS): per socket, and before each frame */
	uint64_t cluster_full[NMEMBERS + 1], ring_full[NMEMBERS + 1];
	uint64_t pending[NMEMBERS + 1];
	uint64_t gap_before[NFRAMES];
	char why[256];
};

static void cl_seen_init(struct cl_seen *s)
{
	memset(s, 0, sizeof(*s));
	memset(s->owner, 0xff, sizeof(s->owner));
}

/* The frame number in a record, after checking its bytes; -1 if wrong. */
static int cl_frame_id(const struct ringcap_rec *rec, char *why, size_t len)
{
	const uint8_t *d = (const uint8_t *)(rec + 1);
	uint8_t want[600];
	unsigned int off, id;

	if (rec->caplen != rec->wire_len || rec->caplen < 40) {
		snprintf(why, len, "caplen %u wire_len %u", rec->caplen,
			 rec->wire_len);
		return -1;
	}
	for (off = 14; off + 8 <= rec->caplen; off++)
		if (ntohl(*(uint32_t *)(d + off)) == CL_MAGIC)
			break;
	id = off + 8 <= rec->caplen ? ntohl(*(uint32_t *)(d + off + 4)) : ~0U;
	if (id >= NFRAMES || cl_build(id, want) != rec->caplen ||
	    memcmp(want, d, rec->caplen)) {
		snprintf(why, len, "a frame of %u bytes is not one we sent",
			 rec->caplen);
		return -1;
	}
	return id;
}

/* Read every record of r as socket `who`; -1 on a foreign or second copy. */
static int cl_drain(struct rc_ring *r, int who, struct cl_seen *s)
{
	uint32_t size = r->info.data_size;
	const struct ringcap_rec *rec;
	uint64_t prod;
	int id;

	prod = __atomic_load_n(&r->hdr->producer, __ATOMIC_ACQUIRE);
	while (r->cons < prod) {
		rec = (const struct ringcap_rec *)(r->data + (r->cons & (size - 1)));
		if (rec->rec_len < 8 || rec->rec_len % RINGCAP_REC_ALIGN ||
		    rec->rec_len > size - (r->cons & (size - 1))) {
			snprintf(s->why, sizeof(s->why), "bad rec_len %u",
				 rec->rec_len);
			return -1;
		}
		r->cons += rec->rec_len;
		if (rec->flags & RINGCAP_REC_PAD)
			continue;
		if (rec->flags & RINGCAP_REC_GAP) {
			const struct ringcap_gap *g = (const void *)(rec + 1);

			s->cluster_full[who] += g->cluster_full;
			s->ring_full[who] += g->ring_full;
			s->pending[who] += g->cluster_full + g->ring_full;
			continue;
		}
		id = cl_frame_id(rec, s->why, sizeof(s->why));
		if (id < 0)
			return -1;
		s->gap_before[id] = s->pending[who];
		s->pending[who] = 0;
		if (s->owner[id] != -1) {
			snprintf(s->why, sizeof(s->why),
				 "frame %d reached socket %d and socket %d",
				 id, s->owner[id], who);
			return -1;
		}
		s->owner[id] = who;
		s->got[who]++;
	}
	rc_release(r);
	return 0;
}

static uint64_t cl_accounted(struct rc_ring *m, unsigned int n)
{
	struct ringcap_stats st;
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (m[i].fd >= 0 && !rc_stats(m[i].fd, &st))
			sum += st.received + st.dropped + st.filtered;
	return sum;
}

static int cl_join(int fd, uint32_t id, uint32_t policy)
{
	struct ringcap_cluster cl = { .id = id, .policy = policy };

	return setsockopt(fd, SOL_RINGCAP, RINGCAP_CLUSTER, &cl,
			  sizeof(cl)) ? -errno : 0;
}

/* A mapped socket bound to all queues of ifindex, in cluster id (0: none). */
static int cl_open(struct rc_ring *r, int ifindex, uint32_t id,
		   uint32_t policy, uint32_t ring_size, unsigned int queue)
{
	int fd = rc_socket(), err;

	r->fd = -1;
	if (fd < 0)
		return fd;
	err = rc_setopt(fd, RINGCAP_RING_SIZE, ring_size);
	if (!err && id)
		err = cl_join(fd, id, policy);
	if (!err)
		err = rc_bind(fd, ifindex, queue);
	if (!err)
		err = rc_map(r, fd);
	if (err)
		close(fd);
	return err;
}

FIXTURE(cluster)
{
	struct rc_env env;
	struct rc_ring m[NMEMBERS + 1];	/* members, then one outsider */
	struct cl_seen seen, all;
};

FIXTURE_VARIANT(cluster)
{
	int mode;
};

FIXTURE_VARIANT_ADD(cluster, mode0) { .mode = 0 };
FIXTURE_VARIANT_ADD(cluster, mode1) { .mode = 1 };
FIXTURE_VARIANT_ADD(cluster, mode2) { .mode = 2 };

FIXTURE_SETUP(cluster)
{
	unsigned int i;

	for (i = 0; i <= NMEMBERS; i++)
		self->m[i].fd = -1;
	RC_SETUP_SIM(&self->env);
	RC_SET_MODE(variant->mode);
	/* keep every frame on one CPU's backlog, in order */
	ASSERT_EQ(0, rc_pin_cpu(0));
	cl_seen_init(&self->seen);
	cl_seen_init(&self->all);
}

FIXTURE_TEARDOWN(cluster)
{
	unsigned int i;

	for (i = 0; i <= NMEMBERS; i++)
		if (self->m[i].fd >= 0)
			rc_close(&self->m[i]);
	rc_teardown(&self->env);
}

/* Members 0..n-1 of cluster CL_ID with policy, and the outsider. */
static int cl_setup(FIXTURE_DATA(cluster) *self, unsigned int n,
		    uint32_t policy)
{
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		err = cl_open(&self->m[i], self->env.sim_idx, CL_ID, policy,
			      1 << 20, RINGCAP_QUEUE_ANY);
		if (err)
			return err;
	}
	return cl_open(&self->m[NMEMBERS], self->env.sim_idx, 0, 0, 1 << 20,
		       RINGCAP_QUEUE_ANY);
}

/* Send frames [first, first + n) and wait until the members had them. */
#define CL_SEND(first, n, members, total) do {				\
	ASSERT_EQ(0, cl_inject(self->env.sim, (first), (n)));		\
	ASSERT_TRUE(RC_WAIT_UNTIL(cl_accounted(self->m, (members)) >=	\
				  (total), 20000))			\
		TH_LOG("members accounted for %llu of %u frames",	\
		       (unsigned long long)cl_accounted(self->m, (members)), \
		       (unsigned int)(total));				\
} while (0)

#define CL_DRAIN(i, s)							\
	ASSERT_EQ(0, cl_drain(&self->m[(i)], (i), (s)))			\
		TH_LOG("%s", (s)->why)

/* Everything sent reached exactly one member, and the outsider got all. */
static void cl_check_union(struct __test_metadata *_metadata,
			   FIXTURE_DATA(cluster) *self, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (self->m[i].fd >= 0)
			CL_DRAIN(i, &self->seen);
	for (i = 0; i < NFRAMES; i++)
		ASSERT_NE(-1, self->seen.owner[i])
			TH_LOG("frame %u reached no member", i);
	ASSERT_TRUE(RC_WAIT_UNTIL(cl_accounted(&self->m[NMEMBERS], 1) >=
				  NFRAMES, 20000));
	CL_DRAIN(NMEMBERS, &self->all);
	ASSERT_EQ(NFRAMES, self->all.got[NMEMBERS]);
}

/*
 * flow: disjoint shares whose union is what was sent; both directions of
 * every conversation at one member; non-IP frames all at one member.
 */
TEST_F_TIMEOUT(cluster, flow_whole_flows_disjoint_union, 180)
{
	int owner[NFLOWS + 1];
	unsigned int i, f, busy = 0;

	ASSERT_EQ(0, cl_setup(self, NMEMBERS, RINGCAP_CLUSTER_FLOW));
	CL_SEND(0, NFRAMES, NMEMBERS, NFRAMES);
	cl_check_union(_metadata, self, NMEMBERS);
	memset(owner, 0xff, sizeof(owner));
	for (i = 0; i < NFRAMES; i++) {
		f = cl_flow(i);
		if (owner[f] == -1)
			owner[f] = self->seen.owner[i];
		ASSERT_EQ(owner[f], self->seen.owner[i])
			TH_LOG("flow %u split: frame %u at member %d, before at %d",
			       f, i, self->seen.owner[i], owner[f]);
	}
	for (i = 0; i < NMEMBERS; i++)
		busy += self->seen.got[i] > 0;
	/* 20 flows over 3 members: a hash that used one member is broken. */
	ASSERT_LE(2, busy);
}

TEST_F_TIMEOUT(cluster, rr_balances_within_one, 180)
{
	unsigned int i, lo = NFRAMES, hi = 0;

	ASSERT_EQ(0, cl_setup(self, NMEMBERS, RINGCAP_CLUSTER_RR));
	CL_SEND(0, NFRAMES, NMEMBERS, NFRAMES);
	cl_check_union(_metadata, self, NMEMBERS);
	for (i = 0; i < NMEMBERS; i++) {
		lo = self->seen.got[i] < lo ? self->seen.got[i] : lo;
		hi = self->seen.got[i] > hi ? self->seen.got[i] : hi;
	}
	ASSERT_LE(hi, lo + 1) TH_LOG("shares from %u to %u", lo, hi);
}

/* queue: with two members, queue 0's frames at one, queue 1's at the other. */
TEST_F_TIMEOUT(cluster, queue_policy_follows_rx_queue, 180)
{
	unsigned int i;

	ASSERT_EQ(0, cl_setup(self, 2, RINGCAP_CLUSTER_QUEUE));
	CL_SEND(0, NFRAMES, 2, NFRAMES);
	cl_check_union(_metadata, self, 2);
	for (i = 2; i < NFRAMES; i++)
		ASSERT_EQ(self->seen.owner[i % 2], self->seen.owner[i]);
	ASSERT_NE(self->seen.owner[0], self->seen.owner[1]);
}

/* A member that leaves mid-stream: the rest go to those present. */
TEST_F_TIMEOUT(cluster, member_leaves_nothing_unaccounted, 180)
{
	unsigned int half = NFRAMES / 2, i, left;

	ASSERT_EQ(0, cl_setup(self, NMEMBERS, RINGCAP_CLUSTER_FLOW));
	CL_SEND(0, half, NMEMBERS, half);
	CL_DRAIN(2, &self->seen);
	left = self->seen.got[2];
	rc_close(&self->m[2]);
	self->m[2].fd = -1;
	CL_SEND(half, NFRAMES - half, NMEMBERS, NFRAMES - left);
	cl_check_union(_metadata, self, NMEMBERS);
	for (i = half; i < NFRAMES; i++)
		ASSERT_NE(2, self->seen.owner[i]);
}

/* A member whose ring is tiny drops its own share; the others lose none. */
TEST_F_TIMEOUT(cluster, tiny_ring_drops_only_its_share, 180)
{
	struct ringcap_stats st[NMEMBERS];
	uint64_t got = 0;
	unsigned int i;

	ASSERT_EQ(0, cl_open(&self->m[0], self->env.sim_idx, CL_ID,
			     RINGCAP_CLUSTER_RR, 4096, RINGCAP_QUEUE_ANY));
	for (i = 1; i < NMEMBERS; i++)
		ASSERT_EQ(0, cl_open(&self->m[i], self->env.sim_idx, CL_ID,
				     RINGCAP_CLUSTER_RR, 1 << 20,
				     RINGCAP_QUEUE_ANY));
	CL_SEND(0, NFRAMES, NMEMBERS, NFRAMES);
	for (i = 0; i < NMEMBERS; i++) {
		ASSERT_EQ(0, rc_stats(self->m[i].fd, &st[i]));
		CL_DRAIN(i, &self->seen);
		ASSERT_EQ(st[i].received, self->seen.got[i]);
		got += st[i].received + st[i].dropped;
	}
	ASSERT_LT(0, st[0].dropped) TH_LOG("a 4 KiB ring took its whole share");
	ASSERT_EQ(0, st[1].dropped);
	ASSERT_EQ(0, st[2].dropped);
	ASSERT_EQ(NFRAMES, got);
	ASSERT_GE(NFRAMES / NMEMBERS + 1, st[0].received + st[0].dropped);
}

static int cl_tiny_member(int fd, const void *arg)
{
	int err = cl_join(fd, CL_ID, RINGCAP_CLUSTER_RR);

	(void)arg;
	return err ? err : rc_setopt(fd, RINGCAP_GAPS, 1);
}

/*
 * The frames a full member lost are its own gap, with the reason
 * cluster_full, and they add up to its dropped counter: the last gap is
 * carried by one more frame, sent once the member is alone.
 */
TEST_F_TIMEOUT(cluster, member_full_is_a_cluster_gap, 180)
{
	const unsigned int last = NFRAMES - 1, n = NFRAMES - 1;
	struct ringcap_stats st;
	unsigned int i, q;
	uint64_t acc;

	ASSERT_EQ(0, rc_open_bound_with(&self->m[0], self->env.sim_idx,
					RINGCAP_QUEUE_ANY, 4096,
					cl_tiny_member, NULL));
	for (i = 1; i < NMEMBERS; i++)
		ASSERT_EQ(0, cl_open(&self->m[i], self->env.sim_idx, CL_ID,
				     RINGCAP_CLUSTER_RR, 1 << 20,
				     RINGCAP_QUEUE_ANY));
	/* In quarters, read in between: each quarter's loss is a gap. */
	for (q = 0; q < 4; q++) {
		CL_SEND(q * n / 4, (q + 1) * n / 4 - q * n / 4, NMEMBERS,
			(q + 1) * n / 4);
		for (i = 0; i < NMEMBERS; i++)
			CL_DRAIN(i, &self->seen);
	}
	for (i = 1; i < NMEMBERS; i++)
		rc_close(&self->m[i]);
	ASSERT_EQ(0, rc_stats(self->m[0].fd, &st));
	acc = st.received + st.dropped;
	ASSERT_EQ(0, cl_inject(self->env.sim, last, 1));
	ASSERT_TRUE(RC_WAIT_UNTIL(!rc_stats(self->m[0].fd, &st) &&
				  st.received + st.dropped > acc, 20000));
	CL_DRAIN(0, &self->seen);
	ASSERT_EQ(0, self->seen.owner[last]);
	ASSERT_EQ(0, rc_stats(self->m[0].fd, &st));
	ASSERT_LT(0, st.dropped) TH_LOG("a 4 KiB ring took its whole share");
	ASSERT_EQ(st.dropped, self->seen.cluster_full[0]);
	ASSERT_EQ(0, self->seen.ring_full[0]);
	ASSERT_EQ(0, self->seen.pending[0]);
	ASSERT_EQ(st.received, self->seen.got[0]);
	TH_LOG("member 0: %llu frames, %llu lost, all in cluster_full gaps",
	       (unsigned long long)st.received,
	       (unsigned long long)st.dropped);
}

/* Three lone sockets each get every frame, byte for byte: one hook, N readers. */
TEST_F_TIMEOUT(cluster, lone_sockets_each_get_all, 180)
{
	struct cl_seen s;
	unsigned int i;

	for (i = 0; i < NMEMBERS; i++)
		ASSERT_EQ(0, cl_open(&self->m[i], self->env.sim_idx, 0, 0,
				     1 << 20, RINGCAP_QUEUE_ANY));
	CL_SEND(0, NFRAMES, NMEMBERS, (uint64_t)NMEMBERS * NFRAMES);
	for (i = 0; i < NMEMBERS; i++) {
		cl_seen_init(&s);
		CL_DRAIN(i, &s);
		ASSERT_EQ(NFRAMES, s.got[i]);
	}
}

/* Bad requests get their documented errno; /proc shows membership. */
TEST_F(cluster, requests_and_proc)
{
	struct ringcap_cluster cl = { .id = CL_ID, .policy = 3 };
	struct rc_proc_line pl;
	socklen_t len = sizeof(cl);
	struct rc_ring r;
	int fd, fd2;

	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(-1, setsockopt(fd, SOL_RINGCAP, RINGCAP_CLUSTER, &cl,
				 sizeof(cl)));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, setsockopt(fd, SOL_RINGCAP, RINGCAP_CLUSTER, &cl, 4));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, cl_join(fd, CL_ID, RINGCAP_CLUSTER_RR));
	ASSERT_EQ(0, getsockopt(fd, SOL_RINGCAP, RINGCAP_CLUSTER, &cl, &len));
	ASSERT_EQ(CL_ID, cl.id);
	ASSERT_EQ(RINGCAP_CLUSTER_RR, cl.policy);
	ASSERT_EQ(0, rc_bind(fd, self->env.sim_idx, RINGCAP_QUEUE_ANY));
	ASSERT_EQ(-EBUSY, cl_join(fd, CL_ID, RINGCAP_CLUSTER_RR));

	/* Another policy, or another queue, for the same cluster. */
	fd2 = rc_socket();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cl_join(fd2, CL_ID, RINGCAP_CLUSTER_FLOW));
	ASSERT_EQ(-EEXIST, rc_bind(fd2, self->env.sim_idx, RINGCAP_QUEUE_ANY));
	ASSERT_EQ(0, cl_join(fd2, CL_ID, RINGCAP_CLUSTER_RR));
	ASSERT_EQ(-EEXIST, rc_bind(fd2, self->env.sim_idx, 1));
	ASSERT_EQ(0, rc_bind(fd2, self->env.sim_idx, RINGCAP_QUEUE_ANY));

	ASSERT_EQ(0, rc_proc_find(fd, &pl));
	ASSERT_STREQ("7", pl.cluster);
	ASSERT_STREQ("rr", pl.policy);
	close(fd2);
	close(fd);

	ASSERT_EQ(0, cl_open(&r, self->env.sim_idx, 0, 0, 1 << 16,
			     RINGCAP_QUEUE_ANY));
	ASSERT_EQ(0, rc_proc_find(r.fd, &pl));
	ASSERT_STREQ("-", pl.cluster);
	ASSERT_STREQ("-", pl.policy);
	rc_close(&r);
}

TEST_HARNESS_MAIN
