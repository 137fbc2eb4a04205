/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A ringcap capture written to a pcapng file (pcapng.h), plain, gzip or
 * zstd by the file name's suffix: one interface for the socket's binding
 * (DEV, or DEV@QUEUE), each frame with the loss its gap records put
 * before it, and at the end the socket's counters in an Interface
 * Statistics Block (docs/PCAPNG.md maps them). A name ending in .pcap
 * (before any .gz or .zst) gets a classic pcap file with nanosecond
 * timestamps instead, which has no place for the loss. A capture may go
 * into a series of files instead, a new one by size or time.
 */
#ifndef RINGCAP_TOOLS_CAPFILE_H
#define RINGCAP_TOOLS_CAPFILE_H

#include "libringcap.h"
#include "pcapng.h"
#include "zsink.h"

/*
 * A new file every @bytes bytes of capture (before compression, as
 * tcpdump -C counts them) or @ns nanoseconds, whichever comes first,
 * checked at each frame; 0: never.
 * Each file is whole: its own section and interface, and the counters
 * as @stats gives them at its end, since the capture began.
 */
struct capfile_rotate {
	unsigned long long bytes;
	unsigned long long ns;
	int (*stats)(void *arg, struct ringcap_stats *st);
	void *arg;
};

struct capfile {
	const char *path;	/* as given; with rotation, the files' pattern */
	char *name;		/* the file being written */
	const char *app;
	const char *ifname;
	int queue;
	uint32_t snaplen;
	struct capfile_rotate rot;
	unsigned int files;	/* files begun */
	int fd;
	struct zsink out;
	struct pcapng ng;
	int pcap;		/* classic pcap, not pcapng */
	uint32_t ifid;
	uint64_t start_ns;	/* the file's */
	unsigned long long frames;	/* written, in all files */
	int err;		/* the first write error, -errno */
};

/*
 * Create @path ("-": stdout) for a capture of @ifname (@queue, or -1 for
 * all) with @snaplen, named as written by @app; with @rot (NULL: one
 * file) the files are @path with "-00001", "-00002"... before its
 * ".pcap" or ".pcapng", or at its end. 0, or -1 with a message on stderr.
 */
int capfile_open(struct capfile *cf, const char *path, const char *app,
		 const char *ifname, int queue, uint32_t snaplen,
		 const struct capfile_rotate *rot);
/* One frame, after @dropcount lost; the first error sticks in cf->err. */
void capfile_frame(struct capfile *cf, const struct ringcap_pkt *pkt,
		   uint64_t dropcount);
/*
 * The counters @st at the end of the last file, and the file ended and
 * closed. 0, or -1 with a message on stderr.
 */
int capfile_close(struct capfile *cf, const struct ringcap_stats *st);

#endif
