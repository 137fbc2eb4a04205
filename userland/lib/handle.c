// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The ringcap handle: finding the live family number, creating and closing
 * the socket.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include "internal.h"

#define RC_FAMILY_PARAM	"/sys/module/ringcap/parameters/family"

int rcap_family(void)
{
	char buf[32], *end;
	long val;
	FILE *f;

	/*
	 * The family is a module parameter, so it is read at run time
	 * rather than compiled in: a module loaded with family=N still works.
	 */
	f = fopen(RC_FAMILY_PARAM, "re");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	errno = 0;
	val = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') ||
	    val <= 0 || val > 1023)
		return -1;
	return (int)val;
}

struct ringcap *rcap_open(void)
{
	struct ringcap *rc;
	int family, err;

	family = rcap_family();
	if (family < 0) {
		errno = EAFNOSUPPORT;
		return NULL;
	}
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return NULL;
	rc->family = family;
	rc->fd = socket(family, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (rc->fd < 0) {
		err = errno;
		free(rc);
		errno = err;
		return NULL;
	}
	return rc;
}

void rcap_close(struct ringcap *rc)
{
	int err = errno;

	if (!rc)
		return;
	if (rc->mapped) {
		munmap(rc->hdr, rc->map_size);
		/*
		 * Before the socket closes: closing gives the queue, and
		 * these buffers, back to the driver and the stack.
		 */
		if (rc->zc_bufs)
			munmap((void *)rc->zc_bufs, rc->zc_size);
	}
	/* Frames put but not sent are lost with the socket (libringcap.h). */
	if (rc->tx_mapped)
		munmap(rc->tx_hdr, rc->tx_map_size);
	if (rc->fd >= 0)
		close(rc->fd);
	free(rc);
	errno = err;
}

int rcap_fd(const struct ringcap *rc)
{
	return rc->fd;
}

/* The names before libringcap 1.2 (libringcap.h). */
RC_OLD_NAME(close);
RC_OLD_NAME(family);
RC_OLD_NAME(fd);
RC_OLD_NAME(open);
