// SPDX-License-Identifier: GPL-2.0
/*
 * rc_zc: zero-copy receive straight through the ABI (no libringcap), for
 * selftests/e1000e/zerocopy.sh.
 *
 *   rc_zc refuse DEV Q
 *	every refusal and the one documented alternative, one line each:
 *	"NAME: ok (...)" or "NAME: FAIL (...)"; exit 0 if all are ok
 *   rc_zc cap DEV Q FILE COUNT [SECONDS] [STALL]
 *	capture COUNT frames of queue Q through zero-copy into the pcap
 *	FILE (nanoseconds), checking each record's form. "ready" once
 *	bound and mapped. STALL: stop consuming (and polling) after STALL
 *	frames until SIGUSR1, printing "stalled" then. On POLLERR it reads
 *	every byte of the buffer mapping (the pages must still be there)
 *	and ends with the socket's error. Last line:
 *	"rc_zc: captured= received= dropped= bad_zc= touched= error=" (an
 *	errno name, e.g. ENODEV, or none);
 *	SIGINT/SIGTERM end it early. Exit 0 when COUNT frames came, 3 on a
 *	socket error (error= says which), 1 else
 *   rc_zc try IFINDEX ZC SECONDS Q...
 *	what the caller's privileges get: for each Q a socket (zero-copy if
 *	ZC is 1, a 64 KiB ring) bound to IFINDEX@Q, by index so that it
 *	works where the device has no name (another network namespace).
 *	One line per queue, "q=Q socket=RESULT bind=RESULT" (ok or an errno
 *	name, - when not tried), then "ready", then it holds what it bound
 *	for SECONDS (SIGINT/SIGTERM end it early) and prints
 *	"rc_zc: bound=N". Exit 0
 *   rc_zc splice DEV Q
 *	bind zero-copy to DEV@Q, map the buffers and try to keep their pages
 *	beyond the mapping: vmsplice() them into a pipe ("#" lines say
 *	whether process_vm_readv(), another get_user_pages() route, and
 *	/proc/self/mem read them; a write there fails the run). Copy the
 *	buffers, unmap, close; print "closed" and wait for
 *	SIGUSR1 (traffic sent meanwhile), then
 *	read the pipe and compare each buffer with the copy. Last line:
 *	"rc_zc: vmsplice= spliced= changed= marked=": changed buffers are
 *	frames written after the close (marked: with rcgen's magic).
 *	Exit 0 when none changed and nothing was written, 1 else
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include "rc_util.h"

static int failures;

#define report(name, ok, ...)	(failures += !rc_report(name, ok, __VA_ARGS__))

/* A socket with RINGCAP_ZEROCOPY set to zc, bound; fd or -errno. */
static int zc_socket(int ifindex, unsigned int q, int zc, int *bind_err)
{
	int fd = rc_socket(), err;

	*bind_err = 0;
	if (fd < 0)
		return fd;
	if (zc) {
		err = rc_setopt(fd, RINGCAP_ZEROCOPY, 1);
		if (err) {
			close(fd);
			return err;
		}
	}
	*bind_err = rc_bind(fd, ifindex, q);
	return fd;
}

struct zc_map {
	struct rc_ring r;
	const uint8_t *bufs;
	uint64_t size;
	uint32_t buf_size, nr_bufs;
};

static int zc_map(struct zc_map *m, int fd)
{
	void *p;
	int err;

	memset(m, 0, sizeof(*m));
	err = rc_map(&m->r, fd);
	if (err)
		return err;
	m->size = m->r.hdr->zc_mmap_size;
	m->buf_size = m->r.hdr->zc_buf_size;
	m->nr_bufs = m->r.hdr->zc_nr_bufs;
	p = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd,
		 m->r.hdr->zc_mmap_offset);
	if (p == MAP_FAILED)
		return -errno;
	m->bufs = p;
	return 0;
}

/*
 * RING_INFO gives the area the header describes, and a program built with
 * the first, smaller structure gets that one, the rest of its buffer
 * untouched.
 */
