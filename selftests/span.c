// SPDX-License-Identifier: GPL-2.0
/*
 * Clusters that span devices (RINGCAP_CLUSTER_SPAN): the two ports of a
 * tap are two sim devices, one carrying each direction of the same
 * conversations, and the cluster's members are bound some to one port,
 * some to the other. Every flow, both directions, must reach one member,
 * none lost or doubled, in every transparent mode: IPv4 and IPv6 TCP and
 * UDP, IPv6 behind extension headers, and the fragments of a datagram.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "kselftest_harness.h"
#include "rc_test.h"

#define SP_MAGIC	0x52435350	/* "RCSP" */
#define NFLOWS		10000
#define NFRAGS		200		/* fragmented datagrams, of 2 pieces */
#define NMEMBERS	3
#define SP_ID		11

/*
 * The payload every frame here ends with, from @off to @len: SP_MAGIC,
 * the frame's number @i and direction (what sp_drain() reads back), then
 * bytes that vary with @i (by @mul) and the offset. Return: @len.
 */
static uint16_t sp_tail(uint8_t *buf, unsigned int off, uint16_t len,
			unsigned int i, int dir, unsigned int mul)
{
	unsigned int k;

	rc_put32(buf + off, SP_MAGIC);
	rc_put32(buf + off + 4, i);
	buf[off + 8] = dir;
	for (k = off + 9; k < len; k++)
		buf[k] = (i * mul + k) & 0xff;
	return len;
}

/*
 * Frame i (of a direction): flow i % NFLOWS for i < NFLOWS, then piece
 * (i - NFLOWS) % 2 of datagram (i - NFLOWS) / 2 of flow
 * (i - NFLOWS) / 2, UDP over IPv4.
 */
#define SP_FRAMES	(NFLOWS + 2 * NFRAGS)

struct sp_arg {
	unsigned int dir;
};

