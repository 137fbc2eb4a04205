// SPDX-License-Identifier: GPL-2.0
/*
 * The receive path: frames over a veth pair (the standard path, mode 0)
 * and over the sim device in each transparent mode arrive byte-exact, in
 * order, with the right lengths and timestamps; snaplen, BPF filters,
 * several sockets on one device, binding to one RX queue, and where a
 * VLAN tag ends up.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include "kselftest_harness.h"
#include "rc_test.h"

#define NFRAMES	1009
#define BATCH	32	/* frames between drains: < 64 KiB of ring */

/* How frames get to the device under test. */
struct feeder {
	struct rc_env *env;
	int pkt_fd;		/* veth: AF_PACKET socket on the far end */
};

static int feed(struct feeder *f, const struct rc_spec *specs,
		unsigned int n)
{
	if (f->env->sim[0])
		return rc_sim_inject(f->env->sim, specs, n);
	return rc_packet_send(f->pkt_fd, f->env->va_idx, specs, n);
}

/*
 * Send n frames in batches, draining every ring after each batch once the
 * batch is accounted for, so that rings smaller than the traffic wrap.
 */
static int feed_and_drain(struct __test_metadata *_metadata,
			  struct feeder *f, const struct rc_spec *specs,
			  unsigned int n, struct rc_ring *rings,
			  struct rc_cap *caps, unsigned int nrings)
{
	struct ringcap_stats st;
	unsigned int i, k, done;
	int err;

	for (i = 0; i < n; i += BATCH) {
		done = i + BATCH < n ? i + BATCH : n;
		err = feed(f, specs + i, done - i);
		if (err) {
			TH_LOG("sending frames %u..%u: %s", i, done,
			       strerror(-err));
			return err;
		}
		for (k = 0; k < nrings; k++) {
			err = rc_wait_accounted(rings[k].fd, done, 20000, &st);
			if (err) {
				TH_LOG("ring %u: %llu of %u frames accounted",
				       k, (unsigned long long)(st.received +
				       st.dropped + st.filtered), done);
				return err;
			}
			err = rc_drain(&rings[k], &caps[k]);
			if (err < 0) {
				TH_LOG("ring %u: %s", k, caps[k].why);
				return err;
			}
		}
	}
	return 0;
}

FIXTURE(path)
{
	struct rc_env env;
	struct feeder f;
};

FIXTURE_VARIANT(path)
{
	bool sim;
	int mode;
};

FIXTURE_VARIANT_ADD(path, veth) { .sim = false, .mode = -1 };
FIXTURE_VARIANT_ADD(path, sim_mode0) { .sim = true, .mode = 0 };
FIXTURE_VARIANT_ADD(path, sim_mode1) { .sim = true, .mode = 1 };
FIXTURE_VARIANT_ADD(path, sim_mode2) { .sim = true, .mode = 2 };

FIXTURE_SETUP(path)
{
	if (variant->sim) {
		RC_SETUP_SIM(&self->env);
		RC_SET_MODE(variant->mode);
		self->f.pkt_fd = -1;
	} else {
		RC_SETUP_VETH(&self->env);
		self->f.pkt_fd = rc_packet_open(self->env.va_idx);
		ASSERT_LE(0, self->f.pkt_fd);
	}
	self->f.env = &self->env;
}

FIXTURE_TEARDOWN(path)
{
	rc_teardown(&self->env);
}

static int dev_idx(const struct rc_env *env)
{
	return env->sim[0] ? env->sim_idx : env->vb_idx;
}

