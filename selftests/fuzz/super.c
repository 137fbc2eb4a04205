// SPDX-License-Identifier: GPL-2.0
/*
 * rcfuzz: the supervisor and the traffic process.
 *
 * The supervisor writes every module parameter with valid, boundary and
 * garbage strings and checks the outcome against params.c (kstrtouint
 * with base 0, then the range; family is 0444), and that a refused value
 * leaves the old one; it tries to remove ringcap, which must be refused
 * ("in use") because it holds a socket of its own throughout; it removes
 * ringcap_sim now and then, which takes every sim device away under bound
 * sockets and injections, and loads it again from $RC_SIM_KO; and it
 * reads /proc/net/ringcap. At the end it puts the parameters back.
 *
 * The traffic process writes frames into every sim device (debugfs sees
 * those of all namespaces) and sends some out of the 82574L pair's first
 * NIC (rce0, selftests/fuzz/fuzz.sh) and lo of the initial namespace.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include "fuzz.h"
#include "rc_frames.h"
#include "rc_util.h"

enum { P_MODE, P_RING, P_MAX, P_WM, P_TO, P_FAMILY, P_N };

static const char *const pname[P_N] = { "transparent_mode", "ring_size",
	"max_ring_mem", "watermark", "timeout_us", "family" };
static long orig[P_N];
static int sentinel = -1;
/* Parameters added after this was written: written too, less strictly. */
static char other[8][64];
static char other_orig[8][64];
static int nother;

static int read_str(const char *name, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), RC_PARAMS "/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return 0;
}

static void find_others(void)
{
	struct dirent *de;
	DIR *dir = opendir(RC_PARAMS);
	int i;

	while (dir && (de = readdir(dir)) && nother < 8) {
		if (de->d_name[0] == '.')
			continue;
		for (i = 0; i < P_N && strcmp(de->d_name, pname[i]); i++)
			;
		if (i < P_N)
			continue;
		snprintf(other[nother], sizeof(other[0]), "%.63s", de->d_name);
		if (!read_str(other[nother], other_orig[nother],
			      sizeof(other_orig[0])))
			nother++;
	}
	if (dir)
		closedir(dir);
}

void fz_supervise_init(void)
{
	int i;

	for (i = 0; i < P_N; i++)
		orig[i] = rc_param_get(pname[i]);
	find_others();
	sentinel = rc_socket();
	if (sentinel < 0)
		fz_fail("supervisor: no ringcap socket (%d)", sentinel);
}

void fz_supervise_restore(void)
{
	static const int order[] = { P_MAX, P_RING, P_MODE, P_WM, P_TO };
	int i, err;

	for (i = 0; i < 5; i++) {
		if (orig[order[i]] < 0)
			continue;
		err = rc_param_set(pname[order[i]], orig[order[i]]);
		fz_check(!err, "restoring %s=%ld: %d", pname[order[i]],
			 orig[order[i]], err);
	}
	for (i = 0; i < nother; i++) {
		char path[128];
		int fd;

		snprintf(path, sizeof(path), RC_PARAMS "/%.63s", other[i]);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0 && write(fd, other_orig[i], strlen(other_orig[i])) < 0)
			fz_log("restoring %s: %m", other[i]);
		if (fd >= 0)
			close(fd);
	}
	if (sentinel >= 0)
		close(sentinel);
}

/* A parameter this program does not know: only the errno's kind. */
static void other_write(struct fz_worker *w)
{
	static const char *const vals[] = { "0", "1", "2", "4096", "65536",
		"abc", "-1", "4294967296", "0x10", "" };
	const char *name = other[fz_rnd(w, nother)];
	const char *v = vals[fz_rnd(w, 10)];
	char path[128];
	int fd, err;

	snprintf(path, sizeof(path), RC_PARAMS "/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		FZ_EXPECT(OP_PARAM, errno, ("open %s", name), EACCES, EPERM);
		return;
	}
	err = write(fd, v, strlen(v)) < 0 ? errno : 0;
	close(fd);
	FZ_EXPECT(OP_PARAM, err, ("%s=%s", name, v), 0, EINVAL, ERANGE);
}

