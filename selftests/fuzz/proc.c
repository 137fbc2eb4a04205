// SPDX-License-Identifier: GPL-2.0
/*
 * rcfuzz: process and namespace changes. fork with the sockets and their
 * mappings (a reader child that only looks, or a vandal that does
 * anything, then exits while the parent goes on), unshare and setns of
 * the network namespace with sockets open in the old one, a child that
 * drops CAP_NET_RAW (socket() then must fail with EPERM, the sockets it
 * inherited keep working), and a child that becomes nobody in a user and
 * network namespace of its own, where it holds CAP_NET_RAW and may make
 * rings (ENOBUFS: the limit on what one user may pin).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include "fuzz.h"
#include "rc_util.h"

#define MAX_CHILDREN	2

static pid_t vandal_pid[MAX_CHILDREN];

static void child_status(pid_t pid, int st, const char *what)
{
	if (WIFSIGNALED(st))
		fz_fail("%s %d died of signal %d", what, pid, WTERMSIG(st));
	else if (WIFEXITED(st) && WEXITSTATUS(st))
		fz_fail("%s %d exited with status %d", what, pid,
			WEXITSTATUS(st));
}

void fz_reap(struct fz_worker *w, bool block)
{
	pid_t pid;
	int st, i, j;

	while (w->children > 0) {
		pid = waitpid(-1, &st, block ? 0 : WNOHANG);
		if (pid <= 0)
			return;
		child_status(pid, st, "fork child");
		w->children--;
		for (i = 0; i < MAX_CHILDREN; i++) {
			if (vandal_pid[i] != pid)
				continue;
			vandal_pid[i] = 0;
			if (--w->vandals)
				continue;
			/* The producer may be scribbled until the kernel's
			 * next commit; STATS received moving shows that.
			 */
			for (j = 0; j < w->nsocks; j++) {
				struct fz_sock *s = &w->socks[j];
				struct ringcap_stats st;

				if (s->vandal && !rc_stats(s->fd, &st))
					s->prod_stale_recv = st.received;
				s->vandal = false;
			}
		}
	}
}

/* What a child may do to the sockets in mask it shares with us. */
static void mark_shared(struct fz_worker *w, uint32_t mask)
{
	int i;

	for (i = 0; i < w->nsocks; i++) {
		struct fz_sock *s = &w->socks[i];

		if (!(mask & (1u << i)))
			continue;
		s->shared = true;
		s->vandal = true;
		s->walk_ok = false;
		s->cons_ever_bad = true;
		s->hdr_cnt_ok = false;
		s->desc_dirty = true;
		s->prod_stale = true;
		s->prod_stale_recv = ~0ull;
	}
}

static void reader_child(struct fz_worker *w)
{
	int n = 5 + fz_rnd(w, 25), i;
	struct fz_sock *s;

	for (i = 0; i < n && !fz->stop; i++) {
		s = fz_pick_sock(w);
		switch (fz_rnd(w, 6)) {
		case 0: case 1:
			if (s)
				fz_sock_check_stats(w, s);
			break;
		case 2:
			fz_op_poll(w);
			break;
		case 3:
			if (s)
				close(s->fd);
			if (s)
				fz_sock_forget(w, s - w->socks);
			break;
		case 4:
			if (s)
				fz_unmap_all(w, s, false);
			break;
		default:
			rc_sleep_us(1000);
		}
		fz_count(OP_CHILD_OP, 0);
	}
}

/* A vandal child keeps only the sockets in mask, so that the parent's
 * checks stay on for the others.
 */
static void keep_only(struct fz_worker *w, uint32_t mask)
{
	int i;

	for (i = w->nsocks - 1; i >= 0; i--) {
		if (mask & (1u << i))
			continue;
		fz_unmap_all(w, &w->socks[i], false);
		close(w->socks[i].fd);
		fz_sock_forget(w, i);
	}
}

void fz_op_fork(struct fz_worker *w)
{
	bool vandal = fz_chance(w, 35);
	uint32_t mask = 0;
	pid_t pid;
	int i;

	if (w->children >= MAX_CHILDREN)
		return;
	for (i = 0; i < w->nsocks; i++)
		if (fz_chance(w, 30))
			mask |= 1u << i;
	pid = fork();
	if (pid < 0) {
		FZ_EXPECT(OP_FORK, errno, ("fork"), ENOMEM, EAGAIN);
		return;
	}
	if (pid == 0) {
		w->child = true;
		w->run = 100 + w->id;
		w->children = 0;
		w->vandals = 0;
		w->rng = fz_seed_mix(w->rng, getpid(), 7);
		if (vandal)
			keep_only(w, mask);
		mark_shared(w, ~0u);
		if (vandal)
			fz_worker_ops(w, ~0ull, 5 + fz_rnd(w, 40));
		else
			reader_child(w);
		_exit(0);
	}
	fz_count(OP_FORK, 0);
	w->children++;
	if (!vandal)
		return;
	mark_shared(w, mask);
	w->vandals++;
	for (i = 0; i < MAX_CHILDREN; i++) {
		if (!vandal_pid[i]) {
			vandal_pid[i] = pid;
			break;
		}
	}
}

