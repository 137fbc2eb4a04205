// SPDX-License-Identifier: GPL-2.0
/*
 * The socket API: who may open a ringcap socket, which devices it can see,
 * and the exact result of every socket option, mmap and bind argument
 * (docs/CONTRACTS.md).
 */
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include "kselftest_harness.h"
#include "rc_test.h"

#define NOBODY 65534

static int become_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -errno;
	return 0;
}

/* Child bodies return 0 when the kernel answered as documented. */
static int socket_errno_is(int expect, char *why, size_t len)
{
	int fd = rc_socket();

	if (fd == -expect)
		return 0;
	snprintf(why, len, "socket() gave %s, expected %s",
		 fd >= 0 ? "a socket" : strerror(-fd), strerror(expect));
	return 1;
}

static int child_no_net_raw(void *arg, char *why, size_t len)
{
	int err = rc_drop_net_raw();

	if (err) {
		snprintf(why, len, "capset: %s", strerror(-err));
		return 2;
	}
	return socket_errno_is(EPERM, why, len);
}

static int child_nobody(void *arg, char *why, size_t len)
{
	int err = become_nobody();

	if (err) {
		snprintf(why, len, "setresuid(nobody): %s", strerror(-err));
		return 2;
	}
	return socket_errno_is(EPERM, why, len);
}

/* CAP_NET_RAW in a new user namespace is not CAP_NET_RAW in this netns. */
static int child_userns_only(void *arg, char *why, size_t len)
{
	if (become_nobody() || unshare(CLONE_NEWUSER)) {
		snprintf(why, len, "cannot create a user namespace: %s",
			 strerror(errno));
		return KSFT_SKIP;
	}
	return socket_errno_is(EPERM, why, len);
}

/* ... but a netns owned by our own user namespace is ours to capture on. */
static int child_userns_and_netns(void *arg, char *why, size_t len)
{
	int outer_idx = *(int *)arg;
	int fd, err;

	if (become_nobody() || unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		snprintf(why, len, "cannot create user+net namespaces: %s",
			 strerror(errno));
		return KSFT_SKIP;
	}
	fd = rc_socket();
	if (fd < 0) {
		snprintf(why, len, "socket() in own netns: %s", strerror(-fd));
		return 1;
	}
	err = rc_bind(fd, outer_idx, RINGCAP_QUEUE_ANY);
	if (err != -ENODEV) {
		snprintf(why, len, "bind to outer ifindex %d gave %s, expected ENODEV",
			 outer_idx, strerror(-err));
		return 1;
	}
	err = rc_bind(fd, 1, RINGCAP_QUEUE_ANY);	/* this netns's lo */
	if (err) {
		snprintf(why, len, "bind to own lo: %s", strerror(-err));
		return 1;
	}
	return 0;
}

TEST(unprivileged_socket_refused)
{
	char why[256];
	int ret;

	RC_REQUIRE(false);
	ret = rc_in_child(child_no_net_raw, NULL, why, sizeof(why));
	ASSERT_EQ(0, ret) TH_LOG("root without CAP_NET_RAW: %s", why);
	ret = rc_in_child(child_nobody, NULL, why, sizeof(why));
	ASSERT_EQ(0, ret) TH_LOG("user nobody: %s", why);
	ret = rc_in_child(child_userns_only, NULL, why, sizeof(why));
	if (ret == KSFT_SKIP)
		RC_SKIP_OR_FAIL("%s", why);
	ASSERT_EQ(0, ret) TH_LOG("nobody in a new user namespace: %s", why);
}

TEST(socket_type_and_protocol_checked)
{
	int fam, fd;

	RC_REQUIRE(false);
	fam = rc_family();
	ASSERT_EQ(-1, socket(fam, SOCK_DGRAM, htons(ETH_P_ALL)));
	ASSERT_EQ(ESOCKTNOSUPPORT, errno);
	ASSERT_EQ(-1, socket(fam, SOCK_RAW, htons(ETH_P_IP)));
	ASSERT_EQ(EPROTONOSUPPORT, errno);
	fd = socket(fam, SOCK_RAW, 0);
	ASSERT_LE(0, fd) TH_LOG("protocol 0: %s", strerror(errno));
	close(fd);
	fd = socket(fam, SOCK_RAW, htons(ETH_P_ALL));
	ASSERT_LE(0, fd) TH_LOG("protocol ETH_P_ALL: %s", strerror(errno));
	close(fd);
}

