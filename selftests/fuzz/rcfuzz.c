// SPDX-License-Identifier: GPL-2.0
/*
 * rcfuzz: several processes use ringcap's whole user API at random, under
 * traffic, for a given time, and check cheap invariants as they go.
 *
 *   rcfuzz [--seed N] [--seconds N] [--workers N] [--stats FILE] [-v]
 *
 * Processes (all children of this one, which is their subreaper):
 *   - the supervisor (this process): module parameters, rmmod attempts of
 *     ringcap (which must be refused: it holds a socket itself) and of
 *     ringcap_sim (which takes every sim device away; then reloaded from
 *     $RC_SIM_KO);
 *   - one traffic process: frames into every sim device (debugfs, any
 *     netns) and out of the 82574L pair's first NIC, if there is one;
 *   - N workers (default 3), each looping random operations: sockets and
 *     their options, bind, mmap/mremap/munmap, writes into the mapped
 *     header and data, reading the ring, poll and epoll, classic BPF
 *     filters, fork with the mapping, unshare/setns of the network
 *     namespace, dropping CAP_NET_RAW, a user namespace, veth and sim
 *     devices made and deleted under bound sockets, link flaps, traffic;
 *     and sessions on the newer paths, each with sockets and a veth pair
 *     of its own: the transmit ring and RINGCAP_CAPTURE (tx.c), zero-copy
 *     (zc.c), cluster joins (cluster.c) and XDP links (xdp.c).
 *     Worker 0 stays in the initial network namespace (where the guest's
 *     NICs are); the others start in one of their own.
 *
 * Checked as it goes: every call's errno is one docs/CONTRACTS.md, the uapi
 * header or the module (sockopt.c, bind.c, sock.c, tx.c, zerocopy.c,
 * xdp.c) documents; the producer
 * stays 8-aligned, monotonic and within data_size of the consumer; every
 * record below it is well formed and test frames are byte exact; STATS and
 * the header's counters never go back; RING_INFO never changes; poll
 * reports EPOLLERR exactly where documented; rmmod ringcap is refused.
 *
 * Output: TAP (3 results) and one "# ops:" line; exit 0 only when clean.
 * --seed reproduces the operations each process chooses (not their
 * interleaving). --stats FILE gets key=value totals for selftests/fuzz/fuzz.sh.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fuzz.h"
#include "rc_util.h"

struct fz_shared *fz;
int fz_family;
const char *fz_sim_ko;
int fz_verbose;

static const char *const op_names[OP_MAX] = {
	[OP_SOCKET] = "socket", [OP_CLOSE] = "close",
	[OP_SETSOCKOPT] = "setsockopt", [OP_GETSOCKOPT] = "getsockopt",
	[OP_SOLSOCKET] = "sol_socket", [OP_BIND] = "bind",
	[OP_MMAP] = "mmap", [OP_MUNMAP] = "munmap", [OP_MREMAP] = "mremap",
	[OP_HDR_WRITE] = "hdr_write", [OP_DATA_WRITE] = "data_write",
	[OP_READ] = "read", [OP_POLL] = "poll", [OP_EPOLL] = "epoll",
	[OP_FILTER_ATTACH] = "filter_attach",
	[OP_FILTER_DETACH] = "filter_detach",
	[OP_FILTER_OTHER] = "filter_other", [OP_FORK] = "fork",
	[OP_CHILD_OP] = "child_op", [OP_UNSHARE] = "unshare",
	[OP_SETNS] = "setns", [OP_CAPDROP] = "capdrop",
	[OP_USERNS] = "userns", [OP_DEV_CREATE] = "dev_create",
	[OP_DEV_DELETE] = "dev_delete", [OP_LINK_FLAP] = "link_flap",
	[OP_INJECT] = "inject", [OP_SIM_KNOB] = "sim_knob", [OP_SEND] = "send", [OP_PARAM] = "param",
	[OP_RMMOD] = "rmmod", [OP_SIM_RELOAD] = "sim_reload",
	[OP_PROC] = "proc",
	[OP_TRAFFIC] = "traffic",
	[OP_TX] = "tx", [OP_TX_MMAP] = "tx_mmap", [OP_TX_KICK] = "tx_kick",
	[OP_DEV_FLAP] = "dev_flap", [OP_ZEROCOPY] = "zerocopy",
	[OP_ZC_MMAP] = "zc_mmap", [OP_ZC_READ] = "zc_read",
	[OP_ZC_RACE] = "zc_race", [OP_CLUSTER] = "cluster",
	[OP_XDP_LINK] = "xdp_link",
};

const char *fz_op_name(enum fz_op op)
{
	return op < OP_MAX ? op_names[op] : "?";
}

uint64_t fz_seed_mix(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t s = seed ^ (a * 0x9e3779b97f4a7c15ULL) ^
		     (b * 0xbf58476d1ce4e5b9ULL);

	return s ? s : 1;
}

/* One line to stdout in one write, so processes do not interleave. */
static void emit(const char *prefix, const char *fmt, va_list ap)
{
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "%s[%d] ", prefix, getpid());
	n += vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDOUT_FILENO, line, n) < 0)
		return;
}

