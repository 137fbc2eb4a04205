// SPDX-License-Identifier: GPL-2.0
/*
 * rcfuzz: zero-copy sockets, one session per call.
 *
 * Worker 0 binds to a queue of one of the guest's 82574Ls (rce0-rce2 on
 * ringcap_e1000e, which fuzz.sh's driver side takes down, unbinds and
 * reloads meanwhile); the others, and worker 0 now and then, try a veth
 * or lo, which have no zero-copy. RINGCAP_ZEROCOPY is set right or
 * wrongly, with or without RINGCAP_CAPTURE and a cluster, to a queue, all
 * queues or one past the last. A socket that binds has its ring mapped and
 * its buffers mapped with every protection and flag, then a reader thread
 * walks the records and reads the frames from the buffer mapping while
 * the main thread races it: it closes the socket under the reader (close
 * under read), or a second thread polls, reads STATS and maps again while
 * the main thread closes (release races), or the device goes down and up.
 *
 * Checked (uapi/linux/ringcap.h, "Zero-copy receive"): bind's errno; PATH
 * says zerocopy; the header's zc_* fields describe a mapping that fits;
 * the buffer mapping is read-only (PROT_WRITE EACCES, mprotect refused, a
 * write SIGSEGV in a child); every record is a REC_ZC one of the bound
 * queue whose frame lies inside the buffer mapping; the mappings stay
 * readable after the socket and the device are gone (no SIGBUS, SIGSEGV:
 * the worker would die of it, and the run fails).
 */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include "fuzz.h"
#include "rc_util.h"

struct zc_sess {
	int fd;			/* -1 once the main thread closed it */
	int ifindex;
	unsigned int queue;
	struct ringcap_ring_hdr *hdr;
	size_t ring_len;
	const uint8_t *bufs;	/* the buffer mapping, read-only */
	size_t bufs_len;
	uint64_t zc_size;	/* hdr->zc_mmap_size at bind */
	volatile int stop;
	uint64_t cons;
	unsigned long records, bytes;
};

/* The reader: records, and the frames in the buffer mapping. */
static void *zc_reader(void *arg)
{
	struct zc_sess *z = arg;
	uint32_t size = z->hdr->data_size, off;
	const struct ringcap_rec *rec;
	const uint8_t *data = (const uint8_t *)z->hdr + FZ_PAGE;
	volatile uint8_t sink = 0;
	uint64_t prod;
	uint32_t i;

	z->cons = __atomic_load_n(&z->hdr->consumer, __ATOMIC_RELAXED);
	while (!z->stop && !fz->stop) {
		prod = __atomic_load_n(&z->hdr->producer, __ATOMIC_ACQUIRE);
		if (!fz_check(!(prod & 7) && prod >= z->cons &&
			      prod - z->cons <= size,
			      "zero-copy producer %llu, consumer %llu, data_size %u",
			      (unsigned long long)prod,
			      (unsigned long long)z->cons, size))
			break;
		while (z->cons < prod && !z->stop) {
			off = z->cons & (size - 1);
			rec = (const void *)(data + off);
			if (!fz_check(rec->rec_len >= 8 && !(rec->rec_len & 7) &&
				      rec->rec_len <= size - off,
				      "zero-copy record at %u: rec_len %u", off,
				      rec->rec_len))
				return NULL;
			if (!(rec->flags & RINGCAP_REC_PAD)) {
				fz_check((rec->flags & RINGCAP_REC_ZC) &&
					 rec->rec_len == sizeof(*rec) &&
					 rec->caplen <= rec->wire_len &&
					 rec->queue == z->queue &&
					 rec->ifindex == z->ifindex &&
					 (uint64_t)rec->zc_offset + rec->caplen <=
					 z->zc_size,
					 "zero-copy record: flags 0x%x rec_len %u caplen %u wire_len %u queue %u (bound %u) ifindex %d (%d) zc_offset %u of %llu",
					 rec->flags, rec->rec_len, rec->caplen,
					 rec->wire_len, rec->queue, z->queue,
					 rec->ifindex, z->ifindex, rec->zc_offset,
					 (unsigned long long)z->zc_size);
				/* the frame, from the NIC's own buffer */
				if (z->bufs && (uint64_t)rec->zc_offset +
					       rec->caplen <= z->bufs_len)
					for (i = 0; i < rec->caplen; i += 61)
						sink ^= z->bufs[rec->zc_offset + i];
				z->records++;
				z->bytes += rec->caplen;
			}
			z->cons += rec->rec_len;
		}
		/* Release: done with those buffers; the driver may re-arm. */
		__atomic_store_n(&z->hdr->consumer, z->cons, __ATOMIC_RELEASE);
		rc_sleep_us(200);
	}
	(void)sink;
	return NULL;
}