/* One netns per test, so it owns whatever it binds to. */
FIXTURE(ns)
{
	struct rc_env env;
};

FIXTURE_SETUP(ns)
{
	RC_SETUP_VETH(&self->env);
}

FIXTURE_TEARDOWN(ns)
{
	rc_teardown(&self->env);
}

static int child_other_netns(void *arg, char *why, size_t len)
{
	int idx = *(int *)arg;
	int fd, n, err;

	if (unshare(CLONE_NEWNET)) {
		snprintf(why, len, "unshare(CLONE_NEWNET): %s", strerror(errno));
		return 2;
	}
	n = rc_proc_count();
	if (n != 0) {
		snprintf(why, len, "/proc/net/ringcap of a new netns lists %d sockets, expected 0",
			 n);
		return 1;
	}
	fd = rc_socket();
	if (fd < 0) {
		snprintf(why, len, "socket(): %s", strerror(-fd));
		return 1;
	}
	err = rc_bind(fd, idx, RINGCAP_QUEUE_ANY);
	if (err != -ENODEV) {
		snprintf(why, len, "bind to the other netns's ifindex %d gave %s, expected ENODEV",
			 idx, strerror(-err));
		return 1;
	}
	n = rc_proc_count();
	if (n != 1) {
		snprintf(why, len, "/proc/net/ringcap lists %d sockets, expected only ours",
			 n);
		return 1;
	}
	return 0;
}

TEST_F(ns, other_netns_cannot_see_devices_or_sockets)
{
	struct rc_proc_line l;
	char why[256];
	int fd;

	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rc_bind(fd, self->env.vb_idx, RINGCAP_QUEUE_ANY));
	ASSERT_EQ(1, rc_proc_count());
	ASSERT_EQ(0, rc_proc_find(fd, &l));
	ASSERT_EQ(0, rc_in_child(child_other_netns, &self->env.vb_idx, why,
				 sizeof(why))) TH_LOG("%s", why);
	close(fd);
}

TEST_F(ns, own_user_and_net_namespace_allowed)
{
	char why[256];
	int ret;

	ret = rc_in_child(child_userns_and_netns, &self->env.vb_idx, why,
			  sizeof(why));
	if (ret == KSFT_SKIP)
		RC_SKIP_OR_FAIL("%s", why);
	ASSERT_EQ(0, ret) TH_LOG("%s", why);
}

TEST(ring_size_option)
{
	long max = rc_param_get("max_ring_mem");
	struct ringcap_ring_info info;
	socklen_t len = sizeof(info);
	uint32_t v;
	int fd;

	RC_REQUIRE(false);
	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_RING_SIZE, &v));
	ASSERT_EQ(rc_param_get("ring_size") < max ? rc_param_get("ring_size")
						  : max, v);
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_RING_SIZE, RINGCAP_RING_SIZE_MIN));
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_RING_SIZE, max));
	ASSERT_EQ(-EINVAL, rc_setopt(fd, RINGCAP_RING_SIZE, 0));
	ASSERT_EQ(-EINVAL, rc_setopt(fd, RINGCAP_RING_SIZE,
				     RINGCAP_RING_SIZE_MIN / 2));
	ASSERT_EQ(-EINVAL, rc_setopt(fd, RINGCAP_RING_SIZE,
				     RINGCAP_RING_SIZE_MIN - 1));
	ASSERT_EQ(-EINVAL, rc_setopt(fd, RINGCAP_RING_SIZE,
				     RINGCAP_RING_SIZE_MIN * 3 / 2));
	ASSERT_EQ(-EINVAL, rc_setopt(fd, RINGCAP_RING_SIZE, max * 2));
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_RING_SIZE, &v));
	ASSERT_EQ(max, v);
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_RING_SIZE, 16384));
	/* optlen must be exactly 4 */
	ASSERT_EQ(-1, setsockopt(fd, SOL_RINGCAP, RINGCAP_RING_SIZE, &v, 2));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, setsockopt(fd, SOL_RINGCAP, RINGCAP_RING_SIZE,
				 &info, 8));
	ASSERT_EQ(EINVAL, errno);
	/* RING_INFO creates the ring; its geometry is then fixed */
	ASSERT_EQ(0, getsockopt(fd, SOL_RINGCAP, RINGCAP_RING_INFO, &info,
				&len));
	ASSERT_EQ(sizeof(info), len);
	ASSERT_EQ(16384, info.data_size);
	ASSERT_EQ(getpagesize(), info.data_offset);
	ASSERT_EQ(getpagesize() + 16384, info.mmap_size);
	ASSERT_EQ(-EBUSY, rc_setopt(fd, RINGCAP_RING_SIZE, 8192));
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_RING_SIZE, &v));
	ASSERT_EQ(16384, v);
	close(fd);
}