/* kstrtouint(s, 0, &v): optional '+', 0x/0 prefix, one trailing '\n'. */
static bool parse_uint(const char *s, unsigned int *v)
{
	unsigned long long x = 0;
	unsigned int base = 10, d;
	const char *p = s;

	if (*p == '+')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    isxdigit((unsigned char)p[2])) {
		base = 16;
		p += 2;
	} else if (p[0] == '0') {
		base = 8;
	}
	if (!*p || *p == '\n')
		return false;
	for (; *p && *p != '\n'; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return false;
		if (d >= base)
			return false;
		x = x * base + d;
		if (x > 0xffffffffull)
			return false;
	}
	if (*p == '\n' && p[1])
		return false;
	*v = x;
	return true;
}

static bool pow2(unsigned long v)
{
	return v && !(v & (v - 1));
}

static bool param_ok(int p, unsigned int v)
{
	long max = rc_param_get("max_ring_mem");

	switch (p) {
	case P_MODE: return v <= 2;
	case P_RING: return pow2(v) && v >= RINGCAP_RING_SIZE_MIN && v <= max;
	case P_MAX: return pow2(v) && v >= RINGCAP_RING_SIZE_MIN && v <= RINGCAP_RING_SIZE_MAX;
	case P_WM: return v >= 1 && v <= RINGCAP_WATERMARK_MAX;
	case P_TO: return v <= RINGCAP_TIMEOUT_US_MAX;
	default: return false;
	}
}

/* A valid value that keeps rings small (the guest has 2 GiB). */
static unsigned long valid_value(struct fz_worker *w, int p)
{
	long max = rc_param_get("max_ring_mem");

	switch (p) {
	case P_MODE: return fz_rnd(w, 3);
	case P_RING: {
		unsigned long v = 4096ul << fz_rnd(w, 11);

		while (v > (unsigned long)max && v > 4096)
			v >>= 1;
		return v;
	}
	case P_MAX:
		return fz_chance(w, 3) ? RINGCAP_RING_SIZE_MAX : 4096ul << fz_rnd(w, 15);
	case P_WM: return (unsigned long[]){ 1, 2, 16, 64, 1000, RINGCAP_WATERMARK_MAX }[fz_rnd(w, 6)];
	case P_TO: return (unsigned long[]){ 0, 1, 100, 1000, 10000, RINGCAP_TIMEOUT_US_MAX }[fz_rnd(w, 6)];
	default: return fz_rnd(w, 64);
	}
}

static void param_write(struct fz_worker *w)
{
	static const char *const junk[] = { "abc", "-1", "0x", "99999999999",
		"1 2", " 7", "7\n\n", "4096k", "0x1000", "+3", "010", "7\n",
		"4294967295", "4294967296", "0", "1e3", "0b1" };
	int p = fz_chance(w, 5) ? P_FAMILY : (int)fz_rnd(w, P_FAMILY);
	char path[128], buf[48];
	unsigned int v = 0;
	long before, after;
	bool ok;
	ssize_t r;
	int fd, err;

	if (fz_chance(w, 65))
		snprintf(buf, sizeof(buf), "%lu", valid_value(w, p));
	else if (fz_chance(w, 50))
		snprintf(buf, sizeof(buf), "%s", junk[fz_rnd(w, 17)]);
	else
		snprintf(buf, sizeof(buf), "%u", (unsigned int)fz_rand(&w->rng));
	ok = parse_uint(buf, &v) && param_ok(p, v);
	/* Never let a huge valid value through the garbage paths. */
	if (ok && ((p == P_RING && v > FZ_RING_MAX) ||
		   (p == P_WM && v > (1u << 20))))
		return;
	before = rc_param_get(pname[p]);
	snprintf(path, sizeof(path), RC_PARAMS "/%s", pname[p]);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (p == P_FAMILY)
			FZ_EXPECT(OP_PARAM, err, ("open family for writing"),
				  EACCES, EPERM);
		else
			FZ_EXPECT(OP_PARAM, err, ("open %s", pname[p]), 0);
		return;
	}
	r = write(fd, buf, strlen(buf));
	err = r < 0 ? errno : (size_t)r == strlen(buf) ? 0 : -2;
	close(fd);
	if (p == P_FAMILY)
		FZ_EXPECT(OP_PARAM, err, ("family=%s", buf), EACCES, EPERM,
			  EINVAL);
	else if (ok)
		FZ_EXPECT(OP_PARAM, err, ("%s=%s", pname[p], buf), 0);
	else
		FZ_EXPECT(OP_PARAM, err, ("%s=%s", pname[p], buf), EINVAL);
	after = rc_param_get(pname[p]);
	fz_check(err ? after == before : after == (long)v,
		 "%s reads %ld after writing '%s' (%s), was %ld", pname[p],
		 after, buf, err ? "refused" : "taken", before);
}