/*
 * Calls on the socket's descriptor while the main thread closes it: the
 * last reference may go at the end of a call in flight here, so the
 * socket is released under poll, getsockopt or mmap. Once closed: EBADF
 * (POLLNVAL). Nothing else opens descriptors meanwhile, so the number is
 * not reused.
 */
struct zc_racer {
	int fd;
	struct zc_sess *z;
	int calls;
};

static void *zc_race(void *arg)
{
	struct zc_racer *r = arg;
	struct ringcap_stats st;
	struct pollfd pfd;
	void *p;
	int i, err;

	for (i = 0; i < r->calls && !fz->stop; i++) {
		switch (i % 3) {
		case 0:
			pfd = (struct pollfd){ .fd = r->fd, .events = POLLIN };
			err = poll(&pfd, 1, 1) < 0 ? errno : 0;
			FZ_EXPECT(OP_ZC_RACE, err, ("poll racing close"), 0);
			break;
		case 1:
			err = -rc_stats(r->fd, &st);
			FZ_EXPECT(OP_ZC_RACE, err, ("STATS racing close"), 0, EBADF);
			break;
		default:
			p = mmap(NULL, r->z->zc_size, PROT_READ, MAP_SHARED, r->fd,
				 RINGCAP_ZC_MMAP_OFFSET);
			err = p == MAP_FAILED ? errno : 0;
			FZ_EXPECT(OP_ZC_RACE, err, ("zero-copy mmap racing close"), 0,
				  EBADF, ENODEV, ENOMEM);
			if (!err)
				munmap(p, r->z->zc_size);
		}
	}
	return NULL;
}

/* A child writes into the buffer mapping: it must die of it. */
static void write_dies(const uint8_t *bufs)
{
	int st = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		*(volatile uint8_t *)bufs = 0x5a;
		_exit(0);
	}
	if (pid < 0)
		return;
	fz_count(OP_FORK, waitpid(pid, &st, 0) != pid);
	fz_check(WIFSIGNALED(st) && (WTERMSIG(st) == SIGSEGV ||
				     WTERMSIG(st) == SIGBUS),
		 "a write into the zero-copy buffers did not kill the writer (status 0x%x)",
		 st);
}