/* A __u32 option: accepted values read back, rejected ones give EINVAL. */
static void check_u32_opt(struct __test_metadata *_metadata, int fd,
			  int name, const uint32_t *ok, int nok,
			  const uint32_t *bad, int nbad)
{
	uint32_t v;
	int i;

	for (i = 0; i < nok; i++) {
		ASSERT_EQ(0, rc_setopt(fd, name, ok[i]))
			TH_LOG("option %d value %u", name, ok[i]);
		ASSERT_EQ(0, rc_getopt_u32(fd, name, &v));
		ASSERT_EQ(ok[i], v);
	}
	for (i = 0; i < nbad; i++) {
		ASSERT_EQ(-EINVAL, rc_setopt(fd, name, bad[i]))
			TH_LOG("option %d value %u", name, bad[i]);
		ASSERT_EQ(0, rc_getopt_u32(fd, name, &v));
		ASSERT_EQ(ok[nok - 1], v) TH_LOG("a refused value changed it");
	}
	ASSERT_EQ(-1, setsockopt(fd, SOL_RINGCAP, name, &v, 3));
	ASSERT_EQ(EINVAL, errno);
}

TEST(snaplen_watermark_timeout_promisc_options)
{
	static const uint32_t snap_ok[] = { 1, RINGCAP_SNAPLEN_MAX, 97 };
	static const uint32_t snap_bad[] = { 0, RINGCAP_SNAPLEN_MAX + 1,
					     0xffffffff };
	static const uint32_t wm_ok[] = { RINGCAP_WATERMARK_MAX, 1, 64 };
	static const uint32_t wm_bad[] = { 0, RINGCAP_WATERMARK_MAX + 1 };
	static const uint32_t to_ok[] = { RINGCAP_TIMEOUT_US_MAX, 0, 2000 };
	static const uint32_t to_bad[] = { RINGCAP_TIMEOUT_US_MAX + 1,
					   0xffffffff };
	static const uint32_t pr_ok[] = { 0, 1 };
	static const uint32_t pr_bad[] = { 2, 0xffffffff };
	uint32_t v;
	int fd;

	RC_REQUIRE(false);
	fd = rc_socket();
	ASSERT_LE(0, fd);
	/* defaults: the largest snaplen, promisc on, N and m from the module */
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_SNAPLEN, &v));
	ASSERT_EQ(RINGCAP_SNAPLEN_MAX, v);
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_PROMISC, &v));
	ASSERT_EQ(1, v);
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_WATERMARK, &v));
	ASSERT_EQ(rc_param_get("watermark"), v);
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_TIMEOUT_US, &v));
	ASSERT_EQ(rc_param_get("timeout_us"), v);
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_ABI, &v));
	ASSERT_EQ(RINGCAP_ABI_VERSION, v);
	/* gap records only for a reader that asks for them */
	ASSERT_EQ(0, rc_getopt_u32(fd, RINGCAP_GAPS, &v));
	ASSERT_EQ(0, v);

	check_u32_opt(_metadata, fd, RINGCAP_SNAPLEN, snap_ok, 3, snap_bad, 3);
	check_u32_opt(_metadata, fd, RINGCAP_WATERMARK, wm_ok, 3, wm_bad, 2);
	check_u32_opt(_metadata, fd, RINGCAP_TIMEOUT_US, to_ok, 3, to_bad, 2);
	check_u32_opt(_metadata, fd, RINGCAP_PROMISC, pr_ok, 2, pr_bad, 2);
	check_u32_opt(_metadata, fd, RINGCAP_GAPS, pr_ok, 2, pr_bad, 2);
	close(fd);
}