static void record_fail(const char *fmt, va_list ap)
{
	va_list ap2;

	va_copy(ap2, ap);
	if (!__atomic_exchange_n(&fz->first_fail_set, 1, __ATOMIC_SEQ_CST))
		vsnprintf(fz->first_fail, sizeof(fz->first_fail), fmt, ap2);
	va_end(ap2);
	emit("# FAIL ", fmt, ap);
}

void fz_fail(const char *fmt, ...)
{
	va_list ap;

	__atomic_add_fetch(&fz->fails, 1, __ATOMIC_RELAXED);
	va_start(ap, fmt);
	record_fail(fmt, ap);
	va_end(ap);
}

void fz_log(const char *fmt, ...)
{
	va_list ap;

	if (!fz_verbose)
		return;
	va_start(ap, fmt);
	emit("# ", fmt, ap);
	va_end(ap);
}

bool fz_check(bool cond, const char *fmt, ...)
{
	va_list ap;

	__atomic_add_fetch(&fz->checks, 1, __ATOMIC_RELAXED);
	if (cond)
		return true;
	__atomic_add_fetch(&fz->fails, 1, __ATOMIC_RELAXED);
	va_start(ap, fmt);
	record_fail(fmt, ap);
	va_end(ap);
	return false;
}

void fz_count(enum fz_op op, int err)
{
	__atomic_add_fetch(&fz->ops[op], 1, __ATOMIC_RELAXED);
	if (err)
		__atomic_add_fetch(&fz->errs[op], 1, __ATOMIC_RELAXED);
}

void fz_count_opt(bool set, int name)
{
	if (name > 0 && name < FZ_OPT_MAX)
		__atomic_add_fetch(set ? &fz->opt_set[name] : &fz->opt_get[name],
				   1, __ATOMIC_RELAXED);
}

static const char *errname(int e)
{
	static char buf[16];

	if (!e)
		return "success";
	if (e == -2)
		return "a short result";
	snprintf(buf, sizeof(buf), "%d", e);
	return strerrorname_np(e) ? strerrorname_np(e) : buf;
}

bool fz_expect_set(enum fz_op op, int err, const int *set, const char *fmt,
		   ...)
{
	char want[160] = "", desc[256];
	size_t n = 0;
	va_list ap;
	int i;

	fz_count(op, err);
	__atomic_add_fetch(&fz->checks, 1, __ATOMIC_RELAXED);
	for (i = 0; set[i] != -1; i++)
		if (set[i] == err)
			return true;
	for (i = 0; set[i] != -1 && n < sizeof(want) - 20; i++)
		n += snprintf(want + n, sizeof(want) - n, "%s%s", i ? " " : "",
			      errname(set[i]));
	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	__atomic_add_fetch(&fz->bad_errno, 1, __ATOMIC_RELAXED);
	fz_fail("%s: %s gave %s, documented: %s", fz_op_name(op), desc,
		errname(err), want);
	return false;
}

