// SPDX-License-Identifier: GPL-2.0
/*
 * Test frames, sim injection, ring reading and comparison; see rc_frames.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include "rc_frames.h"

static const uint8_t rc_dst[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t rc_src[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x01 };
static const char rc_magic[8] = "RCAPTEST";

struct rc_spec *rc_specs(struct rc_spec *specs, unsigned int n,
			 uint32_t first, int queue, uint8_t run, uint16_t len)
{
	unsigned int i;

	if (!specs)
		specs = calloc(n ? n : 1, sizeof(*specs));
	if (!specs)
		return NULL;
	for (i = 0; i < n; i++) {
		uint32_t seq = first + i;

		specs[i].seq = seq;
		specs[i].len = len ? len : rc_varied_len(seq);
		specs[i].queue = queue == RC_QUEUE_MIXED ? rc_mixed_queue(seq)
							 : queue;
		specs[i].run = run;
	}
	return specs;
}

static uint8_t pattern(const struct rc_spec *s, unsigned int i)
{
	return (s->seq * 131u + i * 7u + s->run) & 0xff;
}

void rc_frame_build(uint8_t *buf, const struct rc_spec *s)
{
	uint32_t seq = htonl(s->seq);
	uint16_t len = htons(s->len), type = htons(RC_ETH_P_TEST);
	unsigned int i;

	memcpy(buf, rc_dst, ETH_ALEN);
	memcpy(buf + 6, rc_src, ETH_ALEN);
	memcpy(buf + 12, &type, 2);
	memcpy(buf + 14, rc_magic, sizeof(rc_magic));
	memcpy(buf + RC_OFF_SEQ, &seq, 4);
	memcpy(buf + 26, &len, 2);
	buf[28] = s->queue;
	buf[RC_OFF_MOD3] = s->seq % 3;
	buf[30] = s->run;
	for (i = RC_HDR_LEN; i < s->len; i++)
		buf[i] = pattern(s, i);
}

/* Is this one of ours? (At least the header must have been captured.) */
static bool is_test_frame(const uint8_t *d, uint32_t caplen)
{
	return caplen >= RC_HDR_LEN && d[12] == (RC_ETH_P_TEST >> 8) &&
	       d[13] == (RC_ETH_P_TEST & 0xff) &&
	       !memcmp(d + 14, rc_magic, sizeof(rc_magic));
}

int rc_frame_check(const uint8_t *d, uint32_t caplen, uint32_t wire_len,
		   struct rc_spec *s, char *why, size_t whylen)
{
	uint8_t want[RC_MAX_LEN];
	uint32_t seq;
	uint16_t len;
	unsigned int i;

	if (!is_test_frame(d, caplen)) {
		snprintf(why, whylen, "not a test frame (caplen %u)", caplen);
		return -1;
	}
	memcpy(&seq, d + RC_OFF_SEQ, 4);
	memcpy(&len, d + 26, 2);
	s->seq = ntohl(seq);
	s->len = ntohs(len);
	s->queue = d[28];
	s->run = d[30];
	if (s->len != wire_len || caplen > wire_len || s->len > RC_MAX_LEN) {
		snprintf(why, whylen,
			 "seq %u: frame says len %u, record wire_len %u caplen %u",
			 s->seq, s->len, wire_len, caplen);
		return -1;
	}
	rc_frame_build(want, s);
	for (i = 0; i < caplen; i++) {
		if (d[i] != want[i]) {
			snprintf(why, whylen,
				 "seq %u len %u: byte %u is 0x%02x, expected 0x%02x",
				 s->seq, s->len, i, d[i], want[i]);
			return -1;
		}
	}
	return 0;
}

int rc_sim_write(const char *dev, const char *file, const void *buf,
		 size_t len)
{
	char path[256];
	ssize_t w;
	int fd;

	snprintf(path, sizeof(path), RC_SIM_DEBUGFS "/%s/%s", dev, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, buf, len);
	close(fd);
	return w == (ssize_t)len ? 0 : w < 0 ? -errno : -EIO;
}