TEST(unknown_options_and_levels)
{
	struct ringcap_stats st;
	socklen_t len;
	uint32_t v = 1;
	int fd;

	RC_REQUIRE(false);
	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(-ENOPROTOOPT, rc_setopt(fd, 0, 1));
	ASSERT_EQ(-ENOPROTOOPT, rc_setopt(fd, 99, 1));
	/* read-only options cannot be set */
	ASSERT_EQ(-ENOPROTOOPT, rc_setopt(fd, RINGCAP_RING_INFO, 1));
	ASSERT_EQ(-ENOPROTOOPT, rc_setopt(fd, RINGCAP_STATS, 1));
	ASSERT_EQ(-ENOPROTOOPT, rc_setopt(fd, RINGCAP_ABI, 1));
	ASSERT_EQ(-1, setsockopt(fd, SOL_IP, RINGCAP_SNAPLEN, &v, 4));
	ASSERT_EQ(ENOPROTOOPT, errno);
	len = 4;
	ASSERT_EQ(-1, getsockopt(fd, SOL_RINGCAP, 99, &v, &len));
	ASSERT_EQ(ENOPROTOOPT, errno);
	ASSERT_EQ(-1, getsockopt(fd, SOL_IP, RINGCAP_SNAPLEN, &v, &len));
	ASSERT_EQ(ENOPROTOOPT, errno);

	/* getsockopt lengths: too small EINVAL, larger trimmed */
	len = 3;
	ASSERT_EQ(-1, getsockopt(fd, SOL_RINGCAP, RINGCAP_SNAPLEN, &v, &len));
	ASSERT_EQ(EINVAL, errno);
	len = -1;
	ASSERT_EQ(-1, getsockopt(fd, SOL_RINGCAP, RINGCAP_SNAPLEN, &v, &len));
	ASSERT_EQ(EINVAL, errno);
	len = RINGCAP_STATS_SIZE_V1 - 1;
	ASSERT_EQ(-1, getsockopt(fd, SOL_RINGCAP, RINGCAP_STATS, &st, &len));
	ASSERT_EQ(EINVAL, errno);
	len = RINGCAP_RING_INFO_SIZE_V1 - 1;
	ASSERT_EQ(-1, getsockopt(fd, SOL_RINGCAP, RINGCAP_RING_INFO, &st,
				 &len));
	ASSERT_EQ(EINVAL, errno);
	len = sizeof(st);
	ASSERT_EQ(0, getsockopt(fd, SOL_RINGCAP, RINGCAP_SNAPLEN, &st, &len));
	ASSERT_EQ(4, len);
	len = sizeof(st) + 8;
	memset(&st, 0xff, sizeof(st));
	ASSERT_EQ(0, getsockopt(fd, SOL_RINGCAP, RINGCAP_STATS, &st, &len));
	ASSERT_EQ(sizeof(st), len);
	ASSERT_EQ(0, st.received + st.dropped + st.filtered + st.wakeups +
		     st.wakeups_timer + st.bad_consumer + st.nic_dropped);
	close(fd);
}

/*
 * getsockopt() of a structure that grows: the first bytes of a full-size
 * read for any size from the first published one up. A program built
 * with an older, smaller structure gets that much; one built with a
 * larger one than this kernel's gets the kernel's, the rest of its buffer
 * untouched; below the first size, EINVAL.
 */
