// SPDX-License-Identifier: GPL-2.0
/*
 * rc_inject: write a batch of numbered test frames (rc_frames.h) into a
 * ringcap_sim device through its debugfs inject file.
 *
 *   rc_inject -d DEV [-n COUNT] [-s FIRST_SEQ] [-q QUEUE|mixed] [-r RUN]
 *             [-l LEN|varied]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rc_frames.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rc_inject -d DEV [-n COUNT] [-s FIRST_SEQ] [-q QUEUE|mixed]\n"
		"                 [-r RUN] [-l LEN|varied]\n"
		"Writes COUNT (default 1) numbered test frames to\n"
		RC_SIM_DEBUGFS "/DEV/inject.\n");
}

static long num(const char *s, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "rc_inject: bad %s '%s' (%ld..%ld)\n", what, s,
			min, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long count = 1, first = 0, queue = 0, run = 0, len = RC_LEN_VARIED;
	const char *dev = NULL;
	struct rc_spec *specs;
	int c, err;

	while ((c = getopt(argc, argv, "d:n:s:q:r:l:h")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'n':
			count = num(optarg, 0, 10000000, "count");
			break;
		case 's':
			first = num(optarg, 0, 0xffffffffL, "first seq");
			break;
		case 'q':
			queue = strcmp(optarg, "mixed") ?
				num(optarg, 0, 255, "queue") : RC_QUEUE_MIXED;
			break;
		case 'r':
			run = num(optarg, 0, 255, "run");
			break;
		case 'l':
			len = strcmp(optarg, "varied") ?
			      num(optarg, RC_MIN_LEN, RC_MAX_LEN, "length") :
			      RC_LEN_VARIED;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!dev || optind != argc) {
		usage(stderr);
		return 2;
	}
	specs = rc_specs(NULL, count, first, queue, run, len);
	if (!specs) {
		fprintf(stderr, "rc_inject: out of memory\n");
		return 1;
	}
	err = rc_sim_inject(dev, specs, count);
	free(specs);
	if (err) {
		fprintf(stderr, "rc_inject: %s: %s\n", dev, strerror(-err));
		return 1;
	}
	return 0;
}