/* Map the buffers as asked; a valid read-only mapping goes into z. */
static void zc_map(struct fz_worker *w, struct zc_sess *z)
{
	int prot = PROT_READ, flags = MAP_SHARED, r = fz_rnd(w, 100), err;
	size_t len = z->zc_size;
	off_t off = RINGCAP_ZC_MMAP_OFFSET;
	bool keep = false;
	void *p, *q;

	if (r < 12)
		prot = PROT_READ | PROT_WRITE;
	else if (r < 16)
		prot = PROT_WRITE;
	else if (r < 22)
		prot = PROT_READ | PROT_EXEC;
	else if (r < 26)
		prot = PROT_NONE;
	else if (r < 34)
		flags = MAP_PRIVATE;
	else if (r < 38)
		flags = MAP_PRIVATE, prot = PROT_READ | PROT_WRITE;
	else if (r < 46)
		len = (size_t[]){ len - FZ_PAGE, len + FZ_PAGE, FZ_PAGE }[fz_rnd(w, 3)];
	else if (r < 50)
		off += FZ_PAGE;
	else if (r < 58)
		flags |= fz_chance(w, 50) ? MAP_POPULATE : MAP_LOCKED;
	else
		keep = !z->bufs;
	if (!len)
		len = FZ_PAGE;
	p = mmap(NULL, len, prot, flags, z->fd, off);
	err = p == MAP_FAILED ? errno : 0;
	/* ENODEV throughout: the device may have gone (driver side) */
	if (prot & PROT_WRITE && !(flags & MAP_PRIVATE))
		FZ_EXPECT(OP_ZC_MMAP, err, ("zero-copy mmap(prot %d)", prot),
			  EACCES, ENODEV);
	else if (prot & PROT_WRITE)
		FZ_EXPECT(OP_ZC_MMAP, err, ("zero-copy mmap(MAP_PRIVATE, write)"),
			  EACCES, EINVAL, ENODEV);
	else if (len != z->zc_size)
		FZ_EXPECT(OP_ZC_MMAP, err, ("zero-copy mmap(len %zu of %llu)", len,
					     (unsigned long long)z->zc_size),
			  EINVAL, ENODEV);
	else if (off != RINGCAP_ZC_MMAP_OFFSET)
		/* no such offset: the receive ring's rules, a wrong length */
		FZ_EXPECT(OP_ZC_MMAP, err, ("zero-copy mmap(offset + 1 page)"),
			  EINVAL);
	else if (flags & MAP_PRIVATE)
		FZ_EXPECT(OP_ZC_MMAP, err, ("zero-copy mmap(MAP_PRIVATE)"), 0,
			  EINVAL, EACCES, ENODEV);
	else if (prot & PROT_EXEC)
		FZ_EXPECT(OP_ZC_MMAP, err, ("zero-copy mmap(PROT_EXEC)"), 0,
			  EACCES, EPERM, ENODEV);
	else if (flags & MAP_LOCKED)
		FZ_EXPECT(OP_ZC_MMAP, err, ("zero-copy mmap(MAP_LOCKED)"), 0,
			  EAGAIN, ENOMEM, EPERM, ENODEV);
	else
		FZ_EXPECT(OP_ZC_MMAP, err, ("zero-copy mmap(prot %d)", prot), 0,
			  ENODEV);
	if (err)
		return;
	/* Never writable: mprotect cannot add what mmap refused. */
	err = mprotect(p, len, PROT_READ | PROT_WRITE) ? errno : 0;
	FZ_EXPECT(OP_ZC_MMAP, err, ("mprotect(PROT_WRITE) of the zero-copy buffers"),
		  EACCES);
	/* nor grow */
	q = mremap(p, len, len + FZ_PAGE, 0);
	err = q == MAP_FAILED ? errno : 0;
	FZ_EXPECT(OP_ZC_MMAP, err, ("mremap(grow) of the zero-copy buffers"),
		  EFAULT, ENOMEM, EINVAL);
	if (!err)
		munmap(q, len + FZ_PAGE);
	else if (keep && prot == PROT_READ && flags == MAP_SHARED) {
		z->bufs = p;
		z->bufs_len = len;
		if (fz_chance(w, 10))
			write_dies(z->bufs);
		return;
	}
	if (!err)
		return;
	munmap(p, len);
}

/*
 * One of rce0-rce2 and a queue, mostly one no socket is bound to
 * (/proc/net/ringcap): worker 0's copy-mode sockets, and its fork
 * children's copies of them, hold some. 0 if the NIC is not there.
 */