int rc_sim_raw(const char *dev, const char *file, unsigned int queue,
	       const void *frame, uint16_t len)
{
	uint8_t buf[4 + 9018];

	if (len > sizeof(buf) - 4)
		return -EINVAL;
	buf[0] = queue & 0xff;
	buf[1] = queue >> 8;
	buf[2] = len & 0xff;
	buf[3] = len >> 8;
	memcpy(buf + 4, frame, len);
	return rc_sim_write(dev, file, buf, 4 + len);
}

int rc_sim_inject_built(const char *dev, unsigned int first, unsigned int n,
			rc_build_fn build, const void *arg)
{
	enum { CHUNK = 60 * 1024 };
	static uint8_t buf[CHUNK + 4 + RC_MAX_LEN];
	unsigned int i = first, queue;
	size_t len;
	uint16_t l;
	int err;

	while (i < first + n) {
		for (len = 0; i < first + n && len < CHUNK; i++) {
			l = build(i, arg, buf + len + 4, &queue);
			buf[len] = queue & 0xff;
			buf[len + 1] = queue >> 8;
			buf[len + 2] = l & 0xff;
			buf[len + 3] = l >> 8;
			len += 4 + l;
		}
		err = rc_sim_write(dev, "inject", buf, len);
		if (err)
			return err;
	}
	return 0;
}

int rc_sim_inject(const char *dev, const struct rc_spec *specs,
		  unsigned int n)
{
	enum { CHUNK = 64 * 1024 };
	char path[256];
	uint8_t *buf;
	size_t len, off;
	unsigned int i = 0;
	ssize_t w;
	int fd, err = 0;

	snprintf(path, sizeof(path), RC_SIM_DEBUGFS "/%s/inject", dev);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(CHUNK);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (i < n && !err) {
		/* As many whole records as fit in one write. */
		for (len = 0; i < n && len + 4 + specs[i].len <= CHUNK; i++) {
			uint16_t q = htole16(specs[i].queue);
			uint16_t l = htole16(specs[i].len);

			memcpy(buf + len, &q, 2);
			memcpy(buf + len + 2, &l, 2);
			rc_frame_build(buf + len + 4, &specs[i]);
			len += 4 + specs[i].len;
		}
		for (off = 0; off < len; off += w) {
			w = write(fd, buf + off, len - off);
			if (w <= 0) {
				err = w < 0 ? -errno : -EIO;
				break;
			}
		}
	}
	free(buf);
	close(fd);
	return err;
}

void rc_cap_init(struct rc_cap *c, unsigned int max)
{
	memset(c, 0, sizeof(*c));
	c->max = max;
	c->v = calloc(max ? max : 1, sizeof(*c->v));
}

void rc_cap_free(struct rc_cap *c)
{
	free(c->v);
	c->v = NULL;
}

void rc_cap_reset(struct rc_cap *c)
{
	c->n = 0;
	c->foreign = 0;
	c->bad = 0;
	c->why[0] = '\0';
	memset(&c->gap_sum, 0, sizeof(c->gap_sum));
	c->gaps = 0;
	c->gap_next = 0;
}

static void cap_problem(struct rc_cap *c, const char *why)
{
	if (!c->why[0])
		snprintf(c->why, sizeof(c->why), "%s", why);
}

static void cap_add(struct rc_cap *c, const uint8_t *d, uint32_t caplen,
		    uint32_t wire_len, const struct ringcap_rec *rec)
{
	struct rc_seen *e;
	struct rc_spec s;
	char why[200];

	if (!is_test_frame(d, caplen)) {
		c->foreign++;
		return;
	}
	if (rc_frame_check(d, caplen, wire_len, &s, why, sizeof(why))) {
		c->bad++;
		cap_problem(c, why);
		return;
	}
	if (c->n >= c->max) {
		c->bad++;
		cap_problem(c, "more frames than expected");
		return;
	}
	e = &c->v[c->n++];
	memset(e, 0, sizeof(*e));
	e->seq = s.seq;
	e->len = s.len;
	e->queue = s.queue;
	e->run = s.run;
	e->caplen = caplen;
	e->wire_len = wire_len;
	e->gap = c->gap_next;
	c->gap_next = 0;
	if (rec) {
		e->flags = rec->flags;
		e->rec_queue = rec->queue;
		e->ifindex = rec->ifindex;
		e->tstamp_ns = rec->tstamp_ns;
		e->vlan_tci = rec->vlan_tci;
		e->vlan_proto = rec->vlan_proto;
	}
}