static uint16_t sp_build(unsigned int i, const void *arg, uint8_t *buf,
			 unsigned int *queue)
{
	unsigned int dir = ((const struct sp_arg *)arg)->dir;
	unsigned int f = i < NFLOWS ? i : (i - NFLOWS) / 2;
	int frag = i < NFLOWS ? 0 : 1 + (i - NFLOWS) % 2;
	bool v6 = !frag && f % 3 == 1, ext = v6 && f % 6 == 4;
	bool tcp = !frag && f % 2;
	uint8_t a[16] = { 0 }, b[16] = { 0 }, *src, *dst;
	uint16_t pa = 1024 + f % 50000, pb = tcp ? 443 : 53, len = 96;
	unsigned int off;

	*queue = 0;
	memset(buf, 0, len);
	memcpy(buf, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	/* addresses shared by many flows: ports tell them apart */
	a[0] = 10; a[1] = 1; a[2] = f % 7; a[3] = 1;
	b[0] = 10; b[1] = 2; b[3] = f % 5 + 1;
	src = dir ? b : a;
	dst = dir ? a : b;
	if (v6) {
		a[0] = b[0] = 0xfd;
		rc_put16(buf + 12, 0x86dd);
		buf[14] = 0x60;
		rc_put16(buf + 18, len - 54);
		buf[20] = ext ? IPPROTO_DSTOPTS : tcp ? IPPROTO_TCP : IPPROTO_UDP;
		buf[21] = 64;
		memcpy(buf + 22, src, 16);
		memcpy(buf + 38, dst, 16);
		off = 54;
		if (ext) {
			buf[off] = tcp ? IPPROTO_TCP : IPPROTO_UDP;
			buf[off + 2] = 1;
			buf[off + 3] = 4;
			off += 8;
		}
	} else {
		rc_put16(buf + 12, 0x0800);
		buf[14] = 0x45;
		rc_put16(buf + 16, len - 14);
		rc_put16(buf + 18, f);
		/* first piece: more fragments; second: offset 8 bytes */
		if (frag)
			rc_put16(buf + 20, frag == 1 ? 0x2000 : 0x0001);
		buf[22] = 64;
		buf[23] = tcp ? IPPROTO_TCP : IPPROTO_UDP;
		memcpy(buf + 26, src, 4);
		memcpy(buf + 30, dst, 4);
		off = 34;
	}
	if (frag != 2) {
		rc_put16(buf + off, dir ? pb : pa);
		rc_put16(buf + off + 2, dir ? pa : pb);
		if (tcp)
			buf[off + 12] = 5 << 4, buf[off + 13] = 0x10;
		off += tcp ? 20 : 8;
	}
	return sp_tail(buf, off, len, i, dir, 7);
}

/* Where each frame went: owner[dir][i] the member, or -1. */
struct sp_seen {
	int owner[2][SP_FRAMES];
	unsigned int got[NMEMBERS];
	char why[160];
};

static int sp_drain(struct rc_ring *r, int who, struct sp_seen *s)
{
	uint32_t size = r->info.data_size;
	const struct ringcap_rec *rec;
	const uint8_t *d;
	uint64_t prod;
	unsigned int off, i, dir;

	prod = __atomic_load_n(&r->hdr->producer, __ATOMIC_ACQUIRE);
	while (r->cons < prod) {
		rec = (const void *)(r->data + (r->cons & (size - 1)));
		r->cons += rec->rec_len;
		if (rec->flags & RINGCAP_REC_PAD)
			continue;
		d = (const uint8_t *)(rec + 1);
		for (off = 34; off + 9 <= rec->caplen; off++)
			if (ntohl(*(const uint32_t *)(d + off)) == SP_MAGIC)
				break;
		if (off + 9 > rec->caplen) {
			snprintf(s->why, sizeof(s->why),
				 "member %d: a frame of %u bytes not ours", who,
				 rec->caplen);
			return -1;
		}
		i = ntohl(*(const uint32_t *)(d + off + 4));
		dir = d[off + 8];
		if (i >= SP_FRAMES || dir > 1 || s->owner[dir][i] != -1) {
			snprintf(s->why, sizeof(s->why),
				 "member %d: frame %u dir %u %s", who, i, dir,
				 i < SP_FRAMES && dir < 2 ? "twice" : "unknown");
			return -1;
		}
		s->owner[dir][i] = who;
		s->got[who]++;
	}
	rc_release(r);
	return 0;
}

static int sp_join(int fd, const void *arg)
{
	const struct ringcap_cluster *cl = arg;

	return setsockopt(fd, SOL_RINGCAP, RINGCAP_CLUSTER, cl, sizeof(*cl)) ?
	       -errno : 0;
}

FIXTURE(span)
{
	struct rc_env env;
	char simb[IFNAMSIZ];
	int simb_idx;
	struct rc_ring m[NMEMBERS];
	struct sp_seen seen;
};

FIXTURE_VARIANT(span)
{
	int mode;
};

FIXTURE_VARIANT_ADD(span, mode0) { .mode = 0 };
FIXTURE_VARIANT_ADD(span, mode1) { .mode = 1 };
FIXTURE_VARIANT_ADD(span, mode2) { .mode = 2 };

FIXTURE_SETUP(span)
{
	unsigned int i;

	for (i = 0; i < NMEMBERS; i++)
		self->m[i].fd = -1;
	memset(self->seen.owner, 0xff, sizeof(self->seen.owner));
	memset(self->seen.got, 0, sizeof(self->seen.got));
	RC_SETUP_SIM(&self->env);
	RC_SET_MODE(variant->mode);
	snprintf(self->simb, IFNAMSIZ, "rcsb%d", getpid());
	self->simb_idx = rc_sim_create(self->simb);
	ASSERT_LT(0, self->simb_idx);
}

FIXTURE_TEARDOWN(span)
{
	unsigned int i;

	for (i = 0; i < NMEMBERS; i++)
		if (self->m[i].fd >= 0)
			rc_close(&self->m[i]);
	if (self->simb[0] && if_nametoindex(self->simb))
		rc_link_del(self->simb);
	rc_teardown(&self->env);
}

TEST_F_TIMEOUT(span, both_directions_of_every_flow_reach_one_member, 300)
{
	struct ringcap_cluster cl = {
		.id = SP_ID,
		.policy = RINGCAP_CLUSTER_FLOW | RINGCAP_CLUSTER_SPAN,
	};
	struct sp_arg fwd = { .dir = 0 }, rev = { .dir = 1 };
	struct ringcap_stats st;
	unsigned int j, f, split = 0, frag_split = 0, total, pass;
	int ifs[NMEMBERS] = { self->env.sim_idx, self->simb_idx,
			      self->env.sim_idx };

	for (j = 0; j < NMEMBERS; j++)
		ASSERT_EQ(0, rc_open_bound_with(&self->m[j], ifs[j],
						RINGCAP_QUEUE_ANY, 8 << 20,
						sp_join, &cl));
	/* in passes, read as they come: 8 MiB rings hold a pass each */
	for (pass = 0; pass < 2 * 4; pass++) {
		unsigned int first = (pass / 2) * (SP_FRAMES / 4);
		unsigned int n = pass / 2 == 3 ? SP_FRAMES - first :
						 SP_FRAMES / 4;

		/* forward on the first port, reverse on the second */
		ASSERT_EQ(0, rc_sim_inject_built(pass % 2 ? self->simb :
						 self->env.sim, first, n,
						 sp_build,
						 pass % 2 ? &rev : &fwd));
		for (total = 0, f = 0; f < 5000; f++) {
			for (total = 0, j = 0; j < NMEMBERS; j++) {
				ASSERT_EQ(0, rc_stats(self->m[j].fd, &st));
				total += st.received + st.dropped;
			}
			if (total >= (pass / 2) * 2 * (SP_FRAMES / 4) +
				     (pass % 2 + 1) * n)
				break;
			rc_sleep_us(1000);
		}
		for (j = 0; j < NMEMBERS; j++)
			ASSERT_EQ(0, sp_drain(&self->m[j], j, &self->seen))
				TH_LOG("%s", self->seen.why);
	}
	for (j = 0; j < NMEMBERS; j++) {
		ASSERT_EQ(0, rc_stats(self->m[j].fd, &st));
		EXPECT_EQ(0, st.dropped) TH_LOG("member %u", j);
		EXPECT_LT(SP_FRAMES / 10, self->seen.got[j])
			TH_LOG("member %u got %u of %u", j, self->seen.got[j],
			       2 * SP_FRAMES);
	}
	for (f = 0; f < SP_FRAMES; f++) {
		ASSERT_NE(-1, self->seen.owner[0][f]) TH_LOG("frame %u lost", f);
		ASSERT_NE(-1, self->seen.owner[1][f]) TH_LOG("frame %u back lost", f);
		if (self->seen.owner[0][f] != self->seen.owner[1][f])
			split++;
	}
	/* the pieces of a datagram, each direction, together */
	for (f = NFLOWS; f < SP_FRAMES; f += 2)
		if (self->seen.owner[0][f] != self->seen.owner[0][f + 1] ||
		    self->seen.owner[1][f] != self->seen.owner[1][f + 1])
			frag_split++;
	EXPECT_EQ(0, split);
	EXPECT_EQ(0, frag_split);
	rc_report("span_flows", !split && !frag_split,
		  "%d flows in both directions over two ports, %d fragmented datagrams: %u split, members got %u/%u/%u",
		  NFLOWS, NFRAGS, split + frag_split, self->seen.got[0],
		  self->seen.got[1], self->seen.got[2]);
}

TEST_F(span, membership_rules)
{
	struct ringcap_cluster span = {
		.id = SP_ID, .policy = RINGCAP_CLUSTER_FLOW | RINGCAP_CLUSTER_SPAN,
	}, rr = {
		.id = SP_ID, .policy = RINGCAP_CLUSTER_RR | RINGCAP_CLUSTER_SPAN,
	}, plain = { .id = SP_ID, .policy = RINGCAP_CLUSTER_FLOW };
	struct rc_ring r;
	struct rc_proc_line pl;
	int fd;

	/* one queue: refused, a spanning member takes all of a device's */
	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sp_join(fd, &span));
	EXPECT_EQ(-EINVAL, rc_bind(fd, self->env.sim_idx, 0));
	close(fd);
	ASSERT_EQ(0, rc_open_bound_with(&self->m[0], self->env.sim_idx,
					RINGCAP_QUEUE_ANY, 1 << 16, sp_join,
					&span));
	ASSERT_EQ(0, rc_proc_find(self->m[0].fd, &pl));
	EXPECT_STREQ("flow+span", pl.policy);
	/* another policy on the other port: the same cluster, refused */
	EXPECT_EQ(-EEXIST, rc_open_bound_with(&r, self->simb_idx,
					      RINGCAP_QUEUE_ANY, 1 << 16,
					      sp_join, &rr));
	/* the same id without the flag on the other port: another cluster */
	ASSERT_EQ(0, rc_open_bound_with(&self->m[1], self->simb_idx,
					RINGCAP_QUEUE_ANY, 1 << 16, sp_join,
					&plain));
	/* but on one device an id is one cluster: not both there */
	EXPECT_EQ(-EEXIST, rc_open_bound_with(&r, self->simb_idx,
					      RINGCAP_QUEUE_ANY, 1 << 16,
					      sp_join, &span));
	rc_close(&self->m[1]);
	self->m[1].fd = -1;
	ASSERT_EQ(0, rc_open_bound_with(&self->m[2], self->simb_idx,
					RINGCAP_QUEUE_ANY, 1 << 16, sp_join,
					&span));
	/* at most RINGCAP_CLUSTER_SPAN_MAX members: 2 bound, then the rest */
	{
		int fds[RINGCAP_CLUSTER_SPAN_MAX], k, nf = 0, err = 0;

		for (k = 2; k < RINGCAP_CLUSTER_SPAN_MAX && !err; k++) {
			fds[nf] = rc_socket();
			err = fds[nf] < 0 ? fds[nf] :
			      rc_setopt(fds[nf], RINGCAP_RING_SIZE, 4096);
			if (!err)
				err = sp_join(fds[nf], &span);
			if (!err)
				err = rc_bind(fds[nf], k % 2 ? self->simb_idx :
						       self->env.sim_idx,
					      RINGCAP_QUEUE_ANY);
			if (fds[nf] >= 0)
				nf++;
		}
		EXPECT_EQ(0, err) TH_LOG("member %d of %d", k,
					 RINGCAP_CLUSTER_SPAN_MAX);
		fds[nf] = rc_socket();
		if (fds[nf] >= 0 && !sp_join(fds[nf], &span))
			EXPECT_EQ(-ENOSPC, rc_bind(fds[nf], self->simb_idx,
						   RINGCAP_QUEUE_ANY));
		for (k = 0; k <= nf; k++)
			if (fds[k] >= 0)
				close(fds[k]);
	}
	/* the first port goes away: the member left still gets the second's */
	rc_link_del(self->env.sim);
	memset(&self->seen.owner, 0xff, sizeof(self->seen.owner));
	ASSERT_EQ(0, rc_sim_inject_built(self->simb, 0, 100, sp_build,
					 &(struct sp_arg){ .dir = 1 }));
	rc_sleep_us(200 * 1000);
	ASSERT_EQ(0, sp_drain(&self->m[2], 2, &self->seen))
		TH_LOG("%s", self->seen.why);
	EXPECT_EQ(100, self->seen.got[2]);
}

