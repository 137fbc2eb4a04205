// SPDX-License-Identifier: GPL-2.0
/* A main loop's clock: progress lines each second and a deadline. */
#include <time.h>
#include "ticker.h"

unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

void ticker_start(struct ticker *t, double duration)
{
	t->start = now_ns();
	t->last = t->start;
	t->next = t->start + NSEC;
	t->deadline = duration ?
		t->start + (unsigned long long)(duration * NSEC) : 0;
}

int ticker_due(struct ticker *t, unsigned long long now, double *elapsed,
	       double *interval)
{
	if (now < t->next)
		return 0;
	*elapsed = (now - t->start) / 1e9;
	*interval = (now - t->last) / 1e9;
	t->last = now;
	/* A loop that was stopped for seconds skips the lines it missed. */
	while (t->next <= now)
		t->next += NSEC;
	return 1;
}

int ticker_over(const struct ticker *t, unsigned long long now)
{
	return t->deadline && now >= t->deadline;
}

unsigned long long ticker_wake(const struct ticker *t)
{
	if (t->deadline && t->deadline < t->next)
		return t->deadline;
	return t->next;
}

int ticker_wait_ms(const struct ticker *t, unsigned long long now)
{
	unsigned long long until = ticker_wake(t);

	if (until <= now)
		return 1;
	return (int)((until - now + 999999) / 1000000);
}

double ticker_seconds(const struct ticker *t)
{
	return (now_ns() - t->start) / 1e9;
}
