/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Glue between the kselftest harness and the ringcap helpers: prerequisite
 * checks, the per-test environment (a private network namespace with a sim
 * device or a veth pair), and running code in a forked child.
 *
 * Include after kselftest_harness.h.
 *
 * Every test runs in its own network namespace, so devices it creates
 * vanish with it even if it crashes, and nothing else on the machine (IPv6
 * router solicitations and the like) reaches its devices.
 */
#ifndef RC_TEST_H
#define RC_TEST_H

#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "rc_frames.h"
#include "rc_util.h"

/* RC_REQUIRE=1, as lib.sh reads it: prerequisites must be there. */
static inline bool rc_required(void)
{
	const char *v = getenv("RC_REQUIRE");

	return v && !strcmp(v, "1");
}

/*
 * A missing prerequisite (fmt says which) is a skip when a person runs a
 * test by hand, and a failure under run_guest.sh (RC_REQUIRE=1), which
 * set the guest up and must not turn what it lost into quiet skips.
 */
#define RC_SKIP_OR_FAIL(fmt, ...) do {					\
	if (rc_required()) {						\
		TH_LOG("prerequisite missing: " fmt, ##__VA_ARGS__);	\
		ASSERT_TRUE(0);						\
	}								\
	SKIP(return, fmt, ##__VA_ARGS__);				\
} while (0)

/* A missing module: RC_SKIP_OR_FAIL. */
#define RC_REQUIRE(need_sim) do {					\
	const char *__why = rc_missing(need_sim);			\
	if (__why)							\
		RC_SKIP_OR_FAIL("%s", __why);				\
} while (0)

struct rc_env {
	char sim[IFNAMSIZ];
	int sim_idx;
	char va[IFNAMSIZ];	/* veth end frames are sent from */
	char vb[IFNAMSIZ];	/* veth end sockets bind to */
	int va_idx, vb_idx;
	long mode_saved;
};

/* Private netns and a sim device named after the test process. */
#define RC_SETUP_SIM(env) do {						\
	RC_REQUIRE(true);						\
	memset((env), 0, sizeof(*(env)));				\
	(env)->mode_saved = rc_param_get("transparent_mode");		\
	ASSERT_EQ(0, rc_enter_netns());					\
	snprintf((env)->sim, IFNAMSIZ, "rcsim%d", getpid());		\
	(env)->sim_idx = rc_sim_create((env)->sim);			\
	ASSERT_LT(0, (env)->sim_idx)					\
		TH_LOG("cannot create ringcap_sim device %s", (env)->sim); \
} while (0)

/* Private netns and a veth pair. */
#define RC_SETUP_VETH(env) do {						\
	RC_REQUIRE(false);						\
	memset((env), 0, sizeof(*(env)));				\
	(env)->mode_saved = rc_param_get("transparent_mode");		\
	ASSERT_EQ(0, rc_enter_netns());					\
	snprintf((env)->va, IFNAMSIZ, "rcva%d", getpid());		\
	snprintf((env)->vb, IFNAMSIZ, "rcvb%d", getpid());		\
	(env)->vb_idx = rc_veth_create((env)->va, (env)->vb);		\
	ASSERT_LT(0, (env)->vb_idx)					\
		TH_LOG("cannot create veth pair %s/%s", (env)->va, (env)->vb); \
	(env)->va_idx = if_nametoindex((env)->va);			\
} while (0)

/* Undo what a test changed outside its netns; devices go with the netns. */
static inline void rc_teardown(struct rc_env *env)
{
	if (env->mode_saved >= 0)
		rc_param_set("transparent_mode", env->mode_saved);
	if (env->sim[0] && if_nametoindex(env->sim))
		rc_link_del(env->sim);
	if (env->va[0] && if_nametoindex(env->va))
		rc_link_del(env->va);
}

#define RC_SET_MODE(m)							\
	ASSERT_EQ(0, rc_param_set("transparent_mode", (m)))		\
		TH_LOG("cannot set transparent_mode=%d", (m))

/*
 * Run fn(arg, why) in a forked child and return what it returns (0 for
 * success), or -1 if it died. why (shared with the child) explains a
 * non-zero result. The child never touches the harness.
 */
typedef int (*rc_child_fn)(void *arg, char *why, size_t len);

static inline int rc_in_child(rc_child_fn fn, void *arg, char *why,
			      size_t len)
{
	char *shared;
	int status;
	pid_t pid;

	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -1;
	shared[0] = '\0';
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		_exit(fn(arg, shared, 4096) & 0xff);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	snprintf(why, len, "%s", shared);
	munmap(shared, 4096);
	if (status == -1 || !WIFEXITED(status)) {
		snprintf(why, len, "child died (status 0x%x)", status);
		return -1;
	}
	return WEXITSTATUS(status);
}

#define RC_EXPECT_FRAMES(cap, specs, n, ifindex, snaplen, t0, t1) do {	\
	char __why[512];						\
	ASSERT_EQ(0, rc_cap_expect((cap), (specs), (n), (ifindex),	\
				   (snaplen), (t0), (t1), __why,	\
				   sizeof(__why)))			\
		TH_LOG("%s", __why);					\
} while (0)

#define RC_WAIT_ACCOUNTED(fd, total, st)				\
	ASSERT_EQ(0, rc_wait_accounted((fd), (total), 20000, (st)))	\
		TH_LOG("only %llu received + %llu dropped + %llu filtered of %llu", \
		       (unsigned long long)(st)->received,		\
		       (unsigned long long)(st)->dropped,		\
		       (unsigned long long)(st)->filtered,		\
		       (unsigned long long)(total))

#endif /* RC_TEST_H */