static void check_grows(struct __test_metadata *_metadata, int fd, int opt,
			unsigned int v1, unsigned int size)
{
	unsigned char want[256], buf[256];
	unsigned int sizes[] = { v1, (v1 + size) / 2, size, size + 8,
				 sizeof(buf) };
	socklen_t len = size;
	unsigned int i, n;

	ASSERT_LE(v1, size);
	ASSERT_EQ(0, getsockopt(fd, SOL_RINGCAP, opt, want, &len))
		TH_LOG("option %d: %s", opt, strerror(errno));
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(buf, 0xa5, sizeof(buf));
		len = sizes[i];
		ASSERT_EQ(0, getsockopt(fd, SOL_RINGCAP, opt, buf, &len))
			TH_LOG("option %d, optlen %u: %s", opt, sizes[i],
			       strerror(errno));
		n = sizes[i] < size ? sizes[i] : size;
		ASSERT_EQ(n, len) TH_LOG("option %d, optlen %u", opt, sizes[i]);
		ASSERT_EQ(0, memcmp(buf, want, n));
		while (n < sizeof(buf))
			ASSERT_EQ(0xa5, buf[n++]);
	}
	len = v1 - 1;
	ASSERT_EQ(-1, getsockopt(fd, SOL_RINGCAP, opt, buf, &len));
	ASSERT_EQ(EINVAL, errno);
}

TEST(grown_structures_take_their_first_size_and_up)
{
	/*
	 * TX_INFO makes the transmit ring (as RING_INFO does the ring) that
	 * TX_STATS then reports on.
	 */
	static const struct { int opt; unsigned int v1, size; } grows[] = {
		{ RINGCAP_RING_INFO, RINGCAP_RING_INFO_SIZE_V1,
		  sizeof(struct ringcap_ring_info) },
		{ RINGCAP_STATS, RINGCAP_STATS_SIZE_V1,
		  sizeof(struct ringcap_stats) },
		{ RINGCAP_TX_INFO, RINGCAP_RING_INFO_SIZE_V1,
		  sizeof(struct ringcap_ring_info) },
		{ RINGCAP_TX_STATS, RINGCAP_TX_STATS_SIZE_V1,
		  sizeof(struct ringcap_tx_stats) },
	};
	unsigned int i;
	int fd;

	RC_REQUIRE(false);
	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_TX_RING_SIZE, 65536));
	for (i = 0; i < sizeof(grows) / sizeof(grows[0]); i++)
		check_grows(_metadata, fd, grows[i].opt, grows[i].v1,
			    grows[i].size);
	close(fd);
}

TEST(mmap_needs_exact_size_and_offset_zero)
{
	struct ringcap_ring_hdr *hdr;
	struct ringcap_ring_info info;
	socklen_t len = sizeof(info);
	long pg = getpagesize();
	void *p;
	int fd;

	RC_REQUIRE(false);
	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_RING_SIZE, 8192));
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_SNAPLEN, 1500));
	ASSERT_EQ(0, getsockopt(fd, SOL_RINGCAP, RINGCAP_RING_INFO, &info,
				&len));
	ASSERT_EQ(pg + 8192, info.mmap_size);
	p = mmap(NULL, info.mmap_size - pg, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap(NULL, info.mmap_size + pg, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap(NULL, info.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, pg);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap(NULL, info.mmap_size - pg, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, pg);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap(NULL, info.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(errno));
	hdr = p;
	ASSERT_EQ(RINGCAP_MAGIC, hdr->magic);
	ASSERT_EQ(RINGCAP_ABI_VERSION, hdr->abi_version);
	ASSERT_EQ(sizeof(struct ringcap_rec), hdr->rec_hdr_len);
	ASSERT_EQ(40, hdr->rec_hdr_len);
	ASSERT_EQ(info.data_offset, hdr->data_offset);
	ASSERT_EQ(8192, hdr->data_size);
	ASSERT_EQ(1500, hdr->snaplen);
	ASSERT_EQ(0, hdr->producer);
	ASSERT_EQ(0, hdr->consumer);
	/* snaplen may change later; the header follows */
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_SNAPLEN, 97));
	ASSERT_EQ(97, hdr->snaplen);
	munmap(p, info.mmap_size);
	close(fd);
}

TEST(mmap_creates_ring_then_size_is_fixed)
{
	long pg = getpagesize();
	void *p;
	int fd;

	RC_REQUIRE(false);
	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_RING_SIZE, RINGCAP_RING_SIZE_MIN));
	p = mmap(NULL, pg + RINGCAP_RING_SIZE_MIN, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(errno));
	ASSERT_EQ(RINGCAP_RING_SIZE_MIN,
		  ((struct ringcap_ring_hdr *)p)->data_size);
	ASSERT_EQ(-EBUSY, rc_setopt(fd, RINGCAP_RING_SIZE,
				    2 * RINGCAP_RING_SIZE_MIN));
	munmap(p, pg + RINGCAP_RING_SIZE_MIN);
	close(fd);
}