TEST_F_TIMEOUT(path, frames_arrive_byte_exact_in_order, 180)
{
	struct rc_spec *specs;
	struct ringcap_stats st;
	struct rc_ring r;
	struct rc_cap cap;
	uint64_t t0, t1;

	specs = rc_specs(NULL, NFRAMES, 0, 0, 1, RC_LEN_VARIED);
	ASSERT_EQ(0, rc_open_bound(&r, dev_idx(&self->env),
				   RINGCAP_QUEUE_ANY, 65536));
	rc_cap_init(&cap, NFRAMES);
	t0 = rc_now_ns(CLOCK_REALTIME);
	ASSERT_EQ(0, feed_and_drain(_metadata, &self->f, specs, NFRAMES, &r,
				    &cap, 1));
	t1 = rc_now_ns(CLOCK_REALTIME);
	RC_EXPECT_FRAMES(&cap, specs, NFRAMES, dev_idx(&self->env),
			 RINGCAP_SNAPLEN_MAX, t0, t1);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(NFRAMES, st.received);
	ASSERT_EQ(0, st.dropped);
	ASSERT_EQ(0, st.filtered);
	/* the shared header mirrors the counters */
	ASSERT_EQ(NFRAMES, r.hdr->received);
	ASSERT_EQ(0, r.hdr->dropped);
	/* 836320 bytes of records went through 64 KiB: it wrapped */
	ASSERT_LT(0, r.pads);
	rc_close(&r);
	rc_cap_free(&cap);
	free(specs);
}

TEST_F_TIMEOUT(path, snaplen_truncates_keeps_wire_len, 180)
{
	struct rc_spec *specs;
	struct ringcap_stats st;
	struct rc_ring r;
	struct rc_cap cap;
	unsigned int i, trunc = 0;
	int fd;

	specs = rc_specs(NULL, NFRAMES, 0, 0, 2, RC_LEN_VARIED);
	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_SNAPLEN, 97));
	ASSERT_EQ(0, rc_bind(fd, dev_idx(&self->env), RINGCAP_QUEUE_ANY));
	ASSERT_EQ(0, rc_map(&r, fd));
	ASSERT_EQ(97, r.hdr->snaplen);
	rc_cap_init(&cap, NFRAMES);
	ASSERT_EQ(0, feed_and_drain(_metadata, &self->f, specs, NFRAMES, &r,
				    &cap, 1));
	/* caplen == min(len, 97), TRUNC set exactly when cut, wire_len kept */
	RC_EXPECT_FRAMES(&cap, specs, NFRAMES, dev_idx(&self->env), 97, 0, 0);
	for (i = 0; i < cap.n; i++)
		trunc += !!(cap.v[i].flags & RINGCAP_REC_TRUNC);
	/* 28 of the 1009 varied lengths are 60..97 and stay whole */
	ASSERT_EQ(981, trunc);
	ASSERT_EQ(0, rc_stats(r.fd, &st));
	ASSERT_EQ(NFRAMES, st.received);
	rc_close(&r);
	rc_cap_free(&cap);
	free(specs);
}

static bool mod3_zero(const struct rc_spec *s)
{
	return s->seq % 3 == 0;
}

TEST_F_TIMEOUT(path, bpf_filter_passes_one_in_three, 180)
{
	/* accept frames whose seq % 3 byte is 0 */
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, RC_OFF_MOD3),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = 4, .filter = code };
	struct rc_spec *specs, *want, *more;
	struct ringcap_stats st;
	struct rc_ring r;
	struct rc_cap cap;
	unsigned int n;
	int zero = 0;

	specs = rc_specs(NULL, NFRAMES, 0, 0, 3, RC_LEN_VARIED);
	want = rc_specs(NULL, NFRAMES, 0, 0, 3, RC_LEN_VARIED);
	n = rc_specs_filter(want, NFRAMES, mod3_zero);
	ASSERT_EQ(337, n);
	ASSERT_EQ(0, rc_open_bound(&r, dev_idx(&self->env),
				   RINGCAP_QUEUE_ANY, 1 << 20));
	ASSERT_EQ(0, setsockopt(r.fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
				sizeof(prog)));
	rc_cap_init(&cap, NFRAMES + 10);
	ASSERT_EQ(0, feed(&self->f, specs, NFRAMES));
	RC_WAIT_ACCOUNTED(r.fd, NFRAMES, &st);
	ASSERT_EQ(337, st.received);
	ASSERT_EQ(672, st.filtered);
	ASSERT_EQ(0, st.dropped);
	ASSERT_EQ(672, r.hdr->filtered);
	ASSERT_EQ(337, rc_drain(&r, &cap));
	RC_EXPECT_FRAMES(&cap, want, n, dev_idx(&self->env),
			 RINGCAP_SNAPLEN_MAX, 0, 0);

	/* without the filter every frame passes again */
	ASSERT_EQ(0, setsockopt(r.fd, SOL_SOCKET, SO_DETACH_FILTER, &zero,
				sizeof(zero)));
	more = rc_specs(NULL, 10, NFRAMES, 0, 3, RC_LEN_VARIED);
	ASSERT_EQ(0, feed(&self->f, more, 10));
	RC_WAIT_ACCOUNTED(r.fd, NFRAMES + 10, &st);
	ASSERT_EQ(347, st.received);
	ASSERT_EQ(672, st.filtered);
	rc_cap_reset(&cap);
	ASSERT_EQ(10, rc_drain(&r, &cap));
	RC_EXPECT_FRAMES(&cap, more, 10, dev_idx(&self->env),
			 RINGCAP_SNAPLEN_MAX, 0, 0);
	rc_close(&r);
	rc_cap_free(&cap);
	free(specs);
	free(want);
	free(more);
}