static int nic_queue(struct fz_worker *w, unsigned int *queue)
{
	bool used[3][2] = { { false } };
	char line[256], dev[32], q[16], name[IFNAMSIZ];
	int nic = fz_rnd(w, 3), i, n = 0, pick;
	FILE *f;

	*queue = fz_rnd(w, 2);
	f = fopen("/proc/net/ringcap", "re");
	if (f && fz_chance(w, 85)) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%*s %*s %31s %15s", dev, q) == 2 &&
			    !strncmp(dev, "rce", 3) && dev[3] >= '0' &&
			    dev[3] <= '2' && !dev[4] &&
			    (q[0] == '0' || q[0] == '1') && !q[1])
				used[dev[3] - '0'][q[0] - '0'] = true;
		for (i = 0; i < 6; i++)
			n += !used[i / 2][i % 2];
		pick = n ? (int)fz_rnd(w, n) : -1;
		for (i = 0; i < 6 && pick >= 0; i++)
			if (!used[i / 2][i % 2] && !pick--) {
				nic = i / 2;
				*queue = i % 2;
			}
	}
	if (f)
		fclose(f);
	snprintf(name, sizeof(name), "rce%d", nic);
	return if_nametoindex(name);
}

/* A device for the session, and whether it can be zero-copy. */
static int zc_device(struct fz_worker *w, char *a, char *b, bool *aware,
		     unsigned int *queue)
{
	int idx;

	*aware = false;
	a[0] = b[0] = '\0';
	if (w->init_netns && fz_chance(w, 85)) {
		idx = nic_queue(w, queue);
		if (idx) {
			*aware = true;
			return idx;
		}
	}
	if (fz_chance(w, 30))
		return 1;
	idx = fz_session_veth(w, a, b);
	return idx > 0 ? idx : 1;
}