FIXTURE(sim)
{
	struct rc_env env;
};

FIXTURE_SETUP(sim)
{
	RC_SETUP_SIM(&self->env);
}

FIXTURE_TEARDOWN(sim)
{
	rc_teardown(&self->env);
}

TEST_F(sim, bind_errnos)
{
	struct sockaddr_ringcap a = {
		.rc_family = rc_family(),
		.rc_queue = RINGCAP_QUEUE_ANY,
		.rc_ifindex = self->env.sim_idx,
	};
	int fd, fd2;

	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(-1, bind(fd, (struct sockaddr *)&a, sizeof(a) - 1));
	ASSERT_EQ(EINVAL, errno);
	a.rc_family = rc_family() + 1;
	ASSERT_EQ(-1, bind(fd, (struct sockaddr *)&a, sizeof(a)));
	ASSERT_EQ(EAFNOSUPPORT, errno);
	ASSERT_EQ(-ENODEV, rc_bind(fd, 999999, RINGCAP_QUEUE_ANY));
	ASSERT_EQ(-ENODEV, rc_bind(fd, 0, RINGCAP_QUEUE_ANY));
	ASSERT_EQ(-ENODEV, rc_bind(fd, -1, RINGCAP_QUEUE_ANY));
	/* the sim device has RX queues 0 and 1 */
	ASSERT_EQ(-ERANGE, rc_bind(fd, self->env.sim_idx, 2));
	ASSERT_EQ(-ERANGE, rc_bind(fd, self->env.sim_idx, 0xfffe));
	/* lo has one RX queue */
	ASSERT_EQ(-ERANGE, rc_bind(fd, 1, 1));
	ASSERT_EQ(0, rc_bind(fd, self->env.sim_idx, 1));
	ASSERT_EQ(-EBUSY, rc_bind(fd, self->env.sim_idx, 1));
	ASSERT_EQ(-EBUSY, rc_bind(fd, 1, 0));
	/* bound: the ring exists and promisc is settled */
	ASSERT_EQ(-EBUSY, rc_setopt(fd, RINGCAP_RING_SIZE, 8192));
	ASSERT_EQ(-EBUSY, rc_setopt(fd, RINGCAP_PROMISC, 0));
	ASSERT_EQ(-EBUSY, rc_setopt(fd, RINGCAP_GAPS, 1));
	ASSERT_EQ(0, rc_setopt(fd, RINGCAP_SNAPLEN, 200));

	fd2 = rc_socket();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, rc_bind(fd2, 1, 0));
	close(fd2);
	close(fd);
}

TEST_F(sim, promiscuous_while_bound)
{
	int fd, fd2;

	ASSERT_EQ(0, rc_promiscuity(self->env.sim));
	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rc_bind(fd, self->env.sim_idx, RINGCAP_QUEUE_ANY));
	ASSERT_EQ(1, rc_promiscuity(self->env.sim));
	fd2 = rc_socket();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, rc_setopt(fd2, RINGCAP_PROMISC, 0));
	ASSERT_EQ(0, rc_bind(fd2, self->env.sim_idx, 0));
	ASSERT_EQ(1, rc_promiscuity(self->env.sim));
	close(fd);
	ASSERT_EQ(0, rc_promiscuity(self->env.sim));
	close(fd2);
	ASSERT_EQ(0, rc_promiscuity(self->env.sim));
}

static bool q1_mod3_zero(const struct rc_spec *s)
{
	return s->queue == 1 && s->seq % 3 == 0;
}

