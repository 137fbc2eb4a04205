// SPDX-License-Identifier: GPL-2.0
/*
 * The blocks of pcapng.h, in the writer's byte order (the Section Header
 * Block's byte-order magic tells readers which): each is built whole in
 * one buffer, its total length at both ends, and fed to the zsink.
 *
 *   block:  type (4) | total length (4) | body | options | total length (4)
 *   option: code (2) | length (2) | value, padded to 4 bytes
 *
 * Options end with opt_endofopt (code 0, length 0). Timestamps are 64-bit
 * counts of the interface's if_tsresol units (nanoseconds here), upper 32
 * bits first.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "pcapng.h"

#define BT_SHB		0x0a0d0d0aU
#define BT_IDB		0x00000001U
#define BT_ISB		0x00000005U
#define BT_EPB		0x00000006U
#define BYTE_ORDER_MAGIC 0x1a2b3c4dU

#define OPT_END		0
#define SHB_USERAPPL	4
#define IF_NAME		2
#define IF_DESCRIPTION	3
#define IF_TSRESOL	9
#define IF_FILTER	11
#define EPB_FLAGS	2
#define EPB_DROPCOUNT	4
#define EPB_QUEUE	6
#define ISB_STARTTIME	2
#define ISB_ENDTIME	3
#define ISB_IFRECV	4
#define ISB_IFDROP	5
#define ISB_FILTERACCEPT 6
#define ISB_OSDROP	7
#define ISB_USRDELIV	8

#define PAD4(n)		(((n) + 3) & ~(size_t)3)

/* The block being built: w->buf[0..len). */
struct blk {
	struct pcapng *w;
	size_t len;
	int opts;		/* an option was added: end them */
};

/* Room for @more bytes, with the end's 8 (endofopt, total length). */
static int blk_room(struct blk *b, size_t more)
{
	struct pcapng *w = b->w;
	size_t need = b->len + more + 8;
	unsigned char *buf;

	if (need <= w->buf_size)
		return 0;
	buf = realloc(w->buf, need * 2);
	if (!buf)
		return -ENOMEM;
	w->buf = buf;
	w->buf_size = need * 2;
	return 0;
}

static void blk_put(struct blk *b, const void *p, size_t len)
{
	memcpy(b->w->buf + b->len, p, len);
	memset(b->w->buf + b->len + len, 0, PAD4(len) - len);
	b->len += PAD4(len);
}

static void blk_u32(struct blk *b, uint32_t v)
{
	blk_put(b, &v, sizeof(v));
}

static int blk_begin(struct blk *b, struct pcapng *w, uint32_t type,
		     size_t body)
{
	b->w = w;
	b->len = 0;
	b->opts = 0;
	if (blk_room(b, 8 + body))
		return -ENOMEM;
	blk_u32(b, type);
	blk_u32(b, 0);		/* total length, known at the end */
	return 0;
}

static int blk_opt(struct blk *b, uint16_t code, const void *val,
		   uint16_t len)
{
	uint16_t h[2] = { code, len };

	if (blk_room(b, 4 + PAD4(len)))
		return -ENOMEM;
	blk_put(b, h, sizeof(h));
	blk_put(b, val, len);
	b->opts = 1;
	return 0;
}

static int blk_opt_u64(struct blk *b, uint16_t code, uint64_t v)
{
	return blk_opt(b, code, &v, sizeof(v));
}

/* A timestamp option: the upper 32 bits first, as in the block. */
static int blk_opt_ts(struct blk *b, uint16_t code, uint64_t ns)
{
	uint32_t v[2] = { (uint32_t)(ns >> 32), (uint32_t)ns };

	return blk_opt(b, code, v, sizeof(v));
}

static int blk_opt_str(struct blk *b, uint16_t code, const char *s)
{
	size_t n = strlen(s);

	return blk_opt(b, code, s, n > UINT16_MAX ? UINT16_MAX : n);
}

/* End the options, write the length at both ends, and feed the block. */
static int blk_end(struct blk *b)
{
	uint32_t total;

	if (b->opts)
		blk_u32(b, OPT_END);	/* code 0 and length 0 */
	total = b->len + 4;
	blk_u32(b, total);
	memcpy(b->w->buf + 4, &total, sizeof(total));
	return zsink_write(b->w->out, b->w->buf, b->len);
}

int pcapng_start(struct pcapng *w, struct zsink *out, const char *app)
{
	uint64_t section_len = UINT64_MAX;	/* not given */
	uint16_t version[2] = { 1, 0 };
	struct blk b;
	int err;

	memset(w, 0, sizeof(*w));
	w->out = out;
	err = blk_begin(&b, w, BT_SHB, 16);
	if (err)
		return err;
	blk_u32(&b, BYTE_ORDER_MAGIC);
	blk_put(&b, version, sizeof(version));
	blk_put(&b, &section_len, sizeof(section_len));
	err = blk_opt_str(&b, SHB_USERAPPL, app);
	return err ? err : blk_end(&b);
}

