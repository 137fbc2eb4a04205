/* SPDX-License-Identifier: GPL-2.0 */
/*
 * packzip's parts (packzip.c: the command line; packzip_cap.c: the
 * capture through libpcap, its loop and summary; packzip_zip.c: the
 * compressed pcap or pcapng stream every packet is fed to): what they
 * share.
 */
#ifndef PACKZIP_H
#define PACKZIP_H

#include <string.h>
#include <pcap/pcap.h>
#include "pcapng.h"
#include "zsink.h"

#define PROG		"packzip"

struct opts {
	const char *dev;
	const char *rfile;
	const char *wfile;		/* NULL: discard the stream */
	char *filter;			/* NULL: every packet */
	int level;
	int count;			/* 0: no limit */
	double seconds;			/* 0: no limit */
	int snaplen;			/* 0: libpcap's default */
	int buffer_kib;			/* 0: libpcap's default */
	int immediate;
	int nano;
	int pcapng;			/* --format pcapng, else pcap */
	enum zsink_kind compress;	/* --compress, default gzip */
};

struct zip {
	struct zsink out;
	int fd;				/* -1: count the output only */
	struct pcapng ng;		/* --format pcapng */
	int nano;			/* timestamps from libpcap are ns */
	unsigned char *rec;		/* one pcap record: header + data */
	size_t rec_size;
	unsigned long long captured;
	int err;			/* errno of a write or library failure */
};

/* -w -: the stream goes to stdout, and the summary to stderr. */
static inline int to_stdout(const struct opts *o)
{
	return o->wfile && !strcmp(o->wfile, "-");
}

/* packzip_cap.c */
void cap_break(void);
pcap_t *cap_open(const struct opts *o);
int cap_run(pcap_t *p, const struct opts *o, struct zip *zp);

/* packzip_zip.c */
void zip_open(struct zip *zp, pcap_t *p, const struct opts *o);
int zip_record(struct zip *zp, const struct pcap_pkthdr *h,
	       const u_char *data);
int zip_end(struct zip *zp, pcap_t *p, const struct opts *o);
void zip_free(struct zip *zp);

#endif /* PACKZIP_H */
