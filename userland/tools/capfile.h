/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A ringcap capture written to a pcapng file (pcapng.h), plain, gzip or
 * zstd by the file name's suffix: one interface for the socket's binding
 * (DEV, or DEV@QUEUE), each frame with the loss its gap records put
 * before it, and at the end the socket's counters in an Interface
 * Statistics Block (docs/PCAPNG.md maps them). A name ending in .pcap
 * (before any .gz or .zst) gets a classic pcap file with nanosecond
 * timestamps instead, which has no place for the loss.
 */
#ifndef RINGCAP_TOOLS_CAPFILE_H
#define RINGCAP_TOOLS_CAPFILE_H

#include "libringcap.h"
#include "pcapng.h"
#include "zsink.h"

struct capfile {
	const char *path;
	const char *app;
	int fd;
	struct zsink out;
	struct pcapng ng;
	int pcap;		/* classic pcap, not pcapng */
	uint32_t ifid;
	uint64_t start_ns;
	int err;		/* the first write error, -errno */
};

/*
 * Create @path ("-": stdout) for a capture of @ifname (@queue, or -1 for
 * all) with @snaplen, named as written by @app. 0, or -1 with a message
 * on stderr.
 */
int capfile_open(struct capfile *cf, const char *path, const char *app,
		 const char *ifname, int queue, uint32_t snaplen);
/* One frame, after @dropcount lost; the first error sticks in cf->err. */
void capfile_frame(struct capfile *cf, const struct ringcap_pkt *pkt,
		   uint64_t dropcount);
/*
 * The counters @st, with @captured frames read by the program, and the
 * file ended and closed. 0, or -1 with a message on stderr.
 */
int capfile_close(struct capfile *cf, const struct ringcap_stats *st,
		  unsigned long long captured);

#endif
