// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the ringcap selftests; see rc_util.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/capability.h>
#include <linux/if_ether.h>
#include "rc_util.h"

static int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	return n;
}

static int write_file(const char *path, const char *val)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(val))
		err = -EIO;
	close(fd);
	return err;
}

const char *rc_missing(bool need_sim)
{
	if (geteuid())
		return "the tests need root";
	if (rc_family() < 0)
		return "ringcap is not loaded (" RC_PARAMS "/family missing)";
	if (need_sim && access(RC_SIM_DEBUGFS, F_OK))
		return "ringcap_sim is not loaded or debugfs is not mounted (" RC_SIM_DEBUGFS " missing)";
	return NULL;
}

int rc_family(void)
{
	long v = rc_param_get("family");

	return v < 0 ? -1 : (int)v;
}

int rc_socket(void)
{
	int fam = rc_family();
	int fd;

	if (fam < 0)
		return -EAFNOSUPPORT;
	fd = socket(fam, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	return fd < 0 ? -errno : fd;
}

int rc_setopt(int fd, int name, uint32_t val)
{
	if (setsockopt(fd, SOL_RINGCAP, name, &val, sizeof(val)))
		return -errno;
	return 0;
}

int rc_getopt_u32(int fd, int name, uint32_t *val)
{
	socklen_t len = sizeof(*val);

	if (getsockopt(fd, SOL_RINGCAP, name, val, &len))
		return -errno;
	return len == sizeof(*val) ? 0 : -EPROTO;
}

int rc_bind(int fd, int ifindex, unsigned int queue)
{
	struct sockaddr_ringcap a = {
		.rc_family = rc_family(),
		.rc_queue = queue,
		.rc_ifindex = ifindex,
	};

	if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
		return -errno;
	return 0;
}

int rc_stats(int fd, struct ringcap_stats *st)
{
	socklen_t len = sizeof(*st);

	if (getsockopt(fd, SOL_RINGCAP, RINGCAP_STATS, st, &len))
		return -errno;
	return len == sizeof(*st) ? 0 : -EPROTO;
}

int rc_map(struct rc_ring *r, int fd)
{
	socklen_t len = sizeof(r->info);
	void *p;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	if (getsockopt(fd, SOL_RINGCAP, RINGCAP_RING_INFO, &r->info, &len))
		return -errno;
	p = mmap(NULL, r->info.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->hdr = p;
	r->data = (uint8_t *)p + r->info.data_offset;
	r->cons = __atomic_load_n(&r->hdr->consumer, __ATOMIC_ACQUIRE);
	return 0;
}

void rc_unmap(struct rc_ring *r)
{
	if (r->hdr)
		munmap(r->hdr, r->info.mmap_size);
	r->hdr = NULL;
	r->data = NULL;
}

int rc_open_bound_with(struct rc_ring *r, int ifindex, unsigned int queue,
		       uint32_t ring_size, int (*before)(int fd, const void *arg),
		       const void *arg)
{
	int fd, err;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	fd = rc_socket();
	if (fd < 0)
		return fd;
	if (ring_size) {
		err = rc_setopt(fd, RINGCAP_RING_SIZE, ring_size);
		if (err)
			goto err_close;
	}
	if (before) {
		err = before(fd, arg);
		if (err)
			goto err_close;
	}
	err = rc_bind(fd, ifindex, queue);
	if (err)
		goto err_close;
	err = rc_map(r, fd);
	if (err)
		goto err_close;
	return 0;

err_close:
	close(fd);
	r->fd = -1;
	return err;
}

int rc_open_bound(struct rc_ring *r, int ifindex, unsigned int queue,
		  uint32_t ring_size)
{
	return rc_open_bound_with(r, ifindex, queue, ring_size, NULL, NULL);
}

void rc_close(struct rc_ring *r)
{
	rc_unmap(r);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

void rc_release(struct rc_ring *r)
{
	/* Release: our reads of the records are done before the kernel
	 * may see the space as free (pairs with its acquire load).
	 */
	__atomic_store_n(&r->hdr->consumer, r->cons, __ATOMIC_RELEASE);
}

long rc_param_get(const char *name)
{
	char path[256], buf[64];
	int n;

	snprintf(path, sizeof(path), RC_PARAMS "/%s", name);
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	return strtol(buf, NULL, 0);
}

int rc_param_set(const char *name, long val)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), RC_PARAMS "/%s", name);
	snprintf(buf, sizeof(buf), "%ld", val);
	return write_file(path, buf);
}

