// SPDX-License-Identifier: GPL-2.0
/*
 * rcap_parse_spec() and the argument checks of rcap_bind(): what
 * "dev" and "dev@queue" accept and refuse, and the errno and message a
 * refusal leaves; the same for cluster specs ("ID[:POLICY]"), for what
 * rcap_bind() says when the kernel refuses a (zero-copy) bind, and for
 * the names of the capture paths. Runs on any host; no module is needed:
 * bind() is replaced below for one fake descriptor.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "internal.h"
#include "tap.h"

/*
 * A descriptor no socket has: bind() on it fails with bind_errno (or
 * succeeds when that is 0), as the module would; anything else goes to
 * the real call. libringcap.a is linked statically, so its bind() is this.
 */
#define FAKE_FD		1000
static int bind_errno;

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	if (fd != FAKE_FD)
		return syscall(SYS_bind, fd, addr, len);
	errno = bind_errno;
	return bind_errno ? -1 : 0;
}

static void good(const char *spec, const char *name, int queue)
{
	char ifname[IFNAMSIZ] = "";
	int q = -2, ret;

	ret = rcap_parse_spec(spec, ifname, sizeof(ifname), &q);
	ok(!ret && !strcmp(ifname, name) && q == queue,
	   "\"%s\" -> \"%s\" queue %d (got ret %d \"%s\" %d)", spec, name,
	   queue, ret, ifname, q);
}

static void bad(const char *spec)
{
	char ifname[IFNAMSIZ] = "unchanged";
	int q = 7, ret;

	errno = 0;
	ret = rcap_parse_spec(spec, ifname, sizeof(ifname), &q);
	ok(ret == -1 && errno == EINVAL && q == 7,
	   "\"%s\" refused with EINVAL, queue untouched", spec ? spec : "NULL");
}

/*
 * rcap_close(NULL) does nothing, errno included: in a child, so that a
 * crash is a failed line here rather than the end of the program.
 */
static void close_null(void)
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		errno = EXDEV;
		rcap_close(NULL);
		_exit(errno == EXDEV ? 0 : 1);
	}
	if (pid > 0 && waitpid(pid, &status, 0) != pid)
		status = -1;
	ok(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status),
	   "rcap_close(NULL) is harmless and keeps errno (status 0x%x)",
	   status);
}

static void spec_cases(void)
{
	char small[5];
	int q;

	good("eth0", "eth0", -1);
	good("eth0@0", "eth0", 0);
	good("eth0@1", "eth0", 1);
	good("eth0@all", "eth0", -1);
	good("eth0@007", "eth0", 7);
	good("eth0@65534", "eth0", 65534);
	good("abcdefghijklmno", "abcdefghijklmno", -1);	/* 15 chars */
	good("veth@x@2", "veth@x", 2);		/* the last '@' splits */
	good("en-p1.100", "en-p1.100", -1);

	bad(NULL);
	bad("");
	bad("@1");
	bad("eth0@");
	bad("eth0@x");
	bad("eth0@-1");
	bad("eth0@+1");
	bad("eth0@ 1");
	bad("eth0@1x");
	bad("eth0@65535");		/* RINGCAP_QUEUE_ANY is not a queue */
	bad("eth0@99999999999999999999");
	bad("abcdefghijklmnop");	/* 16 chars: over IFNAMSIZ - 1 */
	bad("eth 0");
	bad("a/b");
	bad("a:b");
	bad(".");
	bad("..");
	bad(" eth0");

	ok(!rcap_parse_spec("eth", small, sizeof(small), &q),
	   "a name that fits the caller's buffer exactly");
	errno = 0;
	ok(rcap_parse_spec("eth0", small, 4, &q) == -1 && errno == EINVAL,
	   "a name longer than the caller's buffer: EINVAL");
	ok(rcap_parse_spec("eth0", small, sizeof(small), NULL) == -1,
	   "NULL queue pointer refused");
}

static void cluster_good(const char *spec, uint32_t id, uint32_t policy)
{
	uint32_t i = 0, p = 99;
	int ret;

	ret = rcap_parse_cluster(spec, &i, &p);
	ok(!ret && i == id && p == policy,
	   "cluster \"%s\" -> %u:%s (got ret %d %u:%u)", spec, id,
	   rcap_cluster_policy_name(policy), ret, i, p);
}

