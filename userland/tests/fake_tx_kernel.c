// SPDX-License-Identifier: GPL-2.0
/*
 * rcgen --tx-ring on a host without the module. Linked into a copy of
 * rcgen (build/tests/rcgen_fake) ahead of libringcap.a, it stands in for
 * the library calls that need the kernel (open, the options, bind, map)
 * and for the kick (sendto() on the fake descriptor), so that rcgen runs
 * libringcap's real transmit side (tx.c) over fake_tx (fake_ring.c),
 * whose consumer follows the ABI text. The "device" takes at most
 * FAKE_TX_BUDGET frames per kick (default 16) and none at every third
 * kick, a queue that fills, so that rcgen meets partial kicks, a full
 * ring and the wait for room. What it sends goes to a pcap file.
 *
 * Environment:
 *   FAKE_TX_PCAP=FILE       the frames sent, in order (microsecond pcap,
 *                           Ethernet, timestamps counting up from 0)
 *   FAKE_TX_BUDGET=N        frames per kick (default 16)
 *   FAKE_TX_FRAME_MAX=N     the device's frame_max (default 1518)
 *
 * At close it says on stderr "fake_tx: kicks= sent= pads= full= bad=
 * refused=" for the test to check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "fake_ring.h"

#define FAKE_FD		1000

static struct fake_tx ft;
static int mapped, budget = 16;
static FILE *pcap;
static uint32_t usec;

static unsigned long env_num(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 10) : def;
}

struct ringcap *rcap_open(void)
{
	struct ringcap *rc = calloc(1, sizeof(*rc));

	if (!rc)
		return NULL;
	rc->fd = FAKE_FD;
	return rc;
}

void rcap_close(struct ringcap *rc)
{
	if (!rc)
		return;
	if (mapped) {
		fprintf(stderr,
			"fake_tx: kicks=%lu sent=%lu pads=%lu full=%lu bad=%lu refused=%lu\n",
			ft.kicks, ft.sent, ft.pads, ft.full, ft.bad,
			ft.refused);
		rc->tx_hdr = NULL;
		free(ft.hdr);
		mapped = 0;
	}
	if (pcap && fclose(pcap))
		fprintf(stderr, "fake_tx: cannot write the pcap file\n");
	pcap = NULL;
	free(rc);
}

int rcap_set_capture(struct ringcap *rc, int on)
{
	rc->no_capture = !on;
	return 0;
}

int rcap_set_ring_size(struct ringcap *rc, uint32_t bytes)
{
	(void)rc;
	(void)bytes;
	return 0;
}

int rcap_set_tx_ring(struct ringcap *rc, uint32_t bytes)
{
	rc->tx_ring_size = bytes;
	return 0;
}

int rcap_parse_spec(const char *spec, char *ifname, size_t len,
		       int *queue)
{
	size_t n = strlen(spec);

	if (!n || n >= len || n >= IFNAMSIZ || strpbrk(spec, "@/: ")) {
		errno = EINVAL;
		return -1;
	}
	memcpy(ifname, spec, n + 1);
	*queue = -1;
	return 0;
}

int rcap_bind(struct ringcap *rc, const char *ifname, int queue)
{
	if (!rc->no_capture || queue != -1)
		return rc_fail(rc, EINVAL,
			       "fake_tx: expected a transmit-only socket on all queues");
	if (!if_nametoindex(ifname))
		return rc_fail(rc, ENODEV, "no such device: %s", ifname);
	rc->bound = 1;
	return 0;
}

static void on_frame(void *arg, const uint8_t *frame, uint32_t len)
{
	uint32_t rec[4] = { usec / 1000000, usec % 1000000, len, len };

	(void)arg;
	usec++;
	if (pcap && (fwrite(rec, sizeof(rec), 1, pcap) != 1 ||
		     fwrite(frame, len, 1, pcap) != 1))
		fprintf(stderr, "fake_tx: cannot write the pcap file\n");
}

int rcap_map(struct ringcap *rc)
{
	static const uint32_t hdr[6] = {
		0xa1b2c3d4, 2 | 4 << 16, 0, 0, 65535, 1,
	};
	const char *path = getenv("FAKE_TX_PCAP");

	if (!rc->tx_ring_size)
		return rc_fail(rc, EINVAL, "fake_tx: no transmit ring asked for");
	fake_tx_init(&ft, rc->tx_ring_size, 0,
		     env_num("FAKE_TX_FRAME_MAX", 1518), rc);
	ft.on_frame = on_frame;
	budget = (int)env_num("FAKE_TX_BUDGET", 16);
	mapped = 1;
	if (path) {
		pcap = fopen(path, "wb");
		if (!pcap || fwrite(hdr, sizeof(hdr), 1, pcap) != 1)
			return rc_fail(rc, EIO, "fake_tx: cannot write %s",
				       path);
	}
	return 0;
}

/* The kick: a device that takes budget frames, none every third time. */
ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *addr, socklen_t alen)
{
	int err;

	if (fd != FAKE_FD)
		return syscall(SYS_sendto, fd, buf, len, flags, addr, alen);
	if (len || !mapped) {
		errno = len ? EINVAL : ENXIO;
		return -1;
	}
	ft.budget = ft.kicks % 3 == 2 ? 0 : budget;
	err = fake_tx_kick(&ft);
	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}
