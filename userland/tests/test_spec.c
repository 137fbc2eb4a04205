// SPDX-License-Identifier: GPL-2.0
/*
 * ringcap_parse_spec() and the argument checks of ringcap_bind(): what
 * "dev" and "dev@queue" accept and refuse, and the errno and message a
 * refusal leaves; the same for cluster specs ("ID[:POLICY]"). Runs on any
 * host; no module is needed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include "internal.h"
#include "tap.h"

static void good(const char *spec, const char *name, int queue)
{
	char ifname[IFNAMSIZ] = "";
	int q = -2, ret;

	ret = ringcap_parse_spec(spec, ifname, sizeof(ifname), &q);
	ok(!ret && !strcmp(ifname, name) && q == queue,
	   "\"%s\" -> \"%s\" queue %d (got ret %d \"%s\" %d)", spec, name,
	   queue, ret, ifname, q);
}

static void bad(const char *spec)
{
	char ifname[IFNAMSIZ] = "unchanged";
	int q = 7, ret;

	errno = 0;
	ret = ringcap_parse_spec(spec, ifname, sizeof(ifname), &q);
	ok(ret == -1 && errno == EINVAL && q == 7,
	   "\"%s\" refused with EINVAL, queue untouched", spec ? spec : "NULL");
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

	ok(!ringcap_parse_spec("eth", small, sizeof(small), &q),
	   "a name that fits the caller's buffer exactly");
	errno = 0;
	ok(ringcap_parse_spec("eth0", small, 4, &q) == -1 && errno == EINVAL,
	   "a name longer than the caller's buffer: EINVAL");
	ok(ringcap_parse_spec("eth0", small, sizeof(small), NULL) == -1,
	   "NULL queue pointer refused");
}

static void cluster_good(const char *spec, uint32_t id, uint32_t policy)
{
	uint32_t i = 0, p = 99;
	int ret;

	ret = ringcap_parse_cluster(spec, &i, &p);
	ok(!ret && i == id && p == policy,
	   "cluster \"%s\" -> %u:%s (got ret %d %u:%u)", spec, id,
	   ringcap_cluster_policy_name(policy), ret, i, p);
}

static void cluster_bad(const char *spec)
{
	uint32_t i = 7, p = 7;

	errno = 0;
	ok(ringcap_parse_cluster(spec, &i, &p) == -1 && errno == EINVAL &&
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

	ok(!ringcap_cluster_policy_name(3), "no name for policy 3");
	rc->fd = -1;
	errno = 0;
	ret = ringcap_set_cluster(rc, 0, RINGCAP_CLUSTER_FLOW);
	ok(ret == -1 && errno == EINVAL && strstr(ringcap_errmsg(rc), "bad cluster"),
	   "set_cluster: id 0 refused before the kernel (%s)",
	   ringcap_errmsg(rc));
	errno = 0;
	ret = ringcap_set_cluster(rc, 5, 3);
	ok(ret == -1 && errno == EINVAL, "set_cluster: policy 3 refused");
	errno = 0;
	ret = ringcap_set_cluster(rc, 5, RINGCAP_CLUSTER_RR);
	ok(ret == -1 && errno == EBADF &&
	   strstr(ringcap_errmsg(rc), "joining cluster 5:rr"),
	   "set_cluster: reaches setsockopt() (%s)", ringcap_errmsg(rc));
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
	ret = ringcap_bind(rc, "lo", 65535);
	ok(ret == -1 && errno == EINVAL &&
	   strstr(ringcap_errmsg(rc), "bad queue"),
	   "bind: queue 65535 refused before the kernel (%s)",
	   ringcap_errmsg(rc));
	errno = 0;
	ok(ringcap_bind(rc, "lo", -2) == -1 && errno == EINVAL,
	   "bind: queue -2 refused");
	errno = 0;
	ret = ringcap_bind(rc, "rcnosuchdev0", -1);
	ok(ret == -1 && errno == ENODEV &&
	   strstr(ringcap_errmsg(rc), "rcnosuchdev0"),
	   "bind: unknown device is ENODEV naming it (%s)",
	   ringcap_errmsg(rc));
	errno = 0;
	ret = ringcap_bind_spec(rc, "eth0@x");
	ok(ret == -1 && errno == EINVAL &&
	   strstr(ringcap_errmsg(rc), "eth0@x"),
	   "bind_spec: bad spec is EINVAL naming it (%s)",
	   ringcap_errmsg(rc));
	errno = 0;
	ret = ringcap_bind_spec(rc, "lo@3");
	ok(ret == -1 && errno == EBADF &&
	   strstr(ringcap_errmsg(rc), "lo queue 3"),
	   "bind_spec: reaches bind() with the parsed queue (%s)",
	   ringcap_errmsg(rc));
	ok(ringcap_map(rc) == -1, "map without a socket fails");
	ringcap_close(rc);
	ringcap_close(NULL);
	ok(1, "ringcap_close(NULL) is harmless");
}

int main(void)
{
	spec_cases();
	cluster_cases();
	bind_cases();
	return tap_done();
}