static void try_rmmod(void)
{
	int err;

	err = syscall(SYS_delete_module, "ringcap", O_NONBLOCK) ? errno : 0;
	FZ_EXPECT(OP_RMMOD, err, ("rmmod ringcap with sockets open"),
		  EWOULDBLOCK, EBUSY);
	if (err == EWOULDBLOCK || err == EBUSY)
		__atomic_add_fetch(&fz->rmmod_refused, 1, __ATOMIC_RELAXED);
	if (!err)	/* gone under our sockets: bring it back to go on */
		rc_sh("%s >/dev/null 2>&1", getenv("RC_RINGCAP_KO") ?
		      "insmod \"$RC_RINGCAP_KO\"" : "modprobe ringcap");
}

static void sim_reload(struct fz_worker *w)
{
	int err, fd;

	if (!fz_sim_ko || access("/sys/module/ringcap_sim", F_OK))
		return;
	err = syscall(SYS_delete_module, "ringcap_sim", O_NONBLOCK) ?
	      errno : 0;
	FZ_EXPECT(OP_SIM_RELOAD, err, ("rmmod ringcap_sim"), 0,
		  EWOULDBLOCK, EBUSY);
	if (err)
		return;
	rc_sleep_us(fz_rnd(w, 300000));
	fd = open(fz_sim_ko, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? errno : syscall(SYS_finit_module, fd, "", 0) ? errno : 0;
	if (fd >= 0)
		close(fd);
	FZ_EXPECT(OP_SIM_RELOAD, err, ("insmod %s", fz_sim_ko), 0, EEXIST);
}

static void read_proc(void)
{
	char line[512];
	int err;

	err = -rc_proc_first_line(line, sizeof(line));
	FZ_EXPECT(OP_PROC, err, ("read /proc/net/ringcap"), 0);
	if (!err)
		fz_check(!strncmp(line, "ringcap ", 8),
			 "/proc/net/ringcap starts with '%.40s'", line);
	err = rc_proc_count();
	fz_check(err >= 0, "/proc/net/ringcap socket lines: %d", err);
}

void fz_supervise_step(struct fz_worker *w)
{
	unsigned int r = fz_rnd(w, 100);

	/* About every 10 s the sim module goes, with every sim device. */
	if (r < 70 && nother && fz_chance(w, 15))
		other_write(w);
	else if (r < 70)
		param_write(w);
	else if (r < 84)
		try_rmmod();
	else if (r == 84 && fz_chance(w, 50))
		sim_reload(w);
	else
		read_proc();
	rc_sleep_us(20000 + fz_rnd(w, 60000));
}

static void nic_send(struct fz_worker *w, int fd, const char *dev)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	uint8_t buf[RC_MAX_LEN];
	struct rc_spec sp;
	int i, n = 1 + fz_rnd(w, 12), err = 0;

	ll.sll_ifindex = if_nametoindex(dev);
	if (!ll.sll_ifindex)
		return;
	for (i = 0; i < n && !err; i++) {
		rc_specs(&sp, 1, w->frame_seq++, 0, 200, RC_LEN_VARIED);
		rc_frame_build(buf, &sp);
		if (sendto(fd, buf, sp.len, MSG_DONTWAIT,
			   (struct sockaddr *)&ll, sizeof(ll)) < 0)
			err = errno;
	}
	fz_count(OP_TRAFFIC, err);
}

void fz_traffic(struct fz_worker *w, uint64_t deadline_ns)
{
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0), n, err;
	struct rc_spec specs[48];
	struct dirent *de;
	DIR *dir;

	while (!fz->stop && rc_now_ns(CLOCK_MONOTONIC) < deadline_ns) {
		dir = opendir(RC_SIM_DEBUGFS);
		while (dir && (de = readdir(dir))) {
			if (de->d_name[0] == '.')
				continue;
			n = 8 + fz_rnd(w, 40);
			rc_specs(specs, n, w->frame_seq, RC_QUEUE_MIXED, 200,
				 RC_LEN_VARIED);
			w->frame_seq += n;
			err = rc_sim_inject(de->d_name, specs, n);
			fz_count(OP_TRAFFIC, err);
		}
		if (dir)
			closedir(dir);
		if (fd >= 0) {
			nic_send(w, fd, "rce0");
			nic_send(w, fd, "lo");
		}
		rc_sleep_us(1000 + fz_rnd(w, 4000));
	}
	_exit(0);
}