static void ring_info(int fd, const struct zc_map *m)
{
	struct ringcap_ring_info info;
	unsigned char old[RINGCAP_RING_INFO_SIZE_V1 + 8];
	socklen_t len = sizeof(info);
	int err;

	memset(&info, 0, sizeof(info));
	err = getsockopt(fd, SOL_RINGCAP, RINGCAP_RING_INFO, &info, &len) ?
	      -errno : 0;
	report("ring_info", !err && len == sizeof(info) &&
	       info.zc_mmap_offset == m->r.hdr->zc_mmap_offset &&
	       info.zc_mmap_size == m->size && info.zc_buf_size == m->buf_size &&
	       info.zc_nr_bufs == m->nr_bufs,
	       "RING_INFO (%s, %u bytes): zc_mmap_offset %llu, %u buffers of %u bytes, %llu",
	       strerror(-err), (unsigned int)len,
	       (unsigned long long)info.zc_mmap_offset, info.zc_nr_bufs,
	       info.zc_buf_size, (unsigned long long)info.zc_mmap_size);
	memset(old, 0xa5, sizeof(old));
	len = RINGCAP_RING_INFO_SIZE_V1;
	err = getsockopt(fd, SOL_RINGCAP, RINGCAP_RING_INFO, old, &len) ?
	      -errno : 0;
	report("ring_info_v1", !err && len == RINGCAP_RING_INFO_SIZE_V1 &&
	       !memcmp(old, &info, len) &&
	       old[RINGCAP_RING_INFO_SIZE_V1] == 0xa5,
	       "RING_INFO into the first structure (%u bytes): %s, %u written",
	       RINGCAP_RING_INFO_SIZE_V1, strerror(-err), (unsigned int)len);
}

static int refuse(const char *dev, unsigned int q)
{
	int ifindex = if_nametoindex(dev), fd, fd2, fd3, be, be2, err, st;
	struct ringcap_path path;
	socklen_t len = sizeof(path);
	struct zc_map m;
	uint32_t v;
	pid_t pid;
	void *p;

	if (!ifindex) {
		printf("setup: FAIL (no device %s)\n", dev);
		return 1;
	}

	fd = zc_socket(ifindex, RINGCAP_QUEUE_ANY, 1, &be);
	report("all_queues", be == -EINVAL, "zero-copy bind to all queues: %s, want EINVAL",
	       strerror(-be));
	close(fd);

	fd = rc_socket();
	err = rc_setopt(fd, RINGCAP_ZEROCOPY, 2);
	report("bad_value", err == -EINVAL, "RINGCAP_ZEROCOPY=2: %s, want EINVAL", strerror(-err));
	close(fd);

	fd = zc_socket(1, 0, 1, &be);
	report("no_support", be == -EOPNOTSUPP,
	       "zero-copy bind to lo: %s, want EOPNOTSUPP", strerror(-be));
	close(fd);

	fd = rc_socket();
	{
		struct ringcap_cluster cl = { .id = 7, .policy = RINGCAP_CLUSTER_FLOW };

		setsockopt(fd, SOL_RINGCAP, RINGCAP_CLUSTER, &cl, sizeof(cl));
	}
	rc_setopt(fd, RINGCAP_ZEROCOPY, 1);
	be = rc_bind(fd, ifindex, q);
	report("cluster", be == -EINVAL, "zero-copy socket in a cluster: %s, want EINVAL",
	       strerror(-be));
	close(fd);

	fd = zc_socket(ifindex, q, 1, &be);
	if (fd < 0 || be) {
		report("first", 0, "zero-copy bind to %s@%u: %s", dev, q,
		       strerror(-(fd < 0 ? fd : be)));
		return 1;
	}
	getsockopt(fd, SOL_RINGCAP, RINGCAP_PATH, &path, &len);
	err = zc_map(&m, fd);
	report("first", !err && path.path == RINGCAP_PATH_ZEROCOPY &&
	       m.buf_size && m.nr_bufs &&
	       m.size == (uint64_t)m.buf_size * m.nr_bufs,
	       "bound and mapped: %s, path %u, %u buffers of %u bytes, %llu mapped",
	       strerror(-err), path.path, m.nr_bufs, m.buf_size,
	       (unsigned long long)m.size);
	err = rc_getopt_u32(fd, RINGCAP_ZEROCOPY, &v);
	report("getsockopt", !err && v == 1, "RINGCAP_ZEROCOPY reads %u (%s)", v, strerror(-err));
	ring_info(fd, &m);
	err = rc_setopt(fd, RINGCAP_ZEROCOPY, 0);
	report("after_bind", err == -EBUSY, "RINGCAP_ZEROCOPY after bind: %s, want EBUSY",
	       strerror(-err));

	fd2 = zc_socket(ifindex, q, 1, &be);
	report("second", be == -EBUSY, "a second zero-copy socket on %s@%u: %s, want EBUSY",
	       dev, q, strerror(-be));
	close(fd2);
	fd2 = zc_socket(ifindex, q, 0, &be);
	report("copy_same_queue", be == -EBUSY,
	       "a copy-mode socket on %s@%u: %s, want EBUSY", dev, q, strerror(-be));
	close(fd2);
	fd2 = zc_socket(ifindex, RINGCAP_QUEUE_ANY, 0, &be);
	report("copy_all_queues", !be,
	       "a copy-mode socket on all queues of %s binds: %s", dev, strerror(-be));
	fd3 = zc_socket(ifindex, !q, 1, &be2);
	report("other_queue", !be2, "zero-copy on the other queue %s@%u: %s", dev, !q,
	       strerror(-be2));
	close(fd3);
	close(fd2);

	p = mmap(NULL, m.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 m.r.hdr->zc_mmap_offset);
	report("map_write", p == MAP_FAILED && errno == EACCES,
	       "mapping the buffers writable: %s, want EACCES",
	       p == MAP_FAILED ? strerror(errno) : "mapped");
	err = mprotect((void *)m.bufs, m.size, PROT_READ | PROT_WRITE) ? -errno : 0;
	report("mprotect_write", err == -EACCES,
	       "mprotect(PROT_WRITE) on the buffers: %s, want EACCES", strerror(-err));

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		*(volatile uint8_t *)m.bufs = 1;
		_exit(0);
	}
	waitpid(pid, &st, 0);
	report("write_segv", WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	       "a child writing to the buffers: %s %d",
	       WIFSIGNALED(st) ? "killed by signal" : "exited", WIFSIGNALED(st) ?
	       WTERMSIG(st) : WEXITSTATUS(st));
	/*
	 * The writer died; the socket and the mapping here still work: the
	 * read below would kill us if the mapping were gone.
	 */
	(void)*(volatile const uint8_t *)&m.bufs[m.size - 1];
	len = sizeof(path);
	err = getsockopt(fd, SOL_RINGCAP, RINGCAP_PATH, &path, &len) ? -errno : 0;
	report("after_segv", !err && path.path == RINGCAP_PATH_ZEROCOPY,
	       "the socket still zero-copy, its mapping readable: %s",
	       strerror(-err));
	munmap((void *)m.bufs, m.size);
	rc_unmap(&m.r);
	close(fd);

	/* Closed, the queue is free again for anyone. */
	fd = zc_socket(ifindex, q, 0, &be);
	report("after_close", !be, "a copy-mode socket on %s@%u after close: %s", dev, q,
	       strerror(-be));
	close(fd);
	return failures ? 1 : 0;
}

