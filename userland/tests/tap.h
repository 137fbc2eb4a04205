/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The smallest TAP producer that does the job: "ok N - what" lines, a
 * diagnostic on failure and the plan at the end (valid TAP), exit status
 * 1 if anything failed. Header-only because each test is one program.
 * Every host-side C test that does not use the kselftest harness uses it
 * (userland/tests, libpcap-ring/tests/test_backend.c).
 */
#ifndef RC_TAP_H
#define RC_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

static void __attribute__((format(printf, 4, 5)))
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", pass ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!pass) {
		printf("#   failed at %s:%d\n", file, line);
		tap_failed++;
	}
	fflush(stdout);
}

#define ok(cond, ...)	tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_count);
	return tap_failed ? 1 : 0;
}

#endif /* RC_TAP_H */