/*
 * Tunnels: NTUN flows between two tunnel endpoints (10.50.0.1 and .2,
 * the same outer headers for all), a third each in VXLAN (inner Ethernet,
 * IPv4 TCP), GRE with IPv4 inside, and GRE with a key carrying Ethernet
 * and IPv6 UDP. Frame i: flow i % NTUN, direction (i / NTUN) % 2.
 */
#define NTUN		300
#define TUN_FRAMES	(4 * NTUN)

static uint16_t tun_build(unsigned int i, const void *arg, uint8_t *buf,
			  unsigned int *queue)
{
	unsigned int f = i % NTUN, dir = (i / NTUN) % 2, kind = f % 3;
	uint8_t oa[4] = { 10, 50, 0, 1 }, ob[4] = { 10, 50, 0, 2 };
	uint8_t ia[16] = { 0 }, ib[16] = { 0 };
	uint16_t len = 160, pa = 2000 + f, pb = kind == 2 ? 53 : 80;
	unsigned int off, ip;

	*queue = 0;
	memset(buf, 0, len);
	memcpy(buf, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	rc_put16(buf + 12, 0x0800);
	buf[14] = 0x45;
	rc_put16(buf + 16, len - 14);
	buf[22] = 64;
	buf[23] = kind ? 47 : IPPROTO_UDP;
	memcpy(buf + 26, dir ? ob : oa, 4);
	memcpy(buf + 30, dir ? oa : ob, 4);
	off = 34;
	if (kind == 0) {		/* VXLAN to port 4789 both ways */
		rc_put16(buf + off, 50000);
		rc_put16(buf + off + 2, 4789);
		rc_put16(buf + off + 4, len - off);
		buf[off + 8] = 0x08;	/* I flag; VNI 0 */
		off += 16;
	} else if (kind == 1) {		/* GRE, IPv4 inside */
		rc_put16(buf + off + 2, 0x0800);
		off += 4;
	} else {			/* GRE with a key, Ethernet inside */
		rc_put16(buf + off, 0x2000);
		rc_put16(buf + off + 2, 0x6558);
		rc_put32(buf + off + 4, 77);
		off += 8;
	}
	if (kind != 1) {
		memcpy(buf + off, "\x02\x00\x00\x00\x00\x04\x02\x00\x00\x00\x00\x03", 12);
		rc_put16(buf + off + 12, kind == 2 ? 0x86dd : 0x0800);
		off += 14;
	}
	ia[0] = 192; ia[1] = 168; ia[2] = f % 4; ia[3] = 1;
	ib[0] = 192; ib[1] = 168; ib[2] = 9; ib[3] = 9;
	ip = off;
	if (kind == 2) {
		ia[0] = ib[0] = 0xfd;
		buf[ip] = 0x60;
		rc_put16(buf + ip + 4, len - ip - 40);
		buf[ip + 6] = IPPROTO_UDP;
		buf[ip + 7] = 64;
		memcpy(buf + ip + 8, dir ? ib : ia, 16);
		memcpy(buf + ip + 24, dir ? ia : ib, 16);
		off += 40;
	} else {
		buf[ip] = 0x45;
		rc_put16(buf + ip + 2, len - ip);
		buf[ip + 8] = 64;
		buf[ip + 9] = IPPROTO_TCP;
		memcpy(buf + ip + 12, dir ? ib : ia, 4);
		memcpy(buf + ip + 16, dir ? ia : ib, 4);
		off += 20;
	}
	rc_put16(buf + off, dir ? pb : pa);
	rc_put16(buf + off + 2, dir ? pa : pb);
	if (kind == 2) {
		rc_put16(buf + off + 4, len - off);
		off += 8;
	} else {
		buf[off + 12] = 5 << 4;
		buf[off + 13] = 0x10;
		off += 20;
	}
	return sp_tail(buf, off, len, i, dir, 5);
}

/*
 * Three members of one cluster with @policy on the first sim, the tunnel
 * frames, and who got which (self->seen, by each frame's number and
 * direction).
 */
static int tun_run(FIXTURE_DATA(span) *self, uint32_t policy)
{
	struct ringcap_cluster cl = { .id = SP_ID + 1, .policy = policy };
	struct ringcap_stats st;
	unsigned int j, i, total = 0;
	int err;

	memset(self->seen.owner, 0xff, sizeof(self->seen.owner));
	memset(self->seen.got, 0, sizeof(self->seen.got));
	for (j = 0; j < NMEMBERS; j++) {
		err = rc_open_bound_with(&self->m[j], self->env.sim_idx,
					 RINGCAP_QUEUE_ANY, 1 << 20, sp_join,
					 &cl);
		if (err)
			return err;
	}
	err = rc_sim_inject_built(self->env.sim, 0, TUN_FRAMES, tun_build,
				  NULL);
	for (i = 0; !err && i < 5000 && total < TUN_FRAMES; i++) {
		rc_sleep_us(1000);
		for (total = 0, j = 0; j < NMEMBERS; j++)
			if (!rc_stats(self->m[j].fd, &st))
				total += st.received + st.dropped;
	}
	for (j = 0; j < NMEMBERS; j++) {
		if (!err && sp_drain(&self->m[j], j, &self->seen))
			err = -EIO;
		rc_close(&self->m[j]);
		self->m[j].fd = -1;
	}
	return err;
}

/* Who got frame i of the tunnel traffic. */
static int tun_owner(FIXTURE_DATA(span) *self, unsigned int i)
{
	return self->seen.owner[(i / NTUN) % 2][i];
}

TEST_F(span, tunnels_spread_by_their_inner_flows)
{
	unsigned int *got = self->seen.got, f, split = 0, lost = 0;

	ASSERT_EQ(0, tun_run(self, RINGCAP_CLUSTER_FLOW | RINGCAP_CLUSTER_INNER))
		TH_LOG("%s", self->seen.why);
	for (f = 0; f < TUN_FRAMES; f++) {
		if (tun_owner(self, f) == -1)
			lost++;
		/* the same flow: the other direction, the next repetition */
		else if (tun_owner(self, f) != tun_owner(self, f % NTUN))
			split++;
	}
	EXPECT_EQ(0, lost);
	EXPECT_EQ(0, split);
	/* and spread: every member a fair share */
	EXPECT_LT(TUN_FRAMES / 10, got[0] < got[1] ?
		  (got[0] < got[2] ? got[0] : got[2]) :
		  (got[1] < got[2] ? got[1] : got[2]))
		TH_LOG("members got %u/%u/%u", got[0], got[1], got[2]);
	rc_report("span_tunnels", !lost && !split,
		  "%d flows in VXLAN and GRE between two endpoints, both ways: %u split, members got %u/%u/%u",
		  NTUN, split, got[0], got[1], got[2]);

	/*
	 * Without the flag each tunnel is one flow: all of VXLAN's frames
	 * at one member, all of GRE's at one (the outer headers alone).
	 */
	ASSERT_EQ(0, tun_run(self, RINGCAP_CLUSTER_FLOW))
		TH_LOG("%s", self->seen.why);
	for (split = 0, f = 0; f < TUN_FRAMES; f++)
		if (tun_owner(self, f) == -1 ||
		    tun_owner(self, f) != tun_owner(self, (f % NTUN) % 3 ? 1 : 0))
			split++;
	EXPECT_EQ(0, split) TH_LOG("frames away from their tunnel's member");
}

TEST_HARNESS_MAIN
