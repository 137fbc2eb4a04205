// SPDX-License-Identifier: GPL-2.0
/*
 * The command-line helpers every ringcap tool links (cli.h): errors, option
 * values, getopt's complaints and the stop signals.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

volatile sig_atomic_t cli_stop;
static void (*stop_also)(void);

void die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", cli_prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (status == EXIT_USAGE)
		fprintf(stderr, "Try '%s --help'.\n", cli_prog);
	exit(status);
}

void die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", cli_prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

const char *cli_optname(int opt)
{
	static char buf[64];
	const struct option *lo;

	if (opt > 0 && opt < 256) {
		snprintf(buf, sizeof(buf), "-%c", opt);
		return buf;
	}
	for (lo = cli_longopts; lo->name; lo++)
		if (lo->val == opt)
			break;
	snprintf(buf, sizeof(buf), "--%s", lo->name ? lo->name : "?");
	return buf;
}

unsigned long long cli_num(int opt, const char *s, unsigned long long min,
			   unsigned long long max, int suffixes)
{
	unsigned long long val;
	char *end;

	errno = 0;
	val = strtoull(s, &end, 10);
	/* strtoull() takes "-1" as a huge number: digits only. */
	if (s[0] < '0' || s[0] > '9' || errno)
		goto bad;
	if (suffixes && (*end == 'k' || *end == 'K') && val <= (max >> 10)) {
		val <<= 10;
		end++;
	} else if (suffixes && (*end == 'm' || *end == 'M') &&
		   val <= (max >> 20)) {
		val <<= 20;
		end++;
	}
	if (*end || val < min || val > max)
		goto bad;
	return val;
bad:
	if (max == ~0ULL)
		bad_usage("%s: expected a number >= %llu, got '%s'",
			  cli_optname(opt), min, s);
	bad_usage("%s: expected a number in %llu..%llu, got '%s'",
		  cli_optname(opt), min, max, s);
}

double cli_seconds(int opt, const char *s, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0 && v <= max))
		bad_usage("%s: expected seconds in (0, %g], got '%s'",
			  cli_optname(opt), max, s);
	return v;
}

void cli_bad_option(int c, char **argv)
{
	/* optopt names a short option; a long one is only in argv. */
	int is_short = optopt > 0 && optopt < 256 &&
		       strncmp(argv[optind - 1], "--", 2);

	if (c == ':' && is_short)
		bad_usage("option -%c needs an argument", optopt);
	if (c == ':')
		bad_usage("option '%s' needs an argument", argv[optind - 1]);
	if (optopt > 0 && optopt < 256)
		bad_usage("unknown option -%c", optopt);
	bad_usage("unknown option '%s'", argv[optind - 1]);
}

static void on_stop(int sig)
{
	(void)sig;
	cli_stop = 1;
	if (stop_also)
		stop_also();
}

void cli_catch_stop(void (*also)(void), int alarm, int restart)
{
	struct sigaction sa;

	stop_also = also;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (alarm)
		sigaction(SIGALRM, &sa, NULL);
}