static uint64_t now_ns(void)
{
	return rc_now_ns(CLOCK_MONOTONIC);
}

/* Weighted choice of the next operation of a worker. */
struct fz_choice {
	void (*fn)(struct fz_worker *w);
	unsigned int weight;
	bool child_ok;		/* also done by fork children */
};

static const struct fz_choice choices[] = {
	{ fz_op_socket, 6, true },
	{ fz_op_close, 3, true },
	{ fz_op_setsockopt, 12, true },
	{ fz_op_getsockopt, 10, true },
	{ fz_op_solsocket, 3, true },
	{ fz_op_bind, 8, true },
	{ fz_op_mmap, 6, true },
	{ fz_op_munmap, 3, true },
	{ fz_op_mremap, 3, true },
	{ fz_op_hdr_write, 4, true },
	{ fz_op_data_write, 2, true },
	{ fz_op_read, 14, true },
	{ fz_op_poll, 6, true },
	{ fz_op_epoll, 3, true },
	{ fz_op_filter_attach, 5, true },
	{ fz_op_filter_detach, 2, true },
	{ fz_op_filter_other, 2, true },
	{ fz_op_fork, 1, false },
	{ fz_op_unshare, 1, false },
	{ fz_op_setns, 1, false },
	{ fz_op_capdrop, 1, false },
	{ fz_op_userns, 1, false },
	{ fz_op_dev_create, 2, false },
	{ fz_op_dev_delete, 1, false },
	{ fz_op_link_flap, 2, false },
	{ fz_op_inject, 8, true },
	{ fz_op_sim_knob, 3, false },
	{ fz_op_send, 6, true },
	{ fz_op_tx, 3, false },
	{ fz_op_zerocopy, 3, false },
	{ fz_op_cluster, 2, false },
	{ fz_op_xdp_link, 1, false },
};

void fz_worker_ops(struct fz_worker *w, uint64_t deadline_ns, long max_ops)
{
	unsigned int total = 0, r, i;
	long n;

	for (i = 0; i < sizeof(choices) / sizeof(choices[0]); i++)
		if (!w->child || choices[i].child_ok)
			total += choices[i].weight;
	for (n = 0; max_ops < 0 || n < max_ops; n++) {
		if (fz->stop || now_ns() >= deadline_ns)
			break;
		r = fz_rnd(w, total);
		for (i = 0;; i++) {
			if (w->child && !choices[i].child_ok)
				continue;
			if (r < choices[i].weight)
				break;
			r -= choices[i].weight;
		}
		choices[i].fn(w);
		if (w->child)
			fz_count(OP_CHILD_OP, 0);
		else if (w->children)
			fz_reap(w, false);
	}
}

static void worker_main(int id, uint64_t deadline_ns)
{
	static struct fz_worker w;
	int i;

	memset(&w, 0, sizeof(w));
	w.id = id;
	w.rng = fz_seed_mix(fz->seed, id + 1, 0);
	w.init_netns = id == 0;
	w.run = id;
	w.epfd = -1;
	for (i = 0; i < FZ_MAX_DEVS; i++)
		w.devs[i].pkt_fd = -1;
	for (i = 0; i < FZ_MAX_GENS; i++)
		w.netns_fd[i] = w.ctl_fd[i] = -1;
	/* Worker 0 stays where the guest's NICs are. */
	if (id && unshare(CLONE_NEWNET)) {
		fz_fail("worker %d: unshare(CLONE_NEWNET): %m", id);
		_exit(1);
	}
	if (fz_dev_setup(&w)) {
		fz_fail("worker %d: cannot set up its devices", id);
		_exit(1);
	}
	fz_worker_ops(&w, deadline_ns, -1);
	fz_reap(&w, true);
	fz_dev_cleanup(&w);
	_exit(0);
}

static pid_t spawn(void (*fn)(int, uint64_t), int arg, uint64_t deadline)
{
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		fn(arg, deadline);
		_exit(0);
	}
	return pid;
}

