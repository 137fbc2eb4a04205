/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the ringcap selftests: the socket and its mapped ring,
 * module parameters, /proc/net/ringcap, network namespaces and devices.
 *
 * Functions return 0 (or a count) on success and -errno on failure, so that
 * tests can compare errnos directly: ASSERT_EQ(-EINVAL, rc_setopt(...)).
 * Nothing here calls the test harness; the harness macros that need
 * _metadata live in the test files.
 */
#ifndef RC_UTIL_H
#define RC_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <linux/ringcap.h>

#define RC_SIM_DEBUGFS	"/sys/kernel/debug/ringcap_sim"
#define RC_PARAMS	"/sys/module/ringcap/parameters"

/* Big-endian stores into a frame being built. */
static inline void rc_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void rc_put32(uint8_t *p, uint32_t v)
{
	rc_put16(p, v >> 16);
	rc_put16(p + 2, v & 0xffff);
}

/* A mapped ringcap socket and the reader's position in it. */
struct rc_ring {
	int fd;
	struct ringcap_ring_info info;
	struct ringcap_ring_hdr *hdr;
	uint8_t *data;
	uint64_t cons;		/* next record to read */
	unsigned int pads;	/* pad records walked over so far */
	bool gaps;		/* RINGCAP_GAPS set: gap records expected */
};

/* Why the module or the sim device cannot be used, or NULL if they can. */
const char *rc_missing(bool need_sim);

/* Live family number, or -1 when ringcap is not loaded. */
int rc_family(void);

int rc_socket(void);
int rc_setopt(int fd, int name, uint32_t val);
int rc_getopt_u32(int fd, int name, uint32_t *val);
int rc_bind(int fd, int ifindex, unsigned int queue);
int rc_stats(int fd, struct ringcap_stats *st);
int rc_map(struct rc_ring *r, int fd);
void rc_unmap(struct rc_ring *r);
/* socket + optional ring size + bind + map; ring_size 0 keeps the default */
int rc_open_bound(struct rc_ring *r, int ifindex, unsigned int queue,
		  uint32_t ring_size);
/* The same, with before(fd, arg) setting more options before bind. */
int rc_open_bound_with(struct rc_ring *r, int ifindex, unsigned int queue,
		       uint32_t ring_size, int (*before)(int fd, const void *arg),
		       const void *arg);
void rc_close(struct rc_ring *r);

/* Release everything read so far back to the kernel. */
void rc_release(struct rc_ring *r);

/* Module parameters under /sys/module/ringcap/parameters. */
long rc_param_get(const char *name);
int rc_param_set(const char *name, long val);

/* One socket line of /proc/net/ringcap. */
struct rc_proc_line {
	int pid;
	unsigned long inode;
	char device[32];
	char queue[8];
	unsigned long ring_bytes;
	unsigned long long received, dropped, filtered, wakeups, bad_consumer;
	char filter[8];
	char cluster[12];	/* id, or "-" */
	char policy[16];	/* flow, rr, queue (each maybe +span), or "-" */
	char path[40];
	char persist[40];	/* the ring's name, or "-" */
};

/* Find the line of the socket fd; 0, -ENOENT or -errno. */
int rc_proc_find(int fd, struct rc_proc_line *out);
/* The line of the persistent ring of that name; 0, -ENOENT or -errno. */
int rc_proc_find_persist(const char *name, struct rc_proc_line *out);
/* How many socket lines this netns's /proc/net/ringcap has, or -errno. */
int rc_proc_count(void);
/* The first line, into buf. */
int rc_proc_first_line(char *buf, size_t len);

/*
 * One check of a helper that reports line by line (rc_zc, rc_tx):
 * "NAME: ok (WHY)" or "NAME: FAIL (WHY)". Returns ok.
 */
bool rc_report(const char *name, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Run a shell command; returns its exit status (or -1). */
int rc_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A private network namespace with IPv6 off, so devices stay quiet. */
int rc_enter_netns(void);
/* Make a sim device NAME (up); returns its ifindex or -errno. */
int rc_sim_create(const char *name);
/* Make a veth pair a <-> b (both up, IPv6 off); returns b's ifindex. */
int rc_veth_create(const char *a, const char *b);
int rc_link_del(const char *name);
/* The device's promiscuity count from `ip -d link`, or -errno. */
int rc_promiscuity(const char *name);
/* rx_packets of a device of this netns (/proc/net/dev), or -errno. */
long long rc_rx_packets(const char *name);

/* Wait (polling every ms) until cond holds; true if it did in time. */
#define RC_WAIT_UNTIL(cond, timeout_ms) ({				\
	long __ms = (timeout_ms);					\
	bool __ok;							\
	while (!(__ok = (cond)) && __ms-- > 0)				\
		rc_sleep_us(1000);					\
	__ok;								\
})

void rc_sleep_us(unsigned int us);
uint64_t rc_now_ns(clockid_t clk);

/*
 * Wait until received + dropped + filtered + cutoff reaches total; 0 or
 * -ETIMEDOUT.
 */
int rc_wait_accounted(int fd, uint64_t total, int timeout_ms,
		      struct ringcap_stats *st);

/* True once thread tid of this process sleeps inside poll()/ppoll(). */
bool rc_task_in_poll(pid_t tid);

/* Drop CAP_NET_RAW from all sets of the calling thread; 0 or -errno. */
int rc_drop_net_raw(void);

/* Pin the calling process to one CPU, so its backlog frames stay in order. */
int rc_pin_cpu(int cpu);

#endif /* RC_UTIL_H */