/* A child: run fn, then wait for it here. */
static void in_child(struct fz_worker *w, void (*fn)(struct fz_worker *),
		     const char *what)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return;
	if (pid == 0) {
		w->child = true;
		w->run = 100 + w->id;
		mark_shared(w, ~0u);
		fn(w);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	child_status(pid, st, what);
}

static void capdrop_child(struct fz_worker *w)
{
	int err, fd;

	err = -rc_drop_net_raw();
	FZ_EXPECT(OP_CAPDROP, err, ("dropping CAP_NET_RAW"), 0);
	if (err)
		return;
	fd = socket(fz_family, SOCK_RAW, htons(ETH_P_ALL));
	FZ_EXPECT(OP_CAPDROP, fd < 0 ? errno : 0,
		  ("socket() without CAP_NET_RAW"), EPERM);
	/* What it had keeps working: the check is at creation only. */
	if (w->nsocks)
		fz_sock_check_stats(w, fz_pick_sock(w));
	if (w->nsocks)
		fz_op_poll(w);
}

void fz_op_capdrop(struct fz_worker *w)
{
	in_child(w, capdrop_child, "CAP_NET_RAW child");
}

static void userns_child(struct fz_worker *w)
{
	struct ringcap_ring_info info;
	socklen_t len = sizeof(info);
	int fds[4], n = 1 + fz_rnd(w, 4), i, err;
	uint32_t size;
	void *p;

	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534)) {
		__atomic_add_fetch(&fz->skipped[OP_USERNS], 1, __ATOMIC_RELAXED);
		return;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		/* no unprivileged user namespaces on this kernel */
		__atomic_add_fetch(&fz->skipped[OP_USERNS], 1, __ATOMIC_RELAXED);
		return;
	}
	w->nsocks = 0;	/* the inherited ones are not ours to model */
	for (i = 0; i < n; i++) {
		fds[i] = socket(fz_family, SOCK_RAW, htons(ETH_P_ALL));
		FZ_EXPECT(OP_USERNS, fds[i] < 0 ? errno : 0,
			  ("socket() as nobody in its own user+net namespace"),
			  0, ENOMEM, ENOBUFS);
		if (fds[i] < 0)
			break;
		size = FZ_PAGE << fz_rnd(w, 11);
		err = -rc_setopt(fds[i], RINGCAP_RING_SIZE, size);
		FZ_EXPECT(OP_USERNS, err, ("RING_SIZE %u as nobody", size), 0,
			  EINVAL);
		err = getsockopt(fds[i], SOL_RINGCAP, RINGCAP_RING_INFO, &info,
				 &len) ? errno : 0;
		FZ_EXPECT(OP_USERNS, err, ("RING_INFO (a ring) as nobody"), 0,
			  ENOBUFS, ENOMEM);
		err = -rc_bind(fds[i], 1, RINGCAP_QUEUE_ANY);
		FZ_EXPECT(OP_USERNS, err, ("bind(lo) as nobody"), 0, ENOBUFS,
			  ENOMEM);
		if (err)
			continue;
		p = mmap(NULL, info.mmap_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fds[i], 0);
		FZ_EXPECT(OP_USERNS, p == MAP_FAILED ? errno : 0,
			  ("mmap as nobody"), 0, ENOBUFS, ENOMEM, EAGAIN);
	}
}

void fz_op_userns(struct fz_worker *w)
{
	in_child(w, userns_child, "user namespace child");
}

void fz_op_unshare(struct fz_worker *w)
{
	int err;

	if (w->ngens >= FZ_MAX_GENS || w->unshares >= 3)
		return;
	err = unshare(CLONE_NEWNET) ? errno : 0;
	FZ_EXPECT(OP_UNSHARE, err, ("unshare(CLONE_NEWNET)"), 0, ENOMEM,
		  ENOSPC);
	if (err)
		return;
	w->unshares++;
	w->gen = w->ngens++;
	w->netns_fd[w->gen] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fz_dev_setup(w))
		fz_log("worker %d: devices in netns %d incomplete", w->id,
		       w->gen);
}

void fz_op_setns(struct fz_worker *w)
{
	int g = fz_rnd(w, w->ngens), err;

	if (g == w->gen || w->netns_fd[g] < 0)
		return;
	err = setns(w->netns_fd[g], CLONE_NEWNET) ? errno : 0;
	FZ_EXPECT(OP_SETNS, err, ("setns to netns %d", g), 0);
	if (!err)
		w->gen = g;
}

/*
 * Into netns g for a session, whichever netns setns left the worker in
 * (worker 0's sessions on the 82574Ls need the initial one, its gen 0);
 * returns the gen to come back to with another call.
 */
int fz_session_netns(struct fz_worker *w, int g)
{
	int was = w->gen;

	if (g == w->gen || g >= w->ngens || w->netns_fd[g] < 0)
		return was;
	if (setns(w->netns_fd[g], CLONE_NEWNET)) {
		fz_fail("worker %d: setns to netns %d: %m", w->id, g);
		return was;
	}
	w->gen = g;
	return was;
}