static void cluster_bad(const char *spec)
{
	uint32_t i = 7, p = 7;

	errno = 0;
	ok(rcap_parse_cluster(spec, &i, &p) == -1 && errno == EINVAL &&
	   i == 7 && p == 7, "cluster \"%s\" refused with EINVAL, untouched",
	   spec ? spec : "NULL");
}

static void cluster_cases(void)
{
	struct ringcap *rc = calloc(1, sizeof(*rc));
	int ret;

	cluster_good("1", 1, RINGCAP_CLUSTER_FLOW);
	cluster_good("42:flow", 42, RINGCAP_CLUSTER_FLOW);
	cluster_good("42:rr", 42, RINGCAP_CLUSTER_RR);
	cluster_good("007:queue", 7, RINGCAP_CLUSTER_QUEUE);
	cluster_good("4294967295", 4294967295u, RINGCAP_CLUSTER_FLOW);
	cluster_good("3:flow+span", 3,
		     RINGCAP_CLUSTER_FLOW | RINGCAP_CLUSTER_SPAN);
	cluster_good("3:rr+span", 3, RINGCAP_CLUSTER_RR | RINGCAP_CLUSTER_SPAN);
	cluster_good("3:flow+inner", 3,
		     RINGCAP_CLUSTER_FLOW | RINGCAP_CLUSTER_INNER);
	cluster_good("3:flow+span+inner", 3, RINGCAP_CLUSTER_FLOW |
		     RINGCAP_CLUSTER_SPAN | RINGCAP_CLUSTER_INNER);

	cluster_bad(NULL);
	cluster_bad("");
	cluster_bad("0");		/* id 0 means no cluster */
	cluster_bad("4294967296");
	cluster_bad("-1");
	cluster_bad("+1");
	cluster_bad(" 1");
	cluster_bad("1:");
	cluster_bad("1:hash");
	cluster_bad("1:RR");
	cluster_bad("1:rr:x");
	cluster_bad("1 :rr");
	cluster_bad("x:rr");
	cluster_bad(":rr");
	cluster_bad("1:span");
	cluster_bad("1:+span");
	cluster_bad("1:flow+");
	cluster_bad("1:flow+span+span");
	cluster_bad("1:rr+inner");
	cluster_bad("1:flow+inner+span");

	ok(!rcap_cluster_policy_name(3), "no name for policy 3");
	ok(!strcmp(rcap_cluster_policy_name(RINGCAP_CLUSTER_QUEUE |
					    RINGCAP_CLUSTER_SPAN), "queue+span"),
	   "queue with RINGCAP_CLUSTER_SPAN is queue+span");
	rc->fd = -1;
	errno = 0;
	ret = rcap_set_cluster(rc, 0, RINGCAP_CLUSTER_FLOW);
	ok(ret == -1 && errno == EINVAL && strstr(rcap_errmsg(rc), "bad cluster"),
	   "set_cluster: id 0 refused before the kernel (%s)",
	   rcap_errmsg(rc));
	errno = 0;
	ret = rcap_set_cluster(rc, 5, 3);
	ok(ret == -1 && errno == EINVAL, "set_cluster: policy 3 refused");
	errno = 0;
	ret = rcap_set_cluster(rc, 5, RINGCAP_CLUSTER_RR);
	ok(ret == -1 && errno == EBADF &&
	   strstr(rcap_errmsg(rc), "joining cluster 5:rr"),
	   "set_cluster: reaches setsockopt() (%s)", rcap_errmsg(rc));
	free(rc);
}

/* A handle without a socket: enough to reach the checks before bind(). */
static void bind_cases(void)
{
	struct ringcap *rc = calloc(1, sizeof(*rc));
	int ret;

	rc->fd = -1;
	rc->family = RINGCAP_FAMILY_DEFAULT;

	/* Call first: argument evaluation order is unspecified. */
	errno = 0;
	ret = rcap_bind(rc, "lo", 65535);
	ok(ret == -1 && errno == EINVAL &&
	   strstr(rcap_errmsg(rc), "bad queue"),
	   "bind: queue 65535 refused before the kernel (%s)",
	   rcap_errmsg(rc));
	errno = 0;
	ok(rcap_bind(rc, "lo", -2) == -1 && errno == EINVAL,
	   "bind: queue -2 refused");
	errno = 0;
	ret = rcap_bind(rc, "rcnosuchdev0", -1);
	ok(ret == -1 && errno == ENODEV &&
	   strstr(rcap_errmsg(rc), "rcnosuchdev0"),
	   "bind: unknown device is ENODEV naming it (%s)",
	   rcap_errmsg(rc));
	errno = 0;
	ret = rcap_bind_spec(rc, "eth0@x");
	ok(ret == -1 && errno == EINVAL &&
	   strstr(rcap_errmsg(rc), "eth0@x"),
	   "bind_spec: bad spec is EINVAL naming it (%s)",
	   rcap_errmsg(rc));
	errno = 0;
	ret = rcap_bind_spec(rc, "lo@3");
	ok(ret == -1 && errno == EBADF &&
	   strstr(rcap_errmsg(rc), "lo queue 3"),
	   "bind_spec: reaches bind() with the parsed queue (%s)",
	   rcap_errmsg(rc));
	ok(rcap_map(rc) == -1, "map without a socket fails");
	rcap_close(rc);
	close_null();
}