static volatile sig_atomic_t resumed, stop;

static void on_usr1(int sig)
{
	resumed = 1;
}

static void on_stop(int sig)
{
	stop = 1;
}

static void pcap_header(FILE *f)
{
	uint32_t h[6] = { 0xa1b23c4d, 0x00040002, 0, 0, 65535, 1 };

	fwrite(h, sizeof(h), 1, f);
}

static void pcap_record(FILE *f, const struct ringcap_rec *rec,
			const uint8_t *data)
{
	uint32_t h[4] = {
		(uint32_t)(rec->tstamp_ns / 1000000000ull),
		(uint32_t)(rec->tstamp_ns % 1000000000ull),
		rec->caplen, rec->wire_len,
	};

	fwrite(h, sizeof(h), 1, f);
	fwrite(data, rec->caplen, 1, f);
}

/* Read every byte of the mapping: the pages stay after the device goes. */
static uint64_t touch_all(const struct zc_map *m)
{
	volatile uint8_t sum = 0;
	uint64_t i;

	for (i = 0; i < m->size; i++)
		sum += m->bufs[i];
	(void)sum;
	return m->size;
}

/*
 * A zero-copy socket on DEV@Q with its buffers mapped into m, or -1 after
 * saying why.
 */
static int zc_open(const char *dev, unsigned int q, struct zc_map *m)
{
	int ifindex = if_nametoindex(dev), fd, be, err;

	fd = zc_socket(ifindex, q, 1, &be);
	if (!ifindex || fd < 0 || be) {
		printf("rc_zc: cannot bind zero-copy to %s@%u: %s\n", dev, q,
		       strerror(-(fd < 0 ? fd : be ? be : ENODEV)));
		return -1;
	}
	err = zc_map(m, fd);
	if (err) {
		printf("rc_zc: cannot map: %s\n", strerror(-err));
		return -1;
	}
	return fd;
}