/* A gap record: its counts, and the loss before the next frame. */
static void cap_gap(struct rc_cap *c, const struct ringcap_gap *g)
{
	c->gap_sum.ring_full += g->ring_full;
	c->gap_sum.cluster_full += g->cluster_full;
	c->gap_sum.nic += g->nic;
	c->gap_next += g->ring_full + g->cluster_full + g->nic;
	c->gaps++;
}

int rc_drain_max(struct rc_ring *r, struct rc_cap *c, unsigned int max)
{
	uint32_t size = r->info.data_size, off;
	unsigned int frames = 0;
	const struct ringcap_rec *rec;
	uint64_t prod;
	char why[200];

	/* Acquire pairs with the kernel's release store of producer. */
	prod = __atomic_load_n(&r->hdr->producer, __ATOMIC_ACQUIRE);
	while (r->cons < prod && frames < max) {
		off = r->cons & (size - 1);
		rec = (const struct ringcap_rec *)(r->data + off);
		if (prod - r->cons > size || rec->rec_len % RINGCAP_REC_ALIGN ||
		    rec->rec_len < 8 || rec->rec_len > size - off) {
			snprintf(why, sizeof(why),
				 "record at pos %llu (off %u): rec_len %u, producer %llu",
				 (unsigned long long)r->cons, off, rec->rec_len,
				 (unsigned long long)prod);
			goto corrupt;
		}
		if (rec->flags & RINGCAP_REC_PAD) {
			if (rec->rec_len != size - off) {
				snprintf(why, sizeof(why),
					 "pad at off %u has rec_len %u, expected %u",
					 off, rec->rec_len, size - off);
				goto corrupt;
			}
			r->pads++;
			r->cons += rec->rec_len;
			continue;
		}
		if (rec->flags & RINGCAP_REC_GAP) {
			if (!r->gaps || rec->flags != RINGCAP_REC_GAP ||
			    rec->caplen != sizeof(struct ringcap_gap) ||
			    rec->rec_len != rc_rec_len(rec->caplen) ||
			    rec->wire_len) {
				snprintf(why, sizeof(why),
					 "gap record at off %u: rec_len %u caplen %u wire_len %u flags 0x%x, gaps %s",
					 off, rec->rec_len, rec->caplen,
					 rec->wire_len, rec->flags,
					 r->gaps ? "on" : "off");
				goto corrupt;
			}
			cap_gap(c, (const struct ringcap_gap *)(rec + 1));
			r->cons += rec->rec_len;
			continue;
		}
		if (rec->rec_len != rc_rec_len(rec->caplen) ||
		    rec->caplen > rec->wire_len ||
		    rec->caplen > r->hdr->snaplen ||
		    !!(rec->flags & RINGCAP_REC_TRUNC) !=
		    (rec->caplen < rec->wire_len) || rec->zc_offset) {
			snprintf(why, sizeof(why),
				 "record at off %u: rec_len %u caplen %u wire_len %u flags 0x%x snaplen %u",
				 off, rec->rec_len, rec->caplen, rec->wire_len,
				 rec->flags, r->hdr->snaplen);
			goto corrupt;
		}
		cap_add(c, (const uint8_t *)(rec + 1), rec->caplen,
			rec->wire_len, rec);
		r->cons += rec->rec_len;
		frames++;
	}
	rc_release(r);
	return frames;

corrupt:
	cap_problem(c, why);
	return -EIO;
}

int rc_drain(struct rc_ring *r, struct rc_cap *c)
{
	return rc_drain_max(r, c, ~0u);
}

