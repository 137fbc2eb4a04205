// SPDX-License-Identifier: GPL-2.0
/*
 * ringcount's capture file (capfile.h). The counters go into the
 * Interface Statistics Block as docs/PCAPNG.md says:
 *
 *   isb_ifrecv        received + dropped + filtered + cutoff  (offered)
 *   isb_filteraccept  received + dropped + cutoff    (passed the filter)
 *   isb_osdrop        dropped                        (the ring was full)
 *   isb_ifdrop        nic_dropped                    (the NIC's own loss)
 *   isb_usrdeliv      frames this program read
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "capfile.h"
#include "pcapfile.h"

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int capfile_fail(struct capfile *cf, int err)
{
	fprintf(stderr, "%s: %s: %s\n", cf->app, cf->name ? cf->name : cf->path,
		strerror(-err));
	return -1;
}

/* "x.pcap", "x.pcap.gz", "x.pcap.zst": the classic format. */
static int capfile_is_pcap(const char *path)
{
	size_t n = strlen(path);

	if (zsink_kind_of(path) == ZSINK_GZIP)
		n -= 3;
	else if (zsink_kind_of(path) == ZSINK_ZSTD)
		n -= 4;
	return n >= 5 && !strncmp(path + n - 5, ".pcap", 5);
}

/* The classic file header: nanosecond magic, Ethernet. */
static int capfile_pcap_start(struct capfile *cf, uint32_t snaplen)
{
	struct pcapfile_hdr h = pcapfile_hdr_of(1, snaplen);

	return zsink_write(&cf->out, &h, sizeof(h));
}

/* The name of file @k: @path with "-%05u" before ".pcap", or at its end. */
static char *capfile_name(const char *path, unsigned int k)
{
	const char *dot = strstr(path, ".pcap");
	int len = dot ? (int)(dot - path) : (int)strlen(path);
	char *name;

	if (asprintf(&name, "%.*s-%05u%s", len, path, k, dot ? dot : "") < 0)
		return NULL;
	return name;
}

/* Begin the next file: its section header and interface. 0 or -errno. */
static int capfile_begin(struct capfile *cf)
{
	const char *path = cf->path;
	char ifdesc[64];
	int err;

	cf->files++;
	free(cf->name);
	cf->name = NULL;
	if (cf->rot.bytes || cf->rot.ns) {
		cf->name = capfile_name(path, cf->files);
		if (!cf->name)
			return -ENOMEM;
		path = cf->name;
	}
	if (!strcmp(path, "-"))
		cf->fd = STDOUT_FILENO;
	else
		cf->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0644);
	if (cf->fd < 0)
		return -errno;
	if (cf->queue < 0)
		snprintf(ifdesc, sizeof(ifdesc), "%s", cf->ifname);
	else
		snprintf(ifdesc, sizeof(ifdesc), "%s@%d", cf->ifname, cf->queue);
	/* zstd's default level, 3, keeps up; gzip's 6 is its usual. */
	err = zsink_open(&cf->out, zsink_kind_of(path),
			 zsink_kind_of(path) == ZSINK_GZIP ? 6 : 3, cf->fd);
	if (!err && cf->pcap)
		err = capfile_pcap_start(cf, cf->snaplen);
	else if (!err)
		err = pcapng_start(&cf->ng, &cf->out, cf->app);
	if (!err && !cf->pcap)
		err = pcapng_interface(&cf->ng, ifdesc,
				       cf->queue < 0 ? "ringcap, all RX queues" :
						       "ringcap, one RX queue",
				       cf->snaplen, NULL);
	if (err < 0) {
		pcapng_free(&cf->ng);
		zsink_free(&cf->out);
		if (cf->fd != STDOUT_FILENO)
			close(cf->fd);
		cf->fd = -1;
		return err;
	}
	cf->ifid = cf->pcap ? 0 : err;
	cf->start_ns = real_ns();
	return 0;
}

