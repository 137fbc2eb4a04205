// SPDX-License-Identifier: GPL-2.0
/*
 * packzip's output: every packet is copied once into a buffer of our own
 * (behind a pcap record header, or inside a pcapng Enhanced Packet
 * Block) and fed to one compressed stream (zsink.h: gzip by default, or
 * zstd, or none), after the file's header. With -w the stream is written
 * out, without it only counted. Either way the compressor does the same
 * work. A pcapng file ends with an Interface Statistics Block of
 * libpcap's counters: isb_ifrecv ps_recv, isb_osdrop ps_drop, isb_ifdrop
 * ps_ifdrop, isb_usrdeliv the packets written (docs/PCAPNG.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "packzip.h"

#define PCAP_HDR_LEN	24		/* pcap file global header */

/* One pcap record header as it goes into the file: host byte order. */
struct rec_hdr {
	uint32_t sec;
	uint32_t frac;			/* micro- or nanoseconds */
	uint32_t caplen;
	uint32_t len;
};

/*
 * The file header comes from libpcap itself: pcap_dump_fopen() knows the
 * LINKTYPE_ value for the handle's DLT_ (they differ for a few) and picks
 * the micro- or nanosecond magic from the handle's precision.
 */
static int pcap_file_header(pcap_t *p, unsigned char hdr[PCAP_HDR_LEN])
{
	pcap_dumper_t *d;
	size_t len = 0;
	char *buf = NULL;
	FILE *mem;
	int ok;

	mem = open_memstream(&buf, &len);
	if (!mem)
		return -1;
	d = pcap_dump_fopen(p, mem);
	if (!d) {
		fclose(mem);
		free(buf);
		return -1;
	}
	pcap_dump_close(d);	/* closes mem: buf and len are final */
	ok = len == PCAP_HDR_LEN;
	if (ok)
		memcpy(hdr, buf, PCAP_HDR_LEN);
	free(buf);
	return ok ? 0 : -1;
}

/* The stream's first bytes: the pcap file header, or the pcapng blocks. */
static int zip_header(struct zip *zp, pcap_t *p, const struct opts *o)
{
	unsigned char hdr[PCAP_HDR_LEN];
	int err;

	if (!o->pcapng) {
		if (pcap_file_header(p, hdr))
			die(1, "cannot build the pcap file header");
		return zsink_write(&zp->out, hdr, sizeof(hdr));
	}
	/* pcapng says Ethernet only; other link types stay pcap files. */
	if (pcap_datalink(p) != DLT_EN10MB)
		die(1, "--format pcapng: %s is not Ethernet (link type %s)",
		    o->dev ? o->dev : o->rfile,
		    pcap_datalink_val_to_name(pcap_datalink(p)));
	err = pcapng_start(&zp->ng, &zp->out, PROG);
	if (!err) {
		err = pcapng_interface(&zp->ng, o->dev ? o->dev : o->rfile,
				       o->dev ? "libpcap" : "libpcap savefile",
				       pcap_snapshot(p), o->filter);
		err = err < 0 ? err : 0;
	}
	return err;
}

/* Open the output (if any) and start the stream with the file header. */
void zip_open(struct zip *zp, pcap_t *p, const struct opts *o)
{
	int err;

	memset(zp, 0, sizeof(*zp));
	zp->fd = -1;
	zp->nano = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
	zp->rec_size = sizeof(struct rec_hdr) + pcap_snapshot(p);
	zp->rec = malloc(zp->rec_size);
	if (!zp->rec)
		die(1, "out of memory");
	if (to_stdout(o)) {
		zp->fd = STDOUT_FILENO;
	} else if (o->wfile) {
		zp->fd = open(o->wfile,
			      O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (zp->fd < 0)
			die(1, "%s: %s", o->wfile, strerror(errno));
	}
	err = zsink_open(&zp->out, o->compress, o->level, zp->fd);
	if (err == -EINVAL)
		die(EXIT_USAGE, "-z %d: %s refuses this level", o->level,
		    zsink_kind_name(o->compress));
	if (!err)
		err = zip_header(zp, p, o);
	if (err)
		die(1, "%s: %s", o->wfile ? o->wfile : "stream",
		    strerror(-err));
}

/* A record larger than the snaplen said (odd files): make room for it. */
static int zip_room(struct zip *zp, size_t need)
{
	unsigned char *rec;

	if (need <= zp->rec_size)
		return 0;
	rec = realloc(zp->rec, need);
	if (!rec)
		return -ENOMEM;
	zp->rec = rec;
	zp->rec_size = need;
	return 0;
}

/*
 * The per-packet work: one copy out of libpcap's buffer into ours, as an
 * application that keeps the data must do (pcapng builds its block in a
 * buffer of its own), then the compression. 0 or -errno.
 */
int zip_record(struct zip *zp, const struct pcap_pkthdr *h,
	       const u_char *data)
{
	struct rec_hdr rh = {
		.sec = (uint32_t)h->ts.tv_sec,
		.frac = (uint32_t)h->ts.tv_usec,
		.caplen = h->caplen,
		.len = h->len,
	};
	size_t len = sizeof(rh) + h->caplen;
	uint64_t ns;
	int err;

	zp->captured++;
	if (zp->ng.out) {
		ns = (uint64_t)h->ts.tv_sec * 1000000000ULL +
		     (uint64_t)h->ts.tv_usec * (zp->nano ? 1 : 1000);
		return pcapng_packet(&zp->ng, 0, ns, data, h->caplen, h->len,
				     0, 0, PCAPNG_NO_QUEUE);
	}
	err = zip_room(zp, len);
	if (err)
		return err;
	memcpy(zp->rec, &rh, sizeof(rh));
	memcpy(zp->rec + sizeof(rh), data, h->caplen);
	return zsink_write(&zp->out, zp->rec, len);
}

/* pcapng: libpcap's counters, for a live capture. */
static int zip_stats(struct zip *zp, pcap_t *p, const struct opts *o)
{
	struct pcapng_stats st = { .have = PCAPNG_ISB_USRDELIV };
	struct pcap_stat ps;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	st.end_ns = (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec;
	st.start_ns = st.end_ns;
	st.usrdeliv = zp->captured;
	if (o->dev && !pcap_stats(p, &ps)) {
		st.have |= PCAPNG_ISB_IFRECV | PCAPNG_ISB_OSDROP |
			   PCAPNG_ISB_IFDROP;
		st.ifrecv = ps.ps_recv;
		st.osdrop = ps.ps_drop;
		st.ifdrop = ps.ps_ifdrop;
	}
	return pcapng_stats(&zp->ng, 0, st.end_ns, &st);
}

/*
 * After the capture, whatever ended it (a capture error too: the file
 * stays readable), the statistics (pcapng), the rest of the stream, and
 * the file closed. 0, or 1 when any failed, said on stderr.
 */
int zip_end(struct zip *zp, pcap_t *p, const struct opts *o)
{
	int err, status = 0;

	err = zp->err ? -zp->err : 0;
	if (!err && zp->ng.out)
		err = zip_stats(zp, p, o);
	if (!err)
		err = zsink_finish(&zp->out);
	if (err) {
		fprintf(stderr, PROG ": %s: %s\n",
			o->wfile ? o->wfile : "stream", strerror(-err));
		status = 1;
	}
	if (zp->fd >= 0 && !to_stdout(o) && close(zp->fd)) {
		fprintf(stderr, PROG ": %s: %s\n", o->wfile, strerror(errno));
		status = 1;
	}
	return status;
}

void zip_free(struct zip *zp)
{
	pcapng_free(&zp->ng);
	zsink_free(&zp->out);
	free(zp->rec);
}