static void zerocopy_session(struct fz_worker *w)
{
	struct ringcap_cluster cl = { .id = 0x5a000000u | fz_rnd(w, 1000) };
	uint32_t zcv = fz_chance(w, 90) ? 1 : 2, capture = !fz_chance(w, 8);
	bool cluster = fz_chance(w, 6), aware, up = true;
	struct zc_racer racer = { .fd = -1 };
	struct ringcap_ring_info info;
	struct ringcap_path path;
	pthread_t rd, rc;
	struct zc_sess z;
	char a[IFNAMSIZ], b[IFNAMSIZ];
	int err, set[12], n = 0, r, i, race, tries = 0;
	bool have_rd = false, have_rc = false;
	socklen_t len;

	memset(&z, 0, sizeof(z));
	z.ifindex = zc_device(w, a, b, &aware, &z.queue);
	r = fz_rnd(w, 100);
	if (!aware)
		z.queue = fz_rnd(w, 2);
	if (r >= 80)
		z.queue = r < 88 ? RINGCAP_QUEUE_ANY :
			  r < 96 ? 2 + fz_rnd(w, 4) : fz_rnd(w, 0x10000);
	z.fd = socket(fz_family, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	FZ_EXPECT(OP_ZEROCOPY, z.fd < 0 ? errno : 0, ("socket"), 0, ENOMEM,
		  ENOBUFS);
	if (z.fd < 0)
		goto out_dev;
	fz_count(OP_ZEROCOPY, 0);
	FZ_EXPECT(OP_ZEROCOPY, -rc_setopt(z.fd, RINGCAP_RING_SIZE, 65536),
		  ("RING_SIZE 65536"), 0, EINVAL);
	err = -rc_setopt(z.fd, RINGCAP_ZEROCOPY, zcv);
	fz_count_opt(true, RINGCAP_ZEROCOPY);
	FZ_EXPECTF(OP_ZEROCOPY, err, zcv > 1 ? (int[]){ EINVAL, -1 } : (int[]){ 0, -1 },
		   "ZEROCOPY %u before bind", zcv);
	if (err)
		zcv = 0;
	if (!capture) {
		FZ_EXPECT(OP_ZEROCOPY, -rc_setopt(z.fd, RINGCAP_CAPTURE, 0),
			  ("CAPTURE 0"), 0);
		fz_count_opt(true, RINGCAP_CAPTURE);
	}
	if (cluster) {
		err = setsockopt(z.fd, SOL_RINGCAP, RINGCAP_CLUSTER, &cl,
				 sizeof(cl)) ? errno : 0;
		fz_count_opt(true, RINGCAP_CLUSTER);
		FZ_EXPECT(OP_ZEROCOPY, err, ("CLUSTER before a zero-copy bind"), 0);
	}

again:
	err = -rc_bind(z.fd, z.ifindex, z.queue);
	n = 0;
	/*
	 * The order of bind's checks: the device (ENODEV: gone meanwhile),
	 * the queue against the device's (ERANGE), the ring (ENOMEM,
	 * ENOBUFS), zero-copy that captures nothing (EINVAL); then the
	 * driver's offer (EOPNOTSUPP), all queues or a cluster (EINVAL), the
	 * queue taken (EBUSY), the device down (ENETDOWN).
	 */
	set[n++] = ENOMEM;
	set[n++] = ENOBUFS;
	if (aware)
		set[n++] = ENODEV;
	if (z.queue != RINGCAP_QUEUE_ANY && z.queue)
		set[n++] = ERANGE;
	if (!zcv) {
		set[n++] = 0;
		if (aware && z.queue != RINGCAP_QUEUE_ANY)
			set[n++] = EBUSY;
		if (cluster)
			set[n++] = EEXIST;
	} else if (!capture) {
		set[n++] = EINVAL;
	} else if (!aware) {
		set[n++] = EOPNOTSUPP;
	} else if (z.queue == RINGCAP_QUEUE_ANY || cluster) {
		set[n++] = EINVAL;
	} else {
		set[n++] = 0;
		set[n++] = EBUSY;
		set[n++] = ENETDOWN;
	}
	set[n] = -1;
	FZ_EXPECTF(OP_BIND, err, set,
		   "zero-copy bind (ZEROCOPY %u CAPTURE %u cluster %d) to %d queue %u%s",
		   zcv, capture, cluster, z.ifindex, z.queue,
		   aware ? " (82574L)" : "");
	/*
	 * Copy-mode sockets of worker 0 and its fork children hold queues
	 * of the 82574Ls too (EBUSY), and the driver side takes them down
	 * (ENETDOWN) and away: another NIC or queue, a few times.
	 */
	if (aware && zcv && capture && !cluster && z.queue < 2)
		__atomic_add_fetch(&fz->zc_binds[!err ? 0 : err == EBUSY ? 1 :
				   err == ENETDOWN || err == ENODEV ? 2 : 3],
				   1, __ATOMIC_RELAXED);
	if (aware && zcv && capture && !cluster && ++tries < 4 &&
	    (err == EBUSY || err == ENETDOWN || err == ENODEV)) {
		z.ifindex = nic_queue(w, &z.queue);
		if (z.ifindex)
			goto again;
	}
	if (err || !zcv)
		goto out_close;

	len = sizeof(path);
	err = getsockopt(z.fd, SOL_RINGCAP, RINGCAP_PATH, &path, &len) ? errno : 0;
	fz_count_opt(false, RINGCAP_PATH);
	if (FZ_EXPECT(OP_ZEROCOPY, err, ("PATH"), 0) && !err)
		/* unbound once the driver side took the device away */
		fz_check(path.path == RINGCAP_PATH_ZEROCOPY ||
			 path.path == RINGCAP_PATH_UNBOUND,
			 "PATH of a zero-copy socket reads %u", path.path);
	err = -rc_getopt_u32(z.fd, RINGCAP_ZEROCOPY, &zcv);
	fz_count_opt(false, RINGCAP_ZEROCOPY);
	if (FZ_EXPECT(OP_ZEROCOPY, err, ("getsockopt(ZEROCOPY)"), 0) && !err)
		fz_check(zcv == 1, "ZEROCOPY reads %u after a zero-copy bind", zcv);
	FZ_EXPECT(OP_ZEROCOPY, -rc_setopt(z.fd, RINGCAP_ZEROCOPY, 0),
		  ("ZEROCOPY after bind"), EBUSY);

	len = sizeof(info);
	err = getsockopt(z.fd, SOL_RINGCAP, RINGCAP_RING_INFO, &info, &len) ?
	      errno : 0;
	FZ_EXPECT(OP_ZEROCOPY, err, ("RING_INFO"), 0);
	if (err)
		goto out_close;
	z.hdr = mmap(NULL, info.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		     z.fd, 0);
	FZ_EXPECT(OP_MMAP, z.hdr == MAP_FAILED ? errno : 0,
		  ("mmap a zero-copy socket's ring"), 0, ENOMEM);
	if (z.hdr == MAP_FAILED) {
		z.hdr = NULL;
		goto out_close;
	}
	z.ring_len = info.mmap_size;
	z.zc_size = z.hdr->zc_mmap_size;
	fz_check(z.hdr->zc_mmap_offset == RINGCAP_ZC_MMAP_OFFSET &&
		 z.zc_size && !(z.zc_size % FZ_PAGE) && z.hdr->zc_nr_bufs &&
		 (uint64_t)z.hdr->zc_buf_size * z.hdr->zc_nr_bufs <= z.zc_size,
		 "zero-copy header: zc_mmap_offset 0x%llx zc_mmap_size %llu, %u buffers of %u",
		 (unsigned long long)z.hdr->zc_mmap_offset,
		 (unsigned long long)z.zc_size, z.hdr->zc_nr_bufs,
		 z.hdr->zc_buf_size);
	if (!z.zc_size || z.zc_size % FZ_PAGE)
		goto out_close;
	for (i = fz_rnd(w, 4); i >= 0; i--)
		zc_map(w, &z);

	fz_count(OP_ZC_READ, 0);
	have_rd = !pthread_create(&rd, NULL, zc_reader, &z);
	race = fz_rnd(w, 100);
	if (race < 40) {
		/* a second thread at the socket while the main one closes it */
		racer.fd = z.fd;
		racer.z = &z;
		racer.calls = 3 + fz_rnd(w, 60);
		have_rc = !pthread_create(&rc, NULL, zc_race, &racer);
	} else if (race < 50 && aware) {
		/* the queue's device goes down under the reader, and up */
		fz_count(OP_DEV_FLAP, 0);
		if_indextoname(z.ifindex, a);
		up = !fz_set_updown(w, a, false);
		a[0] = '\0';
	}
	rc_sleep_us(fz_rnd(w, 30000));
	/* close under read: the reader goes on reading what it mapped */
	if (fz_chance(w, 70)) {
		close(z.fd);
		z.fd = -1;
		rc_sleep_us(fz_rnd(w, 5000));
	}
	if (have_rc)
		pthread_join(rc, NULL);
	if (!up) {
		char name[IFNAMSIZ];

		if (if_indextoname(z.ifindex, name))
			fz_set_updown(w, name, true);
	}
	z.stop = 1;
	if (have_rd)
		pthread_join(rd, NULL);
	__atomic_add_fetch(&fz->records, z.records, __ATOMIC_RELAXED);

out_close:
	if (z.fd >= 0)
		close(z.fd);
	/* the mappings outlive the socket, and the device */
	if (z.bufs)
		munmap((void *)z.bufs, z.bufs_len);
	if (z.hdr)
		munmap(z.hdr, z.ring_len);
out_dev:
	if (a[0])
		fz_nl_del(a);
}

/*
 * Worker 0 has the 82574Ls in its initial netns (gen 0); setns and
 * unshare may have taken it elsewhere: the session goes back there.
 */
void fz_op_zerocopy(struct fz_worker *w)
{
	int was = w->init_netns ? fz_session_netns(w, 0) : w->gen;

	zerocopy_session(w);
	fz_session_netns(w, was);
}
