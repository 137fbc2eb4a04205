/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clock of a tool's main loop (ringcount, rcgen): a progress line
 * every second, an optional deadline, and how long the loop may sleep
 * without missing either. Instants are CLOCK_MONOTONIC nanoseconds.
 */
#ifndef RINGCAP_TOOLS_TICKER_H
#define RINGCAP_TOOLS_TICKER_H

#define NSEC	1000000000ULL

struct ticker {
	unsigned long long start;
	unsigned long long last;	/* the previous progress line */
	unsigned long long next;	/* when the next one is due */
	unsigned long long deadline;	/* 0: none */
};

unsigned long long now_ns(void);

/* Start now; a @duration of 0 seconds means no deadline. */
void ticker_start(struct ticker *t, double duration);
/*
 * At @now, is a progress line due? If so, *@elapsed is the time since the
 * start and *@interval since the previous line, both in seconds, and the
 * next line is scheduled.
 */
int ticker_due(struct ticker *t, unsigned long long now, double *elapsed,
	       double *interval);
/* Has the deadline passed at @now? */
int ticker_over(const struct ticker *t, unsigned long long now);
/* The latest instant the loop may sleep to: the next line or deadline. */
unsigned long long ticker_wake(const struct ticker *t);
/* Milliseconds from @now to ticker_wake(), at least 1 (for poll()). */
int ticker_wait_ms(const struct ticker *t, unsigned long long now);
/* Seconds since the start. */
double ticker_seconds(const struct ticker *t);

#endif
