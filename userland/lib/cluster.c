// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Clusters: the "ID[:POLICY]" spec every tool and libpcap-ring accept, and
 * joining one before bind.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include "internal.h"

/*
 * Each policy, with RINGCAP_CLUSTER_SPAN "+span" after its name, and the
 * flow policy with RINGCAP_CLUSTER_INNER "+inner" after that.
 */
static const struct {
	uint32_t policy;
	const char *name;
} rc_policies[] = {
	{ RINGCAP_CLUSTER_FLOW, "flow" },
	{ RINGCAP_CLUSTER_RR, "rr" },
	{ RINGCAP_CLUSTER_QUEUE, "queue" },
	{ RINGCAP_CLUSTER_FLOW | RINGCAP_CLUSTER_SPAN, "flow+span" },
	{ RINGCAP_CLUSTER_RR | RINGCAP_CLUSTER_SPAN, "rr+span" },
	{ RINGCAP_CLUSTER_QUEUE | RINGCAP_CLUSTER_SPAN, "queue+span" },
	{ RINGCAP_CLUSTER_FLOW | RINGCAP_CLUSTER_INNER, "flow+inner" },
	{ RINGCAP_CLUSTER_FLOW | RINGCAP_CLUSTER_SPAN | RINGCAP_CLUSTER_INNER,
	  "flow+span+inner" },
};

#define RC_NR_POLICIES	(sizeof(rc_policies) / sizeof(rc_policies[0]))

const char *rcap_cluster_policy_name(uint32_t policy)
{
	unsigned int i;

	for (i = 0; i < RC_NR_POLICIES; i++)
		if (rc_policies[i].policy == policy)
			return rc_policies[i].name;
	return NULL;
}

int rcap_parse_cluster(const char *spec, uint32_t *id, uint32_t *policy)
{
	unsigned long long val = 0;
	const char *s = spec;
	unsigned int i;
	uint32_t p;

	if (!spec || !id || !policy || !isdigit((unsigned char)*s))
		goto inval;
	for (; isdigit((unsigned char)*s); s++) {
		val = val * 10 + (unsigned int)(*s - '0');
		if (val > UINT32_MAX)
			goto inval;
	}
	if (!val)
		goto inval;
	if (!*s) {
		p = RINGCAP_CLUSTER_FLOW;
	} else {
		if (*s++ != ':')
			goto inval;
		for (i = 0; i < RC_NR_POLICIES; i++)
			if (!strcmp(s, rc_policies[i].name))
				break;
		if (i == RC_NR_POLICIES)
			goto inval;
		p = rc_policies[i].policy;
	}
	*id = (uint32_t)val;
	*policy = p;
	return 0;
inval:
	errno = EINVAL;
	return -1;
}

int rcap_set_cluster(struct ringcap *rc, uint32_t id, uint32_t policy)
{
	struct ringcap_cluster cl = { .id = id, .policy = policy };
	const char *why = "";

	if (!id || !rcap_cluster_policy_name(policy))
		return rc_fail(rc, EINVAL,
			       "bad cluster %u policy %u (id 1..%u; flow, rr or queue, each +span or not)",
			       id, policy, UINT32_MAX);
	if (!setsockopt(rc->fd, SOL_RINGCAP, RINGCAP_CLUSTER, &cl,
			sizeof(cl))) {
		/* A zero-copy bind refused with EINVAL may be this (bind.c). */
		rc->cluster = 1;
		return 0;
	}
	if (errno == EBUSY)
		why = " (the socket is already bound: join before bind)";
	else if (errno == ENOPROTOOPT || errno == EINVAL)
		why = " (the loaded module does not know clusters or this policy)";
	return rc_fail(rc, errno, "joining cluster %u:%s: %s%s", id,
		       rcap_cluster_policy_name(policy), strerror(errno), why);
}

/* The names before libringcap 1.2 (libringcap.h). */
RC_OLD_NAME(cluster_policy_name);
RC_OLD_NAME(parse_cluster);
RC_OLD_NAME(set_cluster);