TEST_F(sim, proc_shows_socket_device_queue_and_counters)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, RC_OFF_MOD3),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = 4, .filter = code };
	struct rc_spec *specs, *want;
	struct rc_proc_line l;
	struct ringcap_stats st;
	struct rc_ring r;
	struct rc_cap cap;
	char first[512], expect[512];
	struct stat sb;
	unsigned int n;
	int fd2;

	RC_SET_MODE(1);
	ASSERT_EQ(0, rc_open_bound(&r, self->env.sim_idx, 1, 1 << 20));
	ASSERT_EQ(0, setsockopt(r.fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
				sizeof(prog)));
	fd2 = rc_socket();
	ASSERT_LE(0, fd2);

	specs = rc_specs(NULL, 1009, 0, RC_QUEUE_MIXED, 7, RC_LEN_VARIED);
	want = rc_specs(NULL, 1009, 0, RC_QUEUE_MIXED, 7, RC_LEN_VARIED);
	n = rc_specs_filter(want, 1009, q1_mod3_zero);
	ASSERT_EQ(136, n);
	ASSERT_EQ(0, rc_sim_inject(self->env.sim, specs, 1009));
	RC_WAIT_ACCOUNTED(r.fd, 403, &st);
	ASSERT_EQ(136, st.received);
	ASSERT_EQ(267, st.filtered);
	ASSERT_EQ(0, st.dropped);
	rc_cap_init(&cap, 1009);
	ASSERT_EQ(136, rc_drain(&r, &cap));
	RC_EXPECT_FRAMES(&cap, want, n, self->env.sim_idx,
			 RINGCAP_SNAPLEN_MAX, 0, 0);

	ASSERT_EQ(2, rc_proc_count());
	ASSERT_EQ(0, rc_proc_find(r.fd, &l));
	ASSERT_EQ(0, fstat(r.fd, &sb));
	ASSERT_EQ(getpid(), l.pid);
	ASSERT_EQ(sb.st_ino, l.inode);
	ASSERT_STREQ(self->env.sim, l.device);
	ASSERT_STREQ("1", l.queue);
	ASSERT_EQ(1 << 20, l.ring_bytes);
	ASSERT_EQ(136, l.received);
	ASSERT_EQ(0, l.dropped);
	ASSERT_EQ(267, l.filtered);
	ASSERT_EQ(0, l.wakeups);	/* nobody slept in poll() */
	ASSERT_EQ(0, l.bad_consumer);
	ASSERT_STREQ("yes", l.filter);

	ASSERT_EQ(0, rc_proc_find(fd2, &l));
	ASSERT_STREQ("-", l.device);
	ASSERT_STREQ("all", l.queue);
	ASSERT_EQ(0, l.ring_bytes);
	ASSERT_EQ(0, l.received + l.dropped + l.filtered + l.wakeups +
		     l.bad_consumer);
	ASSERT_STREQ("no", l.filter);

	ASSERT_EQ(0, rc_proc_first_line(first, sizeof(first)));
	snprintf(expect, sizeof(expect),
		 "abi %d family %d transparent_mode 1 ring_size %ld max_ring_mem %ld watermark %ld timeout_us %ld",
		 RINGCAP_ABI_VERSION, rc_family(), rc_param_get("ring_size"),
		 rc_param_get("max_ring_mem"), rc_param_get("watermark"),
		 rc_param_get("timeout_us"));
	ASSERT_EQ(0, strncmp(first, "ringcap ", 8)) TH_LOG("%s", first);
	ASSERT_NE(NULL, strstr(first, expect))
		TH_LOG("'%s' lacks '%s'", first, expect);

	close(fd2);
	rc_close(&r);
	ASSERT_EQ(0, rc_proc_count());
	rc_cap_free(&cap);
	free(specs);
	free(want);
}

TEST(filter_attach_and_detach)
{
	struct sock_filter bad[] = {
		BPF_JUMP(BPF_JMP | BPF_JA, 5, 0, 0),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter good[] = { BPF_STMT(BPF_RET | BPF_K, 0xffff) };
	struct sock_fprog p_bad = { .len = 2, .filter = bad };
	struct sock_fprog p_good = { .len = 1, .filter = good };
	int zero = 0;
	int fd;

	RC_REQUIRE(false);
	fd = rc_socket();
	ASSERT_LE(0, fd);
	ASSERT_EQ(-1, setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &p_bad,
				 sizeof(p_bad)));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &p_good,
				sizeof(p_good)));
	/* The socket core wants an int-sized optval even here. */
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &zero,
				sizeof(zero)));
	ASSERT_EQ(-1, setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &zero,
				 sizeof(zero)));
	ASSERT_EQ(ENOENT, errno);
	close(fd);
}

TEST_HARNESS_MAIN