static int cap(const char *dev, unsigned int q, const char *file,
	       unsigned long count, double seconds, unsigned long stall)
{
	int ifindex = if_nametoindex(dev), fd, sockerr = 0;
	uint64_t deadline, touched = 0;
	unsigned long got = 0, bad = 0;
	struct ringcap_stats st = { 0 };
	struct zc_map m;
	FILE *f;

	signal(SIGUSR1, on_usr1);
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	fd = zc_open(dev, q, &m);
	if (fd < 0)
		return 1;
	f = fopen(file, "w");
	if (!f) {
		printf("rc_zc: %s: %s\n", file, strerror(errno));
		return 1;
	}
	pcap_header(f);
	printf("ready\n");
	fflush(stdout);
	deadline = rc_now_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);

	while (got < count && !stop && rc_now_ns(CLOCK_MONOTONIC) < deadline) {
		uint64_t prod = __atomic_load_n(&m.r.hdr->producer,
						__ATOMIC_ACQUIRE);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (stall && got >= stall && !resumed) {
			printf("stalled\n");
			fflush(stdout);
			while (!resumed && !stop &&
			       rc_now_ns(CLOCK_MONOTONIC) < deadline)
				rc_sleep_us(10000);
			stall = 0;
			continue;
		}
		while (m.r.cons != prod && got < count &&
		       !(stall && got >= stall && !resumed)) {
			uint32_t off = m.r.cons & (m.r.info.data_size - 1);
			const struct ringcap_rec *rec =
				(const void *)(m.r.data + off);

			m.r.cons += rec->rec_len;
			if (rec->flags & RINGCAP_REC_PAD)
				continue;
			if (!(rec->flags & RINGCAP_REC_ZC) ||
			    rec->rec_len != sizeof(*rec) ||
			    rec->zc_offset % m.buf_size ||
			    (uint64_t)rec->zc_offset + rec->caplen > m.size ||
			    rec->queue != q || rec->ifindex != ifindex) {
				bad++;
				continue;
			}
			pcap_record(f, rec, m.bufs + rec->zc_offset);
			got++;
		}
		rc_release(&m.r);
		if (got >= count || (stall && got >= stall && !resumed))
			continue;
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			break;
		if (pfd.revents & POLLERR) {
			socklen_t len = sizeof(sockerr);

			/* Drain first: frames before the error are ours. */
			prod = __atomic_load_n(&m.r.hdr->producer,
					       __ATOMIC_ACQUIRE);
			if (m.r.cons != prod)
				continue;
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &sockerr, &len);
			touched = touch_all(&m);
			break;
		}
	}
	fclose(f);
	rc_stats(fd, &st);
	printf("rc_zc: captured=%lu received=%llu dropped=%llu bad_zc=%lu touched=%llu error=%s\n",
	       got, (unsigned long long)st.received,
	       (unsigned long long)st.dropped, bad,
	       (unsigned long long)touched,
	       sockerr ? strerrorname_np(sockerr) : "none");
	munmap((void *)m.bufs, m.size);
	rc_unmap(&m.r);
	close(fd);
	if (sockerr)
		return 3;
	return got == count && !bad ? 0 : 1;
}

static const char *errname(int err)
{
	return err ? strerrorname_np(-err) : "ok";
}

static int try(int ifindex, int zc, double seconds, int nq, char **qs)
{
	uint64_t deadline;
	int i, fd, err, bound = 0;

	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	for (i = 0; i < nq; i++) {
		unsigned int q = strtoul(qs[i], NULL, 0);

		fd = rc_socket();
		if (fd < 0) {
			printf("q=%u socket=%s bind=-\n", q, errname(fd));
			continue;
		}
		err = rc_setopt(fd, RINGCAP_RING_SIZE, 64 << 10);
		if (!err && zc)
			err = rc_setopt(fd, RINGCAP_ZEROCOPY, 1);
		if (!err)
			err = rc_bind(fd, ifindex, q);
		printf("q=%u socket=ok bind=%s\n", q, errname(err));
		if (err)
			close(fd);	/* the others stay open until we exit */
		else
			bound++;
	}
	printf("ready\n");
	fflush(stdout);
	deadline = rc_now_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
	while (bound && !stop && rc_now_ns(CLOCK_MONOTONIC) < deadline)
		rc_sleep_us(10000);
	printf("rc_zc: bound=%d\n", bound);
	return 0;
}

