/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the ringcap tools share on the command line, so that they speak
 * alike: "PROG: message" on stderr, exit 2 for bad usage (with a pointer to
 * --help) and 1 for a failure, options named as the user typed them, and
 * SIGINT/SIGTERM asking for a clean stop with a summary.
 */
#ifndef RINGCAP_TOOLS_CLI_H
#define RINGCAP_TOOLS_CLI_H

#include <getopt.h>
#include <signal.h>

#define EXIT_USAGE	2

/* Each tool defines these two: its name, and its long options. */
extern const char cli_prog[];
extern const struct option cli_longopts[];

/* Set by cli_catch_stop()'s handler: the main loop should end. */
extern volatile sig_atomic_t cli_stop;

void __attribute__((noreturn, format(printf, 2, 3)))
die(int status, const char *fmt, ...);
/* die(1, ...) with ": strerror(errno)" appended. */
void __attribute__((noreturn, format(printf, 1, 2)))
die_errno(const char *fmt, ...);
#define bad_usage(...)	die(EXIT_USAGE, __VA_ARGS__)

/* "-c" for a short option, "--name" for one that has only a long name. */
const char *cli_optname(int opt);

/*
 * An unsigned decimal in [min, max] for option @opt, or a usage error
 * naming it. With @suffixes, k and M multiply by 2^10 and 2^20.
 */
unsigned long long cli_num(int opt, const char *s, unsigned long long min,
			   unsigned long long max, int suffixes);
/* Seconds in (0, max], fractions allowed. */
double cli_seconds(int opt, const char *s, double max);
/* getopt_long() returned ':' or '?' (with opterr = 0 and ":" first). */
void __attribute__((noreturn)) cli_bad_option(int c, char **argv);

/*
 * SIGINT and SIGTERM set cli_stop and call @also (may be NULL), as does
 * SIGALRM with @alarm. With @restart, interrupted system calls go on
 * (SA_RESTART); without it poll() and sleeps return EINTR, so a loop that
 * sleeps sees the stop at once.
 */
void cli_catch_stop(void (*also)(void), int alarm, int restart);

#endif