int pcapng_interface(struct pcapng *w, const char *name, const char *desc,
		     uint32_t snaplen, const char *filter)
{
	uint16_t link[2] = { PCAPNG_LINKTYPE_ETHERNET, 0 };
	uint8_t tsresol = 9;		/* 10^-9 s */
	struct blk b;
	int err;

	err = blk_begin(&b, w, BT_IDB, 8);
	if (err)
		return err;
	blk_put(&b, link, sizeof(link));
	blk_u32(&b, snaplen);
	err = blk_opt_str(&b, IF_NAME, name);
	if (!err && desc)
		err = blk_opt_str(&b, IF_DESCRIPTION, desc);
	if (!err)
		err = blk_opt(&b, IF_TSRESOL, &tsresol, 1);
	if (!err && filter) {
		/* The first byte says what follows: 0, a libpcap expression. */
		size_t n = strlen(filter);
		char *v = malloc(n + 1);

		if (!v)
			return -ENOMEM;
		v[0] = 0;
		memcpy(v + 1, filter, n);
		err = blk_opt(&b, IF_FILTER, v,
			      n + 1 > UINT16_MAX ? UINT16_MAX : n + 1);
		free(v);
	}
	if (!err)
		err = blk_end(&b);
	return err ? err : (int)w->nr_ifs++;
}

/*
 * The per-packet block, built with one reservation and direct stores:
 * what every captured frame costs on top of the frame itself.
 */
int pcapng_packet(struct pcapng *w, uint32_t ifid, uint64_t tstamp_ns,
		  const void *data, uint32_t caplen, uint32_t wire_len,
		  uint64_t dropcount, uint32_t flags, uint32_t queue)
{
	size_t body = PAD4(caplen), opts = 0, len;
	struct blk b = { .w = w };
	uint32_t *p;
	uint8_t *d;
	int err;

	if (ifid >= w->nr_ifs)
		return -EINVAL;
	opts += flags ? 8 : 0;
	opts += dropcount ? 12 : 0;
	opts += queue != PCAPNG_NO_QUEUE ? 8 : 0;
	opts += opts ? 4 : 0;			/* opt_endofopt */
	len = 28 + body + opts + 4;
	if (len > UINT32_MAX)
		return -EINVAL;
	err = blk_room(&b, len);
	if (err)
		return err;
	p = (uint32_t *)w->buf;
	p[0] = BT_EPB;
	p[1] = (uint32_t)len;
	p[2] = ifid;
	p[3] = (uint32_t)(tstamp_ns >> 32);
	p[4] = (uint32_t)tstamp_ns;
	p[5] = caplen;
	p[6] = wire_len;
	d = w->buf + 28;
	memcpy(d, data, caplen);
	memset(d + caplen, 0, body - caplen);
	p = (uint32_t *)(d + body);
	if (flags) {
		*p++ = EPB_FLAGS | 4 << 16;
		*p++ = flags;
	}
	if (dropcount) {
		*p++ = EPB_DROPCOUNT | 8 << 16;
		memcpy(p, &dropcount, 8);
		p += 2;
	}
	if (queue != PCAPNG_NO_QUEUE) {
		*p++ = EPB_QUEUE | 4 << 16;
		*p++ = queue;
	}
	if (opts)
		*p++ = OPT_END;
	*p = (uint32_t)len;
	return zsink_write(w->out, w->buf, len);
}

int pcapng_stats(struct pcapng *w, uint32_t ifid, uint64_t tstamp_ns,
		 const struct pcapng_stats *st)
{
	static const struct {
		unsigned int bit;
		uint16_t code;
		size_t off;
	} counters[] = {
		{ PCAPNG_ISB_IFRECV, ISB_IFRECV,
		  offsetof(struct pcapng_stats, ifrecv) },
		{ PCAPNG_ISB_IFDROP, ISB_IFDROP,
		  offsetof(struct pcapng_stats, ifdrop) },
		{ PCAPNG_ISB_FILTERACCEPT, ISB_FILTERACCEPT,
		  offsetof(struct pcapng_stats, filteraccept) },
		{ PCAPNG_ISB_OSDROP, ISB_OSDROP,
		  offsetof(struct pcapng_stats, osdrop) },
		{ PCAPNG_ISB_USRDELIV, ISB_USRDELIV,
		  offsetof(struct pcapng_stats, usrdeliv) },
	};
	struct blk b;
	unsigned int i;
	int err;

	if (ifid >= w->nr_ifs)
		return -EINVAL;
	err = blk_begin(&b, w, BT_ISB, 12);
	if (err)
		return err;
	blk_u32(&b, ifid);
	blk_u32(&b, (uint32_t)(tstamp_ns >> 32));
	blk_u32(&b, (uint32_t)tstamp_ns);
	err = blk_opt_ts(&b, ISB_STARTTIME, st->start_ns);
	if (!err)
		err = blk_opt_ts(&b, ISB_ENDTIME, st->end_ns);
	for (i = 0; !err && i < sizeof(counters) / sizeof(counters[0]); i++)
		if (st->have & counters[i].bit)
			err = blk_opt_u64(&b, counters[i].code,
					  *(const uint64_t *)((const char *)st +
							      counters[i].off));
	return err ? err : blk_end(&b);
}

void pcapng_free(struct pcapng *w)
{
	free(w->buf);
	w->buf = NULL;
	w->buf_size = 0;
}