/* End the file: the counters @st, the stream, the descriptor. 0 or -errno. */
static int capfile_end(struct capfile *cf, const struct ringcap_stats *st)
{
	struct pcapng_stats ps = {
		.have = PCAPNG_ISB_IFRECV | PCAPNG_ISB_IFDROP |
			PCAPNG_ISB_FILTERACCEPT | PCAPNG_ISB_OSDROP |
			PCAPNG_ISB_USRDELIV,
		.start_ns = cf->start_ns,
		.end_ns = real_ns(),
		.ifrecv = st->received + st->dropped + st->filtered +
			  st->cutoff,
		.ifdrop = st->nic_dropped,
		.filteraccept = st->received + st->dropped + st->cutoff,
		.osdrop = st->dropped,
		.usrdeliv = cf->frames,
	};
	int err = cf->err;

	if (!err && !cf->pcap)
		err = pcapng_stats(&cf->ng, cf->ifid, ps.end_ns, &ps);
	if (!err)
		err = zsink_finish(&cf->out);
	if (!err && cf->fd != STDOUT_FILENO && close(cf->fd))
		err = -errno;
	else if (err && cf->fd != STDOUT_FILENO)
		close(cf->fd);
	cf->fd = -1;
	pcapng_free(&cf->ng);
	zsink_free(&cf->out);
	return err;
}

int capfile_open(struct capfile *cf, const char *path, const char *app,
		 const char *ifname, int queue, uint32_t snaplen,
		 const struct capfile_rotate *rot)
{
	int err;

	memset(cf, 0, sizeof(*cf));
	cf->path = path;
	cf->app = app;
	cf->ifname = ifname;
	cf->queue = queue;
	cf->snaplen = snaplen;
	cf->pcap = capfile_is_pcap(path);
	if (rot)
		cf->rot = *rot;
	err = capfile_begin(cf);
	if (err)
		return capfile_fail(cf, err);
	return 0;
}

/* Is the file full, by size or time? */
static int capfile_due(const struct capfile *cf)
{
	return (cf->rot.bytes && cf->out.bytes_in >= cf->rot.bytes) ||
	       (cf->rot.ns && real_ns() - cf->start_ns >= cf->rot.ns);
}

/* The file is full: end it with the counters now, begin the next. */
static int capfile_next(struct capfile *cf)
{
	struct ringcap_stats st;
	int err;

	memset(&st, 0, sizeof(st));
	if (cf->rot.stats && cf->rot.stats(cf->rot.arg, &st))
		return -EIO;
	err = capfile_end(cf, &st);
	return err ? err : capfile_begin(cf);
}

void capfile_frame(struct capfile *cf, const struct ringcap_pkt *pkt,
		   uint64_t dropcount)
{
	const struct ringcap_rec *r = pkt->rec;
	int err;

	if (cf->err)
		return;
	if (capfile_due(cf)) {
		err = capfile_next(cf);
		if (err)
			goto out;
	}
	cf->frames++;
	if (cf->pcap) {
		struct pcapfile_rec h = {
			.sec = (uint32_t)(r->tstamp_ns / 1000000000ULL),
			.frac = (uint32_t)(r->tstamp_ns % 1000000000ULL),
			.caplen = r->caplen,
			.len = r->wire_len,
		};

		err = zsink_write(&cf->out, &h, sizeof(h));
		if (!err)
			err = zsink_write(&cf->out, pkt->data, r->caplen);
		goto out;
	}
	err = pcapng_packet(&cf->ng, cf->ifid, r->tstamp_ns, pkt->data,
			    r->caplen, r->wire_len, dropcount,
			    PCAPNG_FLAG_INBOUND, r->queue);
out:
	if (err)
		cf->err = err;
}

int capfile_close(struct capfile *cf, const struct ringcap_stats *st)
{
	int err = cf->fd >= 0 ? capfile_end(cf, st) : cf->err;

	if (err)
		capfile_fail(cf, err);
	free(cf->name);
	cf->name = NULL;
	return err ? -1 : 0;
}