TEST_F_TIMEOUT(path, two_sockets_each_get_every_frame, 180)
{
	struct rc_spec *specs;
	struct ringcap_stats st;
	struct rc_ring r[2];
	struct rc_cap cap[2];
	int k;

	specs = rc_specs(NULL, NFRAMES, 0, 0, 4, RC_LEN_VARIED);
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, rc_open_bound(&r[k], dev_idx(&self->env),
					   RINGCAP_QUEUE_ANY, 65536));
		rc_cap_init(&cap[k], NFRAMES);
	}
	ASSERT_EQ(0, feed_and_drain(_metadata, &self->f, specs, NFRAMES, r,
				    cap, 2));
	for (k = 0; k < 2; k++) {
		RC_EXPECT_FRAMES(&cap[k], specs, NFRAMES,
				 dev_idx(&self->env), RINGCAP_SNAPLEN_MAX, 0, 0);
		ASSERT_EQ(0, rc_stats(r[k].fd, &st));
		ASSERT_EQ(NFRAMES, st.received);
		ASSERT_EQ(0, st.dropped);
		rc_close(&r[k]);
		rc_cap_free(&cap[k]);
	}
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

FIXTURE(sim)
{
	struct rc_env env;
};

FIXTURE_VARIANT(sim)
{
	int mode;
};

FIXTURE_VARIANT_ADD(sim, mode0) { .mode = 0 };
FIXTURE_VARIANT_ADD(sim, mode1) { .mode = 1 };
FIXTURE_VARIANT_ADD(sim, mode2) { .mode = 2 };

FIXTURE_SETUP(sim)
{
	RC_SETUP_SIM(&self->env);
	RC_SET_MODE(variant->mode);
}

FIXTURE_TEARDOWN(sim)
{
	rc_teardown(&self->env);
}

