// SPDX-License-Identifier: GPL-2.0
/*
 * rcfuzz: cluster joins, one session per call. Two to six sockets set a
 * cluster id -- fresh ones the session owns, 0 (no cluster), or garbage
 * such as 0xffffffff -- with valid policies, the cluster's own or another
 * (a conflict), or garbage ones, and bind in turn to a device of the
 * session's own or lo, to all queues or to queue 0 (another conflict),
 * while members already bound close at random.
 *
 * The model is exact, because the session owns its ids (no other process
 * uses them: sock.c's ids are 0-3, each worker but 0 has a netns of its
 * own, and worker 0 is alone in its): setsockopt is EINVAL for a policy
 * past RINGCAP_CLUSTER_QUEUE or a wrong length, and EBUSY once bound;
 * getsockopt reads back what was set; bind is EEXIST exactly when bound
 * members of the id have another policy or queue, and the cluster is gone
 * once its last member has closed.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include "fuzz.h"
#include "rc_util.h"

#define CL_MAX	6

struct cl_member {
	int fd;
	struct ringcap_cluster cl;	/* as the socket holds it */
	unsigned int queue;
	bool bound;
};

/* Bound members of id other than m, and the policy and queue of one. */
static int live_members(const struct cl_member *m, int n, uint32_t id,
			const struct cl_member **any)
{
	int i, live = 0;

	*any = NULL;
	for (i = 0; i < n; i++)
		if (m[i].fd >= 0 && m[i].bound && m[i].cl.id == id) {
			live++;
			*any = &m[i];
		}
	return live;
}

static void cl_set(struct fz_worker *w, struct cl_member *m,
		   struct ringcap_cluster want)
{
	int len = sizeof(want), err;

	if (fz_chance(w, 5))
		len = fz_chance(w, 50) ? 4 : 16;
	err = setsockopt(m->fd, SOL_RINGCAP, RINGCAP_CLUSTER, &want, len) ?
	      errno : 0;
	fz_count_opt(true, RINGCAP_CLUSTER);
	if (len != sizeof(want) || want.policy > RINGCAP_CLUSTER_QUEUE)
		FZ_EXPECT(OP_CLUSTER, err, ("CLUSTER id %u policy %u len %d",
					    want.id, want.policy, len), EINVAL);
	else if (m->bound)
		FZ_EXPECT(OP_CLUSTER, err, ("CLUSTER once bound"), EBUSY);
	else
		FZ_EXPECT(OP_CLUSTER, err, ("CLUSTER id %u policy %u", want.id,
					    want.policy), 0);
	if (!err)
		m->cl = want;
}

static void cl_check(struct cl_member *m)
{
	struct ringcap_cluster got;
	socklen_t len = sizeof(got);
	int err;

	err = getsockopt(m->fd, SOL_RINGCAP, RINGCAP_CLUSTER, &got, &len) ?
	      errno : 0;
	fz_count_opt(false, RINGCAP_CLUSTER);
	if (FZ_EXPECT(OP_CLUSTER, err, ("getsockopt(CLUSTER)"), 0) && !err)
		fz_check(got.id == m->cl.id && got.policy == m->cl.policy,
			 "CLUSTER reads id %u policy %u, set to %u %u", got.id,
			 got.policy, m->cl.id, m->cl.policy);
}

void fz_op_cluster(struct fz_worker *w)
{
	uint32_t base_id = 0x40000000u | (uint32_t)fz_rand(&w->rng), bad;
	uint32_t base_pol = fz_rnd(w, 3);
	const struct cl_member *other;
	struct cl_member m[CL_MAX];
	struct ringcap_cluster want;
	char a[IFNAMSIZ] = "", b[IFNAMSIZ];
	int n = 2 + fz_rnd(w, CL_MAX - 1), i, j, idx, err, live;

	idx = fz_chance(w, 70) ? fz_session_veth(w, a, b) : 1;
	if (idx <= 0) {
		idx = 1;
		a[0] = '\0';
	}
	fz_count(OP_CLUSTER, 0);
	for (i = 0; i < n; i++) {
		m[i].fd = socket(fz_family, SOCK_RAW | SOCK_CLOEXEC,
				 htons(ETH_P_ALL));
		FZ_EXPECT(OP_CLUSTER, m[i].fd < 0 ? errno : 0, ("socket"), 0,
			  ENOMEM, ENOBUFS);
		memset(&m[i].cl, 0, sizeof(m[i].cl));
		m[i].bound = false;
		m[i].queue = fz_chance(w, 85) ? RINGCAP_QUEUE_ANY : 0;
		if (m[i].fd < 0)
			continue;
		rc_setopt(m[i].fd, RINGCAP_RING_SIZE, 4096);
		want.id = base_id;
		want.policy = base_pol;
		switch (fz_rnd(w, 10)) {
		case 0:	/* a conflicting policy */
			want.policy = (base_pol + 1 + fz_rnd(w, 2)) % 3;
			break;
		case 1:	/* a garbage policy */
			bad = fz_chance(w, 50) ? 3 + fz_rnd(w, 5) :
						 (uint32_t)fz_rand(&w->rng);
			want.policy = bad < 3 ? 3 : bad;
			break;
		case 2:	/* no cluster, or a garbage id of our own */
			want.id = fz_chance(w, 50) ? 0 : 0xffffffffu - w->id;
			break;
		}
		cl_set(w, &m[i], want);
		if (fz_chance(w, 10))	/* changed its mind */
			cl_set(w, &m[i], (struct ringcap_cluster){ base_id, base_pol });
		cl_check(&m[i]);
	}
	for (i = 0; i < n; i++) {
		if (m[i].fd < 0)
			continue;
		live = live_members(m, n, m[i].cl.id, &other);
		err = -rc_bind(m[i].fd, idx, m[i].queue);
		if (m[i].cl.id && live &&
		    (other->cl.policy != m[i].cl.policy ||
		     other->queue != m[i].queue))
			FZ_EXPECT(OP_CLUSTER, err,
				  ("bind into cluster %u: policy %u queue %u, its members' %u %u",
				   m[i].cl.id, m[i].cl.policy, m[i].queue,
				   other->cl.policy, other->queue), EEXIST);
		else
			FZ_EXPECT(OP_CLUSTER, err,
				  ("bind into cluster %u (%d members): policy %u queue %u",
				   m[i].cl.id, live, m[i].cl.policy, m[i].queue),
				  0, ENOMEM, ENOBUFS);
		m[i].bound = !err;
		if (!err && fz_chance(w, 20))
			cl_set(w, &m[i], (struct ringcap_cluster){ base_id, 0 });
		/* members leave at any time */
		if (fz_chance(w, 25)) {
			j = fz_rnd(w, i + 1);
			if (m[j].fd >= 0) {
				close(m[j].fd);
				m[j].fd = -1;
			}
		}
	}
	for (i = 0; i < n; i++)
		if (m[i].fd >= 0)
			close(m[i].fd);
	if (a[0])
		fz_nl_del(a);
}
