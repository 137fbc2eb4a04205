// SPDX-License-Identifier: GPL-2.0
/*
 * The bench's cost guest sleeps through each send (scripts/cost.sh); this
 * is that sleep, with a window around it in which the insn-split plugin
 * (scripts/insn-split.c) counts the user-space instructions executed.
 * While it sleeps the bench's shell waits for it, so the readers are the
 * only user space that runs: the window's user instructions are theirs,
 * exactly. Their run time in the window, from their cgroup's cpu.stat
 * read just outside the marks, gives the share of it spent in user space.
 *
 *   insn-mark LOG CPUSTAT SECONDS
 *       LOG: the plugin's file (in the guest's share); CPUSTAT: the
 *       readers' cgroup's cpu.stat. Prints
 *       "window_user=N window_kernel=N window_reader_ns=N"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* nopl 0x4b524343(%rax): the plugin's mark ("CCRK"), a no-op without it. */
#define MARK() asm volatile(".byte 0x0f, 0x1f, 0x80, 0x43, 0x43, 0x52, 0x4b")

static long long usage_usec(const char *path)
{
	char key[64];
	long long v;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		exit(1);
	}
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		if (!strcmp(key, "usage_usec")) {
			fclose(f);
			return v;
		}
	fprintf(stderr, "insn-mark: no usage_usec in %s\n", path);
	exit(1);
}

/* The plugin's last two lines: the marks around the sleep. */
static void last_marks(const char *path, unsigned long long c[2][2])
{
	char line[128], prev[128] = "", last[128] = "";
	unsigned long long seq;
	FILE *f = fopen(path, "r");
	int i;

	if (!f) {
		perror(path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		memcpy(prev, last, sizeof(prev));
		memcpy(last, line, sizeof(last));
	}
	fclose(f);
	for (i = 0; i < 2; i++)
		if (sscanf(i ? last : prev, "mark %llu user %llu kernel %llu",
			   &seq, &c[i][0], &c[i][1]) != 3) {
			fprintf(stderr, "insn-mark: no marks in %s: is QEMU running the insn-split plugin?\n",
				path);
			exit(1);
		}
}

int main(int argc, char **argv)
{
	unsigned long long c[2][2];
	struct timespec ts = { 0 };
	long long r0, r1;

	if (argc != 4 || atoi(argv[3]) <= 0) {
		fprintf(stderr, "usage: insn-mark LOG CPUSTAT SECONDS\n");
		return 2;
	}
	ts.tv_sec = atoi(argv[3]);
	r0 = usage_usec(argv[2]);
	MARK();
	nanosleep(&ts, NULL);
	MARK();
	r1 = usage_usec(argv[2]);
	last_marks(argv[1], c);
	printf("window_user=%llu window_kernel=%llu window_reader_ns=%lld\n",
	       c[1][0] - c[0][0], c[1][1] - c[0][1], 1000 * (r1 - r0));
	return 0;
}