/* Sockets on queue 1, queue 0 and all queues of the sim device. */
TEST_F_TIMEOUT(sim, queue_binding_gets_only_that_queue, 180)
{
	const unsigned int totals[3] = { 403, 606, NFRAMES };
	const unsigned int queues[3] = { 1, 0, RINGCAP_QUEUE_ANY };
	struct rc_spec *specs, *want[3];
	unsigned int n[3];
	struct ringcap_stats st;
	struct rc_ring r[3];
	struct rc_cap cap[3];
	int k;

	specs = rc_specs(NULL, NFRAMES, 0, RC_QUEUE_MIXED, 5, RC_LEN_VARIED);
	for (k = 0; k < 3; k++) {
		want[k] = rc_specs(NULL, NFRAMES, 0, RC_QUEUE_MIXED, 5,
				   RC_LEN_VARIED);
		n[k] = k == 0 ? rc_specs_filter(want[k], NFRAMES, on_q1) :
		       k == 1 ? rc_specs_filter(want[k], NFRAMES, on_q0) :
		       NFRAMES;
		ASSERT_EQ(totals[k], n[k]);
		ASSERT_EQ(0, rc_open_bound(&r[k], self->env.sim_idx, queues[k],
					   1 << 21));
		rc_cap_init(&cap[k], NFRAMES);
	}
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs, NFRAMES));
	for (k = 0; k < 3; k++) {
		RC_WAIT_ACCOUNTED(r[k].fd, totals[k], &st);
		ASSERT_EQ(0, st.dropped);
		ASSERT_EQ(totals[k], st.received);
		ASSERT_EQ(totals[k], rc_drain(&r[k], &cap[k]))
			TH_LOG("%s", cap[k].why);
		RC_EXPECT_FRAMES(&cap[k], want[k], n[k], self->env.sim_idx,
				 RINGCAP_SNAPLEN_MAX, 0, 0);
	}
	for (k = 0; k < 3; k++) {
		rc_close(&r[k]);
		rc_cap_free(&cap[k]);
		free(want[k]);
	}
	free(specs);
}

/*
 * VLAN tags. ringcap records a tagged frame as the standard receive path
 * presents it to its taps: the outer tag out of the data and in the record
 * (RINGCAP_REC_VLAN, vlan_tci, vlan_proto), anything inside it (the C-tag
 * of a QinQ frame) left in the data. Each variant sends an 802.1Q frame
 * and a QinQ frame (802.1ad outside, 802.1Q inside) and checks both parts
 * of each record:
 *
 *  - veth, with rx-vlan-offload on and off: mode 0, the standard path. The
 *    core moves the outer tag into skb->vlan_tci (skb_vlan_untag() in
 *    __netif_receive_skb_core()) before the taps run, whatever veth's
 *    flag says: on 6.1 and 6.12 it changes nothing on veth's receive
 *    path, and both settings give the same records.
 *  - the sim in mode 0: the same path, from a driver's skb.
 *  - the sim in modes 1 and 2: the aware path, before any skb. The sim
 *    strips nothing and passes no has_vlan, so ringcap takes the outer
 *    tag out itself. (ringcap_e1000e's NIC strips 802.1Q tags when
 *    rx-vlan-offload is on and passes them as has_vlan: e1000e/traffic.sh.)
 */
FIXTURE(vlan)
{
	struct rc_env env;
	int pkt_fd;
	int idx;
};

FIXTURE_VARIANT(vlan)
{
	bool sim;
	int mode;		/* sim only */
	const char *rxvlan;	/* veth only: ethtool -K DEV rxvlan on|off */
};

FIXTURE_VARIANT_ADD(vlan, veth_rxvlan_on) { .rxvlan = "on" };
FIXTURE_VARIANT_ADD(vlan, veth_rxvlan_off) { .rxvlan = "off" };
FIXTURE_VARIANT_ADD(vlan, sim_mode0) { .sim = true, .mode = 0 };
FIXTURE_VARIANT_ADD(vlan, sim_mode1) { .sim = true, .mode = 1 };
FIXTURE_VARIANT_ADD(vlan, sim_mode2) { .sim = true, .mode = 2 };

FIXTURE_SETUP(vlan)
{
	self->pkt_fd = -1;
	if (variant->sim) {
		RC_SETUP_SIM(&self->env);
		RC_SET_MODE(variant->mode);
		self->idx = self->env.sim_idx;
		return;
	}
	RC_SETUP_VETH(&self->env);
	self->idx = self->env.vb_idx;
	self->pkt_fd = rc_packet_open(self->env.va_idx);
	ASSERT_LE(0, self->pkt_fd);
	ASSERT_EQ(0, rc_sh("ethtool -K %s rxvlan %s", self->env.vb,
			   variant->rxvlan));
	ASSERT_EQ(0, rc_sh("ethtool -k %s | grep -qx 'rx-vlan-offload: %s'",
			   self->env.vb, variant->rxvlan))
		TH_LOG("ethtool -k %s does not say rx-vlan-offload: %s",
		       self->env.vb, variant->rxvlan);
}

