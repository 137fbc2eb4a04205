// SPDX-License-Identifier: GPL-2.0
/*
 * packzip's output: every packet is copied once into a buffer of our own,
 * behind a pcap record header, and that record is fed to one deflate
 * stream with a gzip wrapper, after the file header. The stream is a
 * gzip-compressed pcap file: with -w it is written out, without it only
 * counted. Either way zlib does the same work.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "packzip.h"

#define OUT_SIZE	(256 * 1024)	/* compressed bytes per write() */
#define PCAP_HDR_LEN	24		/* pcap file global header */

/* One pcap record header as it goes into the file: host byte order. */
struct rec_hdr {
	uint32_t sec;
	uint32_t frac;			/* micro- or nanoseconds */
	uint32_t caplen;
	uint32_t len;
};

/* write() all of it, through partial writes and signals; 0 or -errno. */
static int write_all(int fd, const unsigned char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

/* Hand what deflate produced to the file (or nowhere) and reuse the room. */
static int zip_drain(struct zip *zp)
{
	size_t len = OUT_SIZE - zp->z.avail_out;
	int err;

	zp->bytes_out += len;
	if (zp->fd >= 0) {
		err = write_all(zp->fd, zp->out, len);
		if (err)
			return err;
	}
	zp->z.next_out = zp->out;
	zp->z.avail_out = OUT_SIZE;
	return 0;
}

/*
 * Z_NO_FLUSH lets deflate keep its window across packets, as an archiver
 * would: the cost per packet is then the level's, not a flush's. deflate
 * stops early only when the output room is full, so drain and go on.
 */
static int zip_feed(struct zip *zp, const void *buf, size_t len)
{
	int err;

	zp->z.next_in = (unsigned char *)buf;
	zp->z.avail_in = len;
	zp->bytes_in += len;
	while (zp->z.avail_in) {
		if (deflate(&zp->z, Z_NO_FLUSH) == Z_STREAM_ERROR)
			return -EINVAL;
		if (!zp->z.avail_out) {
			err = zip_drain(zp);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The rest of the stream and the gzip trailer (CRC, length). */
static int zip_finish(struct zip *zp)
{
	int ret, err;

	do {
		ret = deflate(&zp->z, Z_FINISH);
		if (ret == Z_STREAM_ERROR)
			return -EINVAL;
		err = zip_drain(zp);
		if (err)
			return err;
	} while (ret != Z_STREAM_END);
	return 0;
}

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

/* Open the output (if any) and start the stream with the file header. */
void zip_open(struct zip *zp, pcap_t *p, const struct opts *o)
{
	unsigned char hdr[PCAP_HDR_LEN];
	int err;

	memset(zp, 0, sizeof(*zp));
	zp->fd = -1;
	zp->rec_size = sizeof(struct rec_hdr) + pcap_snapshot(p);
	zp->out = malloc(OUT_SIZE);
	zp->rec = malloc(zp->rec_size);
	if (!zp->out || !zp->rec)
		die(1, "out of memory");
	/* windowBits 15 + 16: the gzip wrapper, so zcat reads the file. */
	if (deflateInit2(&zp->z, o->level, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		die(1, "zlib: cannot start a deflate stream");
	zp->z.next_out = zp->out;
	zp->z.avail_out = OUT_SIZE;
	if (pcap_file_header(p, hdr))
		die(1, "cannot build the pcap file header");

	if (to_stdout(o)) {
		zp->fd = STDOUT_FILENO;
	} else if (o->wfile) {
		zp->fd = open(o->wfile,
			      O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (zp->fd < 0)
			die(1, "%s: %s", o->wfile, strerror(errno));
	}
	err = zip_feed(zp, hdr, sizeof(hdr));
	if (err)
		die(1, "%s: %s", o->wfile ? o->wfile : "zlib", strerror(-err));
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
 * application that keeps the data must do, then the compression. 0 or
 * -errno.
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
	int err;

	err = zip_room(zp, len);
	if (err)
		return err;
	memcpy(zp->rec, &rh, sizeof(rh));
	memcpy(zp->rec + sizeof(rh), data, h->caplen);
	zp->captured++;
	return zip_feed(zp, zp->rec, len);
}

/*
 * After the capture, whatever ended it (a capture error too: the file
 * stays readable), the rest of the stream, and the file closed. 0, or 1
 * when either failed, said on stderr.
 */
int zip_end(struct zip *zp, const struct opts *o)
{
	int err, status = 0;

	err = zp->err ? -zp->err : zip_finish(zp);
	if (err) {
		fprintf(stderr, PROG ": %s: %s\n", o->wfile ? o->wfile : "zlib",
			strerror(-err));
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
	deflateEnd(&zp->z);
	free(zp->out);
	free(zp->rec);
}