/* The kernel's refusal, through rcap_bind(), on "lo" (which exists). */
static void bind_refused(struct ringcap *rc, int queue, int err,
			 const char *msg, const char *what)
{
	int ret;

	bind_errno = err;
	errno = 0;
	ret = rcap_bind(rc, "lo", queue);
	ok(ret == -1 && errno == err && !strcmp(rcap_errmsg(rc), msg),
	   "%s: \"%s\"", what, rcap_errmsg(rc));
}

static void zerocopy_cases(void)
{
	struct ringcap *rc = calloc(1, sizeof(*rc));
	int ret;

	rc->fd = -1;
	rc->family = RINGCAP_FAMILY_DEFAULT;
	errno = 0;
	ret = rcap_set_zerocopy(rc, 1);
	ok(ret == -1 && errno == EBADF && !rc->zerocopy &&
	   !strcmp(rcap_errmsg(rc),
		   "setting zero-copy to 1: Bad file descriptor"),
	   "set_zerocopy: reaches setsockopt(), not noted on failure (%s)",
	   rcap_errmsg(rc));

	/* As if RINGCAP_ZEROCOPY had been set on a socket. */
	rc->fd = FAKE_FD;
	rc->zerocopy = 1;
	bind_errno = 0;
	errno = 0;
	ret = rcap_bind(rc, "rcnosuchdev0", -1);
	ok(ret == -1 && errno == EINVAL &&
	   !strcmp(rcap_errmsg(rc),
		   "zero-copy needs one RX queue: name it as rcnosuchdev0@Q"),
	   "zero-copy, all queues: refused before the kernel (%s)",
	   rcap_errmsg(rc));
	errno = 0;
	ret = rcap_bind_spec(rc, "lo@all");
	ok(ret == -1 && errno == EINVAL &&
	   strstr(rcap_errmsg(rc), "name it as lo@Q"),
	   "zero-copy, lo@all: the same (%s)", rcap_errmsg(rc));
	bind_refused(rc, 1, EOPNOTSUPP,
		     "zero-copy needs a driver that offers it (ringcap_e1000e); lo's driver does not",
		     "zero-copy, EOPNOTSUPP");
	bind_refused(rc, -1, EINVAL,
		     "zero-copy needs one RX queue: name it as lo@Q",
		     "zero-copy, all queues");
	bind_refused(rc, 1, EBUSY,
		     "queue 1 of lo is taken by another zero-copy socket, or a copy-mode socket bound to it",
		     "zero-copy, EBUSY");
	bind_refused(rc, 0, ENETDOWN,
		     "lo is down: zero-copy needs the device up (ip link set lo up)",
		     "zero-copy, ENETDOWN");
	bind_refused(rc, 7, ERANGE,
		     "binding to lo queue 7: Numerical result out of range (the device has fewer RX queues)",
		     "zero-copy, ERANGE: as in copy mode");
	bind_refused(rc, 1, EINVAL,
		     "binding to lo queue 1: Invalid argument",
		     "zero-copy, EINVAL with a queue and no cluster: strerror");
	rc->cluster = 1;
	bind_refused(rc, 1, EINVAL,
		     "zero-copy gives queue 1 of lo to one socket: it cannot join a cluster",
		     "zero-copy, EINVAL in a cluster");
	rc->cluster = 0;

	bind_errno = 0;
	ret = rcap_bind(rc, "lo", 1);
	ok(!ret && rc->bound, "zero-copy: a bind the kernel takes (%d)", ret);
	bind_refused(rc, 1, EBUSY,
		     "binding to lo queue 1: Device or resource busy (the socket is already bound)",
		     "zero-copy, EBUSY once bound: already bound");

	/* Copy mode: EBUSY on a queue now also means a zero-copy owner. */
	rc->zerocopy = 0;
	rc->bound = 0;
	bind_refused(rc, 1, EBUSY,
		     "binding to lo queue 1: Device or resource busy (a zero-copy socket has taken that queue)",
		     "copy mode, EBUSY on a queue: a zero-copy socket has it");
	bind_refused(rc, -1, EBUSY,
		     "binding to lo (all queues): Device or resource busy (the socket is already bound)",
		     "copy mode, EBUSY on all queues: already bound");
	bind_refused(rc, 1, EOPNOTSUPP,
		     "binding to lo queue 1: Operation not supported",
		     "copy mode: no zero-copy words for EOPNOTSUPP");

	/* A transmit-only socket (rcap_set_capture(rc, 0)). */
	rc->zerocopy = 1;
	rc->no_capture = 1;
	bind_errno = 0;
	errno = 0;
	ret = rcap_bind(rc, "lo", 1);
	ok(ret == -1 && errno == EINVAL && !rc->bound &&
	   !strcmp(rcap_errmsg(rc),
		   "zero-copy receive needs a capturing socket, but capture is off (rcap_set_capture(rc, 0))"),
	   "zero-copy on a transmit-only socket: refused before the kernel (%s)",
	   rcap_errmsg(rc));
	rc->zerocopy = 0;
	ret = rcap_bind(rc, "lo", -1);
	ok(!ret && rc->bound, "a transmit-only socket binds to all queues");
	rc->fd = -1;
	rcap_close(rc);
}