static void traffic_main(int arg, uint64_t deadline_ns)
{
	static struct fz_worker w;

	memset(&w, 0, sizeof(w));
	w.id = 100;
	w.rng = fz_seed_mix(fz->seed, 100, 0);
	fz_traffic(&w, deadline_ns);
}

static void print_summary(double secs, int workers)
{
	uint64_t total = 0;
	char line[2048];
	size_t n = 0;
	int i, c;

	for (i = 0; i < OP_MAX; i++)
		total += fz->ops[i];
	n += snprintf(line + n, sizeof(line) - n, "# ops:");
	for (i = 0; i < OP_MAX && n < sizeof(line) - 40; i++)
		n += snprintf(line + n, sizeof(line) - n, " %s=%llu/%llu",
			      op_names[i], (unsigned long long)fz->ops[i],
			      (unsigned long long)fz->errs[i]);
	printf("%s\n# (count/of which failed as documented)\n", line);
	for (i = 0; i < OP_MAX; i++)
		if (fz->skipped[i])
			printf("# skipped %s: %llu times (not possible here)\n",
			       op_names[i],
			       (unsigned long long)fz->skipped[i]);

	for (c = 0; c < 2; c++) {
		n = snprintf(line, sizeof(line), "# options %s:", c ? "get" : "set");
		for (i = 1; i < FZ_OPT_MAX; i++)
			if (fz->opt_set[i] || fz->opt_get[i])
				n += snprintf(line + n, sizeof(line) - n, " %d=%llu", i,
					      (unsigned long long)(c ? fz->opt_get[i] :
								   fz->opt_set[i]));
		printf("%s\n", line);
	}
	printf("# zero-copy binds to 82574L queues: %llu bound, %llu EBUSY, %llu down or gone, %llu other\n",
	       (unsigned long long)fz->zc_binds[0],
	       (unsigned long long)fz->zc_binds[1],
	       (unsigned long long)fz->zc_binds[2],
	       (unsigned long long)fz->zc_binds[3]);
	printf("%sok 1 rcfuzz: every call returned a documented errno (%llu unexpected)\n",
	       fz->bad_errno ? "not " : "",
	       (unsigned long long)fz->bad_errno);
	printf("%sok 2 rcfuzz: invariants held (%llu checks, %llu failures%s%s)\n",
	       fz->fails ? "not " : "", (unsigned long long)fz->checks,
	       (unsigned long long)fz->fails, fz->fails ? "; first: " : "",
	       fz->fails ? fz->first_fail : "");
	printf("%sok 3 rcfuzz: rmmod ringcap refused while sockets are open (%llu attempts)\n",
	       fz->ops[OP_RMMOD] ? "" : "not ",
	       (unsigned long long)fz->rmmod_refused);
	printf("# %llu ring records checked, %llu test frames compared byte for byte\n",
	       (unsigned long long)fz->records,
	       (unsigned long long)fz->frames_checked);
	printf("# rcfuzz: %llu operations in %.0f s (%.0f/s) by %d workers, seed %llu\n",
	       (unsigned long long)total, secs, total / (secs > 0 ? secs : 1),
	       workers, (unsigned long long)fz->seed);
}