static int proc_read(char **buf)
{
	size_t cap = 1 << 16, len = 0;
	ssize_t n;
	int fd;

	fd = open("/proc/net/ringcap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*buf = malloc(cap);
	while (*buf && (n = read(fd, *buf + len, cap - len - 1)) > 0) {
		len += n;
		if (len + 1 == cap)
			*buf = realloc(*buf, cap *= 2);
	}
	close(fd);
	if (!*buf)
		return -ENOMEM;
	(*buf)[len] = '\0';
	return 0;
}

/* Socket lines start after the settings line and the column header. */
static char *proc_sock_lines(char *buf)
{
	char *p = strchr(buf, '\n');

	p = p ? strchr(p + 1, '\n') : NULL;
	return p ? p + 1 : NULL;
}

/* The first socket line for which match() is true; 0, -ENOENT or -errno. */
static int proc_find(bool (*match)(const struct rc_proc_line *l,
				   const void *arg),
		     const void *arg, struct rc_proc_line *out)
{
	struct rc_proc_line l;
	char *buf, *line, *save;
	int err;

	err = proc_read(&buf);
	if (err)
		return err;
	err = -ENOENT;
	line = proc_sock_lines(buf);
	for (line = line ? strtok_r(line, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		memset(&l, 0, sizeof(l));
		if (sscanf(line, "%d %lu %31s %7s %lu %llu %llu %llu %llu %llu %7s %11s %15s %39s %39s",
			   &l.pid, &l.inode, l.device, l.queue, &l.ring_bytes,
			   &l.received, &l.dropped, &l.filtered, &l.wakeups,
			   &l.bad_consumer, l.filter, l.cluster, l.policy,
			   l.path, l.persist) != 15) {
			err = -EPROTO;
			break;
		}
		if (match(&l, arg)) {
			*out = l;
			err = 0;
			break;
		}
	}
	free(buf);
	return err;
}

static bool match_inode(const struct rc_proc_line *l, const void *arg)
{
	return l->inode == *(const unsigned long *)arg;
}

int rc_proc_find(int fd, struct rc_proc_line *out)
{
	struct stat st;
	unsigned long ino;

	if (fstat(fd, &st))
		return -errno;
	ino = st.st_ino;
	return proc_find(match_inode, &ino, out);
}

static bool match_persist(const struct rc_proc_line *l, const void *arg)
{
	return !strcmp(l->persist, arg);
}

int rc_proc_find_persist(const char *name, struct rc_proc_line *out)
{
	return proc_find(match_persist, name, out);
}

int rc_proc_count(void)
{
	char *buf, *p;
	int n = 0, err;

	err = proc_read(&buf);
	if (err)
		return err;
	p = proc_sock_lines(buf);
	if (!p) {
		free(buf);
		return -EPROTO;
	}
	for (; *p; p++)
		n += *p == '\n';
	free(buf);
	return n;
}

int rc_proc_first_line(char *buf, size_t len)
{
	char *all, *nl;
	int err;

	err = proc_read(&all);
	if (err)
		return err;
	nl = strchr(all, '\n');
	if (nl)
		*nl = '\0';
	snprintf(buf, len, "%s", all);
	free(all);
	return 0;
}

int rc_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fflush(stderr);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void ipv6_off(const char *dev)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6",
		 dev);
	write_file(path, "1");	/* absent without IPv6: nothing to silence */
}

int rc_enter_netns(void)
{
	if (unshare(CLONE_NEWNET))
		return -errno;
	ipv6_off("all");
	ipv6_off("default");
	return 0;
}

int rc_sim_create(const char *name)
{
	int idx;

	if (rc_sh("ip link add %s type ringcap_sim", name))
		return -ENODEV;
	ipv6_off(name);
	if (rc_sh("ip link set %s up", name))
		return -EIO;
	idx = if_nametoindex(name);
	return idx ? idx : -ENODEV;
}

int rc_veth_create(const char *a, const char *b)
{
	int idx;

	if (rc_sh("ip link add %s type veth peer name %s", a, b))
		return -ENODEV;
	ipv6_off(a);
	ipv6_off(b);
	if (rc_sh("ip link set %s up && ip link set %s up", a, b))
		return -EIO;
	idx = if_nametoindex(b);
	return idx ? idx : -ENODEV;
}

int rc_link_del(const char *name)
{
	return rc_sh("ip link del %s", name) ? -EIO : 0;
}

int rc_promiscuity(const char *name)
{
	char cmd[128], line[512];
	int v = -ENOENT;
	char *p;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ip -d link show dev %s", name);
	f = popen(cmd, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "promiscuity ");
		if (p)
			v = atoi(p + strlen("promiscuity "));
	}
	pclose(f);
	return v;
}

long long rc_rx_packets(const char *name)
{
	unsigned long long bytes, pkts;
	char line[512], *p;
	long long v = -ENOENT;
	FILE *f;

	f = fopen("/proc/net/dev", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		p = strchr(line, ':');
		if (!p)
			continue;
		*p = '\0';
		if (strcmp(line + strspn(line, " "), name))
			continue;
		if (sscanf(p + 1, "%llu %llu", &bytes, &pkts) == 2)
			v = pkts;
	}
	fclose(f);
	return v;
}

void rc_sleep_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

uint64_t rc_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int rc_wait_accounted(int fd, uint64_t total, int timeout_ms,
		      struct ringcap_stats *st)
{
	int err;

	for (;;) {
		err = rc_stats(fd, st);
		if (err)
			return err;
		if (st->received + st->dropped + st->filtered + st->cutoff >=
		    total)
			return 0;
		if (timeout_ms-- <= 0)
			return -ETIMEDOUT;
		rc_sleep_us(1000);
	}
}

bool rc_task_in_poll(pid_t tid)
{
	char path[64], buf[512], *p;
	long nr;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return false;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] != 'S')
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return false;
	nr = strtol(buf, NULL, 10);
	return nr == SYS_poll || nr == SYS_ppoll;
}

int rc_drop_net_raw(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[0].effective &= ~(1u << CAP_NET_RAW);
	d[0].permitted &= ~(1u << CAP_NET_RAW);
	d[0].inheritable &= ~(1u << CAP_NET_RAW);
	if (syscall(SYS_capset, &h, d))
		return -errno;
	return 0;
}

int rc_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

bool rc_report(const char *name, bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: %s (", name, ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(")\n");
	fflush(stdout);
	return ok;
}