static void path_names(void)
{
	struct ringcap_path p = { .path = RINGCAP_PATH_ZEROCOPY };

	ok(!strcmp(rcap_path_name(&p), "zerocopy"),
	   "path ZEROCOPY is \"zerocopy\" (%s)", rcap_path_name(&p));
	p.path = RINGCAP_PATH_AWARE;
	ok(!strcmp(rcap_path_name(&p), "aware"), "path AWARE is \"aware\"");
	p.path = RINGCAP_PATH_XDP;
	ok(!strcmp(rcap_path_name(&p), "xdp-redirect"),
	   "path XDP is \"xdp-redirect\"");
	p.path = RINGCAP_PATH_XDP_COPY;
	ok(!strcmp(rcap_path_name(&p), "xdp-copy"),
	   "path XDP_COPY is \"xdp-copy\"");
	p.path = RINGCAP_PATH_HOOK;
	p.why = RINGCAP_XDP_REFUSED;
	p.error = EBUSY;
	ok(!strcmp(rcap_path_name(&p), "hook:busy"),
	   "path HOOK refused with EBUSY is \"hook:busy\"");
	p.flags = RINGCAP_PATH_PASS;
	ok(!strcmp(rcap_path_name(&p), "hook:busy"),
	   "a refusal says why, whoever asks");
	p.why = RINGCAP_XDP_NONE;
	ok(!strcmp(rcap_path_name(&p), "hook:pass"),
	   "path HOOK with PASS is \"hook:pass\"");
	p.path = RINGCAP_PATH_AWARE;
	ok(!strcmp(rcap_path_name(&p), "aware:pass"),
	   "path AWARE with PASS is \"aware:pass\"");
	p.path = RINGCAP_PATH_XDP;
	ok(!strcmp(rcap_path_name(&p), "xdp-redirect:pass"),
	   "path XDP with PASS is \"xdp-redirect:pass\"");
	p.path = RINGCAP_PATH_XDP_COPY;
	ok(!strcmp(rcap_path_name(&p), "xdp-copy:pass"),
	   "path XDP_COPY with PASS is \"xdp-copy:pass\"");
	p.flags = 0;
	p.path = RINGCAP_PATH_UNBOUND;
	ok(!strcmp(rcap_path_name(&p), "-"), "unbound is \"-\"");
	p.path = RINGCAP_PATH_XDP_COPY + 1;
	ok(!strcmp(rcap_path_name(&p), "-"),
	   "an unknown path is \"-\"");
}

int main(void)
{
	spec_cases();
	cluster_cases();
	bind_cases();
	zerocopy_cases();
	path_names();
	return tap_done();
}
