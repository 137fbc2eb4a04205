// SPDX-License-Identifier: GPL-2.0
/*
 * The fake descriptor of the transmit tests and their frames; see
 * tx_fixture.h.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "tx_fixture.h"

static struct fake_tx *cur;	/* the ring the fake descriptor kicks */
int kick_errno;
int opt_errno;
unsigned long sleeps;
long sleep_ns[64];
unsigned long drain_after;

/* The kick on FAKE_FD: the kernel's side, or kick_errno once. */
ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *addr, socklen_t alen)
{
	int err;

	if (fd != FAKE_FD)
		return syscall(SYS_sendto, fd, buf, len, flags, addr, alen);
	if (len || !cur) {
		errno = EINVAL;
		return -1;
	}
	if (kick_errno) {
		errno = kick_errno;
		kick_errno = 0;
		return -1;
	}
	err = fake_tx_kick(cur);
	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}

/* Counted, then slept for real: rcap_tx_wait()'s timeout is measured. */
int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (sleeps < 64)
		sleep_ns[sleeps] = req->tv_nsec + req->tv_sec * 1000000000L;
	if (++sleeps == drain_after && cur)
		cur->budget = -1;	/* the device's queue drained */
	return clock_nanosleep(CLOCK_MONOTONIC, 0, req, rem);
}

const struct ringcap_tx_stats fake_stats = {
	.sent = 7, .refused_len = 2, .refused_down = 1, .full = 3,
	.bad_producer = 4, .kicks = 9,
};
uint32_t opt_set[32];

/* The options on FAKE_FD: noted in opt_set[], or opt_errno once. */
int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	if (fd != FAKE_FD)
		return syscall(SYS_setsockopt, fd, level, name, val, len);
	if (opt_errno) {
		errno = opt_errno;
		opt_errno = 0;
		return -1;
	}
	if (level == SOL_RINGCAP && len == sizeof(uint32_t) && name < 32)
		memcpy(&opt_set[name], val, sizeof(uint32_t));
	return 0;
}

/* Only RINGCAP_TX_STATS, which reads fake_stats; or opt_errno once. */
int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	if (fd != FAKE_FD)
		return syscall(SYS_getsockopt, fd, level, name, val, len);
	if (opt_errno) {
		errno = opt_errno;
		opt_errno = 0;
		return -1;
	}
	if (level == SOL_RINGCAP && name == RINGCAP_TX_STATS &&
	    *len >= sizeof(fake_stats)) {
		memcpy(val, &fake_stats, sizeof(fake_stats));
		*len = sizeof(fake_stats);
		return 0;
	}
	errno = ENOPROTOOPT;
	return -1;
}

const uint8_t *frame(uint32_t len, uint32_t seq)
{
	static uint8_t buf[65536];
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(seq + i);
	return buf;
}

static void on_frame(void *arg, const uint8_t *f, uint32_t len)
{
	struct seen *s = arg;
	uint32_t seq = s->first_seq + s->n, i;

	if (s->lens && len != s->lens[seq % 1024])
		s->bad++;
	for (i = 0; i < len; i++)
		if (f[i] != (uint8_t)(seq + i)) {
			s->bad++;
			break;
		}
	s->n++;
}

void tx_init(struct fake_tx *ft, uint32_t size, uint64_t start,
	     uint32_t frame_max, struct seen *seen)
{
	fake_tx_init(ft, size, start, frame_max, NULL);
	ft->rc->fd = FAKE_FD;
	cur = ft;
	if (seen) {
		memset(seen, 0, sizeof(*seen));
		ft->on_frame = on_frame;
		ft->arg = seen;
	}
}

void tx_free(struct fake_tx *ft)
{
	ft->rc->fd = -1;	/* rcap_close() must not close 1000 */
	fake_tx_free(ft);
	cur = NULL;
}
