// SPDX-License-Identifier: GPL-2.0
/*
 * rc_hold: open a ringcap socket (optionally bound to a device) and keep
 * it open until standard input reaches end of file, so that a shell test
 * can hold a socket while it tries to unload the module.
 *
 *   rc_hold [DEV]     prints "ready" once the socket is open (and bound)
 */
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "rc_util.h"

int main(int argc, char **argv)
{
	char buf[64];
	int fd, err;

	if (argc > 2 || (argc == 2 && !strcmp(argv[1], "-h"))) {
		fprintf(stderr, "usage: rc_hold [DEV] < fifo\n");
		return 2;
	}
	fd = rc_socket();
	if (fd < 0) {
		fprintf(stderr, "rc_hold: socket: %s\n", strerror(-fd));
		return 1;
	}
	if (argc == 2) {
		err = rc_bind(fd, if_nametoindex(argv[1]), RINGCAP_QUEUE_ANY);
		if (err) {
			fprintf(stderr, "rc_hold: bind %s: %s\n", argv[1],
				strerror(-err));
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}