int rc_cap_expect(const struct rc_cap *c, const struct rc_spec *specs,
		  unsigned int n, int ifindex, uint32_t snaplen,
		  uint64_t t0, uint64_t t1, char *why, size_t whylen)
{
	const struct rc_seen *e;
	uint64_t last = t0;
	uint32_t caplen;
	unsigned int i;

	if (c->bad || c->foreign) {
		snprintf(why, whylen, "%u bad and %u foreign frames; first: %s",
			 c->bad, c->foreign, c->why);
		return -1;
	}
	for (i = 0; i < n && i < c->n; i++) {
		e = &c->v[i];
		caplen = specs[i].len < snaplen ? specs[i].len : snaplen;
		if (e->seq != specs[i].seq || e->run != specs[i].run ||
		    e->queue != specs[i].queue) {
			snprintf(why, whylen,
				 "frame %u: got seq %u run %u queue %u, expected seq %u run %u queue %u",
				 i, e->seq, e->run, e->queue, specs[i].seq,
				 specs[i].run, specs[i].queue);
			return -1;
		}
		if (e->wire_len != specs[i].len || e->caplen != caplen ||
		    !!(e->flags & RINGCAP_REC_TRUNC) != (caplen < specs[i].len)) {
			snprintf(why, whylen,
				 "seq %u: wire_len %u caplen %u flags 0x%x, expected %u/%u",
				 e->seq, e->wire_len, e->caplen, e->flags,
				 specs[i].len, caplen);
			return -1;
		}
		if (ifindex > 0 && (e->ifindex != ifindex ||
				    e->rec_queue != specs[i].queue)) {
			snprintf(why, whylen,
				 "seq %u: record ifindex %d queue %u, expected %d/%u",
				 e->seq, e->ifindex, e->rec_queue, ifindex,
				 specs[i].queue);
			return -1;
		}
		if (t1 && (e->tstamp_ns < last || e->tstamp_ns > t1)) {
			snprintf(why, whylen,
				 "seq %u: timestamp %llu not in [%llu, %llu]",
				 e->seq, (unsigned long long)e->tstamp_ns,
				 (unsigned long long)last,
				 (unsigned long long)t1);
			return -1;
		}
		last = e->tstamp_ns;
	}
	if (c->n != n) {
		snprintf(why, whylen, "got %u frames, expected %u", c->n, n);
		return -1;
	}
	return 0;
}

unsigned int rc_specs_filter(struct rc_spec *specs, unsigned int n,
			     bool (*keep)(const struct rc_spec *))
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		if (keep(&specs[i]))
			specs[k++] = specs[i];
	return k;
}

unsigned int rc_ring_model(uint32_t data_size, const struct rc_spec *specs,
			   unsigned int n, uint32_t snaplen, bool *fit)
{
	uint64_t prod = 0, cons = 0;
	unsigned int i, got = 0;
	uint32_t len, off, tail, need;

	for (i = 0; i < n; i++) {
		len = rc_rec_len(specs[i].len < snaplen ? specs[i].len
							: snaplen);
		off = prod & (data_size - 1);
		tail = data_size - off;
		/* A record that does not fit before the end needs a pad. */
		need = len <= tail ? len : tail + len;
		fit[i] = need <= data_size - (prod - cons);
		if (fit[i]) {
			prod += need;
			got++;
		}
	}
	return got;
}

int rc_packet_open(int ifindex)
{
	struct sockaddr_ll a = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = ifindex,
	};
	int fd, sz = 64 << 20;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0)
		return -errno;
	/* Room for thousands of full-size frames without a reader. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		sz = -errno;
		close(fd);
		return sz;
	}
	return fd;
}

int rc_packet_drain(int fd, struct rc_cap *c)
{
	uint8_t buf[65536];
	struct sockaddr_ll a;
	socklen_t alen;
	ssize_t n;
	int got = 0;

	for (;;) {
		alen = sizeof(a);
		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&a, &alen);
		if (n < 0)
			return errno == EAGAIN ? got : -errno;
		if (a.sll_pkttype == PACKET_OUTGOING)
			continue;
		cap_add(c, buf, n, n, NULL);
		got++;
	}
}

long rc_packet_drops(int fd)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		return -errno;
	return st.tp_drops;
}

int rc_packet_send(int fd, int ifindex, const struct rc_spec *specs,
		   unsigned int n)
{
	struct sockaddr_ll a = {
		.sll_family = AF_PACKET,
		.sll_ifindex = ifindex,
		.sll_halen = ETH_ALEN,
	};
	uint8_t buf[RC_MAX_LEN];
	unsigned int i;

	memcpy(a.sll_addr, rc_dst, ETH_ALEN);
	for (i = 0; i < n; i++) {
		rc_frame_build(buf, &specs[i]);
		if (sendto(fd, buf, specs[i].len, 0, (struct sockaddr *)&a,
			   sizeof(a)) != specs[i].len)
			return -errno;
	}
	return 0;
}