static void write_stats(const char *path, double secs)
{
	uint64_t total = 0;
	FILE *f;
	int i;

	f = fopen(path, "w");
	if (!f)
		return;
	for (i = 0; i < OP_MAX; i++) {
		total += fz->ops[i];
		fprintf(f, "op_%s=%llu\nerr_%s=%llu\n", op_names[i],
			(unsigned long long)fz->ops[i], op_names[i],
			(unsigned long long)fz->errs[i]);
	}
	for (i = 1; i < FZ_OPT_MAX; i++)
		fprintf(f, "opt_set_%d=%llu\nopt_get_%d=%llu\n", i,
			(unsigned long long)fz->opt_set[i], i,
			(unsigned long long)fz->opt_get[i]);
	fprintf(f, "zc_bound=%llu\nzc_busy=%llu\nzc_gone=%llu\nzc_other=%llu\n",
		(unsigned long long)fz->zc_binds[0],
		(unsigned long long)fz->zc_binds[1],
		(unsigned long long)fz->zc_binds[2],
		(unsigned long long)fz->zc_binds[3]);
	fprintf(f, "records=%llu\nframes_checked=%llu\n",
		(unsigned long long)fz->records,
		(unsigned long long)fz->frames_checked);
	fprintf(f, "ops=%llu\nchecks=%llu\nfails=%llu\nbad_errno=%llu\nseconds=%.0f\n",
		(unsigned long long)total, (unsigned long long)fz->checks,
		(unsigned long long)fz->fails,
		(unsigned long long)fz->bad_errno, secs);
	fclose(f);
}

static void usage(void)
{
	fprintf(stderr, "usage: rcfuzz [--seed N] [--seconds N] [--workers N] [--stats FILE] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "workers", required_argument, NULL, 'w' },
		{ "stats", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t seed = 0, t0, deadline, grace;
	static struct fz_worker sup;
	const char *stats = NULL, *why;
	int seconds = 60, workers = 3, c, i, st;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 't': seconds = atoi(optarg); break;
		case 'w': workers = atoi(optarg); break;
		case 'o': stats = optarg; break;
		case 'v': fz_verbose = 1; break;
		default: usage();
		}
	}
	if (seconds < 1 || workers < 1 || workers > FZ_MAX_WORKERS)
		usage();
	if (!seed)
		seed = rc_now_ns(CLOCK_REALTIME) ^ ((uint64_t)getpid() << 32);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..3\n");
	printf("# rcfuzz --seed %llu --seconds %d --workers %d\n",
	       (unsigned long long)seed, seconds, workers);

	why = rc_missing(false);
	if (why) {
		printf("# SKIP %s\n", why);
		for (i = 1; i <= 3; i++)
			printf("ok %d rcfuzz # SKIP %s\n", i, why);
		return 4;
	}
	fz = mmap(NULL, sizeof(*fz), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fz == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	fz->seed = seed;
	fz_family = rc_family();
	fz_sim_ko = getenv("RC_SIM_KO");
	/* Orphans of our workers (fork children) come back to us. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	signal(SIGPIPE, SIG_IGN);
	/* Stragglers are sent SIGTERM as a group, which we ignore. */
	setpgid(0, 0);
	signal(SIGTERM, SIG_IGN);

	t0 = now_ns();
	deadline = t0 + (uint64_t)seconds * 1000000000ULL;
	fz_supervise_init();
	spawn(traffic_main, 0, deadline);
	for (i = 0; i < workers; i++)
		spawn(worker_main, i, deadline);

	memset(&sup, 0, sizeof(sup));
	sup.id = 99;
	sup.rng = fz_seed_mix(seed, 99, 0);
	while (now_ns() < deadline) {
		fz_supervise_step(&sup);
		while (waitpid(-1, &st, WNOHANG) > 0)
			;
	}
	fz->stop = 1;
	/* Everyone stops at the next operation; stragglers get killed. */
	grace = now_ns() + 60ULL * 1000000000ULL;
	for (;;) {
		pid = waitpid(-1, &st, WNOHANG);
		if (pid < 0 && errno == ECHILD)
			break;
		if (pid > 0) {
			if (WIFSIGNALED(st) && WTERMSIG(st) != SIGTERM)
				fz_fail("process %d died of signal %d", pid,
					WTERMSIG(st));
			continue;
		}
		if (grace && now_ns() > grace) {
			fz_fail("processes still running 60 s after the end; killing them");
			kill(0, SIGTERM);
			grace = 0;
		}
		rc_sleep_us(20000);
	}
	fz_supervise_restore();
	print_summary((now_ns() - t0) / 1e9, workers);
	if (stats)
		write_stats(stats, (now_ns() - t0) / 1e9);
	return fz->fails || fz->bad_errno ? 1 : 0;
}