FIXTURE_TEARDOWN(vlan)
{
	if (self->pkt_fd >= 0)
		close(self->pkt_fd);
	rc_teardown(&self->env);
}

/* Put a tag (ethertype, TCI) after the MAC addresses of frame. */
static unsigned int vlan_push(uint8_t *out, const uint8_t *frame,
			      unsigned int len, uint16_t proto, uint16_t tci)
{
	uint16_t be;

	memcpy(out, frame, 12);
	be = htons(proto);
	memcpy(out + 12, &be, 2);
	be = htons(tci);
	memcpy(out + 14, &be, 2);
	memcpy(out + 16, frame + 12, len - 12);
	return len + 4;
}

TEST_F(vlan, outer_tag_reported_inner_tag_in_data)
{
	struct rc_spec s = { .seq = 77, .len = 200, .queue = 0, .run = 6 };
	uint8_t plain[RC_MAX_LEN], ctag[RC_MAX_LEN + 4], qinq[RC_MAX_LEN + 8];
	const uint16_t tci = 0x2123;	/* PCP 1, VID 0x123 */
	const uint16_t stci = 0x0456;	/* VID 0x456 */
	struct sockaddr_ll a = { .sll_family = AF_PACKET };
	const struct { const uint8_t *frame, *want; unsigned int len, want_len;
		       uint16_t tci, proto; } f[2] = {
		{ ctag, plain, s.len + 4, s.len, tci, ETH_P_8021Q },
		{ qinq, ctag, s.len + 8, s.len + 4, stci, ETH_P_8021AD },
	};
	const struct ringcap_rec *rec;
	struct ringcap_stats st;
	const uint8_t *data;
	struct rc_ring r;
	int i;

	rc_frame_build(plain, &s);
	vlan_push(ctag, plain, s.len, ETH_P_8021Q, tci);
	vlan_push(qinq, ctag, s.len + 4, ETH_P_8021AD, stci);

	ASSERT_EQ(0, rc_open_bound(&r, self->idx, RINGCAP_QUEUE_ANY, 0));
	a.sll_ifindex = self->env.va_idx;
	a.sll_halen = ETH_ALEN;
	memcpy(a.sll_addr, plain, ETH_ALEN);
	for (i = 0; i < 2; i++) {
		if (variant->sim) {
			ASSERT_EQ(0, rc_sim_raw(self->env.sim, "inject", 0,
						f[i].frame, f[i].len));
		} else {
			ASSERT_EQ(f[i].len, sendto(self->pkt_fd, f[i].frame,
						   f[i].len, 0,
						   (struct sockaddr *)&a,
						   sizeof(a)));
		}
	}
	RC_WAIT_ACCOUNTED(r.fd, 2, &st);
	ASSERT_EQ(2, st.received);
	rec = (const struct ringcap_rec *)r.data;
	for (i = 0; i < 2; i++) {
		data = (const uint8_t *)(rec + 1);
		TH_LOG("frame %d: caplen %u, wire_len %u, flags 0x%x, vlan_tci 0x%x, vlan_proto 0x%x",
		       i, rec->caplen, rec->wire_len, rec->flags,
		       rec->vlan_tci, ntohs(rec->vlan_proto));
		ASSERT_TRUE(rec->flags & RINGCAP_REC_VLAN);
		ASSERT_EQ(f[i].tci, rec->vlan_tci);
		ASSERT_EQ(htons(f[i].proto), rec->vlan_proto);
		ASSERT_EQ(f[i].want_len, rec->caplen);
		ASSERT_EQ(f[i].want_len, rec->wire_len);
		/* the QinQ frame's C-tag is in the data, at byte 12 */
		ASSERT_EQ(0, memcmp(data, f[i].want, f[i].want_len));
		rec = (const struct ringcap_rec *)((const uint8_t *)rec +
						   rec->rec_len);
	}
	rc_close(&r);
}

TEST_HARNESS_MAIN