/* rcgen's payload magic ("RCG1", big-endian) at its offset in the frame. */
static int rcgen_frame(const uint8_t *b)
{
	return b[42] == 'R' && b[43] == 'C' && b[44] == 'G' && b[45] == '1';
}

static int splice_close(const char *dev, unsigned int q)
{
	int fd, pfd[2], verr = 0, verr2;
	uint64_t spliced = 0, got = 0, changed = 0, marked = 0, i;
	uint8_t *copy, *back;
	struct iovec iov;
	struct zc_map m;
	sigset_t set;
	int sig;
	ssize_t n;

	fd = zc_open(dev, q, &m);
	if (fd < 0)
		return 1;
	copy = malloc(m.size);
	back = calloc(1, m.size);
	if (!copy || !back || pipe2(pfd, O_NONBLOCK)) {
		printf("rc_zc: no memory or pipe: %s\n", strerror(errno));
		return 1;
	}
	/* Room for every page: root may raise a pipe past pipe-max-size. */
	if (fcntl(pfd[1], F_SETPIPE_SZ, (int)m.size) < 0)
		printf("# F_SETPIPE_SZ %llu: %s\n", (unsigned long long)m.size,
		       strerror(errno));
	iov.iov_base = (void *)m.bufs;
	iov.iov_len = m.size;
	n = vmsplice(pfd[1], &iov, 1, 0);
	if (n < 0)
		verr = errno;
	else
		spliced = n;
	{
		/* Another get_user_pages() route, for the report only. */
		struct iovec l = { back, m.size }, r = { (void *)m.bufs, m.size };

		int mem = open("/proc/self/mem", O_RDWR);
		uint8_t c = 0;

		n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
		printf("# process_vm_readv of the buffers: %s\n",
		       n < 0 ? strerror(errno) : "read");
		/* A debugger's way: reading may work, writing never. */
		n = pread(mem, &c, 1, (off_t)(uintptr_t)m.bufs);
		printf("# /proc/self/mem read: %s\n",
		       n == 1 ? "read" : strerror(errno));
		n = pwrite(mem, &c, 1, (off_t)(uintptr_t)m.bufs);
		printf("# /proc/self/mem write: %s\n",
		       n == 1 ? "WRITTEN" : strerror(errno));
		if (n == 1)
			printf("rc_zc: FAIL: /proc/self/mem wrote to the buffers\n");
		verr2 = n == 1;
		close(mem);
	}
	memcpy(copy, m.bufs, m.size);
	munmap((void *)m.bufs, m.size);
	rc_unmap(&m.r);
	close(fd);

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("closed\n");
	fflush(stdout);
	sigwait(&set, &sig);

	memset(back, 0, m.size);
	while (got < spliced) {
		n = read(pfd[0], back + got, spliced - got);
		if (n <= 0)
			break;
		got += n;
	}
	for (i = 0; i + m.buf_size <= got; i += m.buf_size) {
		if (!memcmp(back + i, copy + i, m.buf_size))
			continue;
		changed++;
		marked += rcgen_frame(back + i);
	}
	printf("rc_zc: vmsplice=%s spliced=%llu changed=%llu marked=%llu\n",
	       verr ? strerrorname_np(verr) : "ok",
	       (unsigned long long)got, (unsigned long long)changed,
	       (unsigned long long)marked);
	return changed || verr2 ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "refuse"))
		return refuse(argv[2], atoi(argv[3]));
	if (argc >= 6 && argc <= 8 && !strcmp(argv[1], "cap"))
		return cap(argv[2], atoi(argv[3]), argv[4], strtoul(argv[5], NULL, 0),
			   argc > 6 ? atof(argv[6]) : 60,
			   argc > 7 ? strtoul(argv[7], NULL, 0) : 0);
	if (argc >= 6 && !strcmp(argv[1], "try"))
		return try(atoi(argv[2]), atoi(argv[3]), atof(argv[4]),
			   argc - 5, argv + 5);
	if (argc == 4 && !strcmp(argv[1], "splice"))
		return splice_close(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: rc_zc refuse DEV Q | rc_zc cap DEV Q FILE COUNT [SECONDS] [STALL] |\n"
		"       rc_zc try IFINDEX ZC SECONDS Q... | rc_zc splice DEV Q\n");
	return 2;
}
