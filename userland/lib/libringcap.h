/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libringcap: a small C library over the ringcap socket ABI
 * (include/uapi/linux/ringcap.h).
 *
 * Typical use:
 *
 *	struct ringcap *rc = rcap_open();
 *	rcap_set_wakeup(rc, 64, 1000);		// optional
 *	rcap_set_zerocopy(rc, 1);			// optional
 *	rcap_bind_spec(rc, "eth0@1");		// or "eth0" for all queues
 *	rcap_map(rc);				// mmap + ABI check
 *	for (;;) {
 *		struct ringcap_pkt pkts[64];
 *		int n = rcap_recv_batch(rc, pkts, 64);	// no copy
 *		if (n == 0) { rcap_wait(rc, -1); continue; }
 *		...use pkts[i].rec / pkts[i].data...
 *		rcap_release(rc);			// hand the space back
 *	}
 *	rcap_close(rc);
 *
 * Wait with rcap_wait() (or poll() the fd) whenever recv_batch finds
 * nothing: in zero-copy mode that is what makes the driver fetch new
 * frames at all (see rcap_set_zerocopy()).
 *
 * Sending, through a transmit ring (see "Transmit ring" below):
 *
 *	struct ringcap *rc = rcap_open();
 *	rcap_set_capture(rc, 0);			// transmit only
 *	rcap_set_tx_ring(rc, 4 << 20);		// before bind
 *	rcap_bind(rc, "eth0", -1);
 *	rcap_map(rc);				// maps both rings
 *	for (each frame) {
 *		while (rcap_tx_put(rc, frame, len)) {	// a copy
 *			if (errno != EAGAIN) fail;
 *			rcap_tx_wait(rc, 100);	// sends, waits for room
 *		}
 *		if (++n % 64 == 0) rcap_tx_flush(rc);	// sends
 *	}
 *	while (rcap_tx_flush(rc) == 1)		// until all is out
 *		rcap_tx_wait(rc, 100);
 *	rcap_close(rc);
 *
 * Every function that can fail returns -1 (or NULL) with errno set, and
 * leaves a human-readable reason in rcap_errmsg(rc) (or, for
 * rcap_open(), in errno only).
 */
#ifndef LIBRINGCAP_H
#define LIBRINGCAP_H

#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>
#include <linux/ringcap.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ringcap;

/*
 * One frame, pointing into the mapped ring (valid until rcap_release).
 * data is where the frame is: right after rec in copy mode, in the NIC's
 * buffer (read-only) when rec->flags has RINGCAP_REC_ZC. Use data, never
 * rec + 1.
 */
struct ringcap_pkt {
	const struct ringcap_rec *rec;
	const uint8_t *data;		/* rec->caplen bytes */
};

/* Live family number from /sys/module/ringcap/parameters/family, or -1. */
int rcap_family(void);

/* Socket with no ring yet. NULL with errno (EAFNOSUPPORT: not loaded). */
struct ringcap *rcap_open(void);
void rcap_close(struct ringcap *rc);
int rcap_fd(const struct ringcap *rc);
const char *rcap_errmsg(const struct ringcap *rc);

/* Options; see the ABI header for ranges. Ring size and promisc before bind. */
int rcap_set_ring_size(struct ringcap *rc, uint32_t bytes);
int rcap_get_ring_size(struct ringcap *rc, uint32_t *bytes);
/* At most RINGCAP_SNAPLEN_FOR_RING(ring size): EINVAL beyond. */
int rcap_set_snaplen(struct ringcap *rc, uint32_t snaplen);
int rcap_set_promisc(struct ringcap *rc, int on);
/*
 * Zero-copy receive (on != 0), before bind: the socket takes one RX queue
 * of a device whose driver offers it (ringcap_e1000e) for itself, and
 * reads frames in the NIC's own receive buffers, which rcap_map() maps
 * read-only next to the ring. rcap_bind() must then name one queue
 * (DEV@Q); it fails with EOPNOTSUPP on other drivers, EINVAL for all
 * queues or with a cluster, EBUSY when another socket has the queue,
 * ENETDOWN while the device is down, each with a message that says so.
 *
 * A frame's buffer is the reader's until rcap_release() passes it; a
 * reader that holds them all makes the NIC drop (nic_dropped). The driver
 * fetches new frames and re-arms buffers only when the reader polls and
 * finds nothing to read: call rcap_wait() (or poll() the fd) each time
 * rcap_recv_batch() returns 0, after releasing, or nothing more comes.
 * As the NIC's buffers, not the ring, run out first, rcap_map() lowers
 * a watermark above a quarter of them (hdr->zc_nr_bufs / 4) to that; one
 * set after rcap_map() stands.
 */
int rcap_set_zerocopy(struct ringcap *rc, int on);
/*
 * Gap records (RINGCAP_GAPS), before bind: rcap_recv_batch() then
 * returns, among the frames and in their order, a record that says how
 * many frames were lost since the previous one and why. Since
 * libringcap 1.3.
 */
int rcap_set_gaps(struct ringcap *rc, int on);
/*
 * Whether a record rcap_recv_batch() returned is a gap record: 1, with
 * *gap filled in (fields a kernel's older, shorter record lacks are 0),
 * or 0 for a frame. Since libringcap 1.3.
 */
int rcap_gap(const struct ringcap_pkt *pkt, struct ringcap_gap *gap);
/*
 * A persistent ring (RINGCAP_PERSIST), before bind: the ring stays bound
 * and capturing after rcap_close() or the process's death, and a socket
 * of the same user that binds with the same name to the same device and
 * queue takes it over; rcap_map() then reads from the first frame not
 * released. Implies gap records. Errors (at bind): EDQUOT too many rings
 * for this user (max_persist), EACCES another user's name, EEXIST the
 * name is bound to another device or queue, EBUSY a reader has it.
 * Since libringcap 1.3.
 */
int rcap_set_persist(struct ringcap *rc, const char *name);
/*
 * A per-flow cut-off (RINGCAP_FLOW_CUTOFF), before bind: of each flow,
 * in each direction, only the frames that start within its first @bytes
 * wire bytes are captured; the rest are counted (rcap_stats_sized()
 * cutoff, cutoff_bytes) and, with gap records, reported in them. 0: none.
 * Since libringcap 1.4.
 */
int rcap_set_cutoff(struct ringcap *rc, uint32_t bytes);
/*
 * Delete the unclaimed persistent ring @name of the socket's network
 * namespace (RINGCAP_PERSIST_DELETE): ENOENT, EACCES or EBUSY as the
 * message says. Any socket does, bound or not. Since libringcap 1.3.
 */
int rcap_delete_persist(struct ringcap *rc, const char *name);
/* Either value may be RINGCAP_WAKEUP_KEEP to leave that half unchanged. */
#define RINGCAP_WAKEUP_KEEP	UINT32_MAX
int rcap_set_wakeup(struct ringcap *rc, uint32_t watermark,
		       uint32_t timeout_us);
/*
 * A watermark for readers that want throughput rather than latency: the
 * frames that fill a quarter of a ring of data_size bytes when each keeps
 * min(snaplen, 1518) bytes (snaplen 0: 1518), a full Ethernet frame with
 * a VLAN tag. Each wake-up costs the reader a system call and a context
 * switch, and at 64 frames per wake-up those costs held three readers of
 * one device below AF_PACKET in the bench; an AF_PACKET TPACKET_V3 ring
 * wakes its reader once per block, an eighth of libpcap's default ring.
 * Three quarters of the ring stay free for the reader to wake up in.
 * Larger frames (jumbo, GRO) fill it sooner: a full ring wakes the reader
 * at once, and the timeout bounds how long a frame waits when traffic is
 * slow, so pair it with one.
 */
uint32_t rcap_batch_watermark(uint32_t data_size, uint32_t snaplen);
/*
 * Join cluster id (1..UINT32_MAX) with policy RINGCAP_CLUSTER_FLOW, _RR or
 * _QUEUE, before bind; members share the device's frames (the ABI header
 * says how). bind fails with EEXIST if the cluster exists there with
 * another policy or queue.
 */
int rcap_set_cluster(struct ringcap *rc, uint32_t id, uint32_t policy);
/*
 * Parse "ID" or "ID:POLICY" (POLICY flow, rr or queue; flow when left out;
 * ID 1..4294967295); "+span" after the policy (as "7:flow+span") sets
 * RINGCAP_CLUSTER_SPAN, a cluster whose members may bind to different
 * devices, and "+inner" after flow (as "7:flow+inner" or
 * "7:flow+span+inner") RINGCAP_CLUSTER_INNER, a tunnel's frames hashed
 * on the flow inside. 0, or -1 with errno EINVAL.
 */
int rcap_parse_cluster(const char *spec, uint32_t *id, uint32_t *policy);
/* The names rcap_parse_cluster() takes, or NULL for an unknown policy. */
const char *rcap_cluster_policy_name(uint32_t policy);
int rcap_set_filter(struct ringcap *rc, const struct sock_fprog *prog);
int rcap_clear_filter(struct ringcap *rc);

/* queue: RX queue index, or -1 for all queues. */
int rcap_bind(struct ringcap *rc, const char *ifname, int queue);
/* "eth0" (all queues) or "eth0@1" (queue 1). */
int rcap_bind_spec(struct ringcap *rc, const char *spec);
/* Parse a spec without binding; queue gets -1 for all. 0 or -1 (EINVAL). */
int rcap_parse_spec(const char *spec, char *ifname, size_t ifname_len,
		       int *queue);

/*
 * Which path feeds the bound device (struct ringcap_path in the ABI
 * header): the mode 0 hook, an aware driver, XDP, or the queue's own
 * buffers (zero-copy). rcap_bind() on a device with native XDP in mode
 * 2, and in mode 1 where the module has its kfunc, attaches ringcap's XDP
 * program (needs CAP_NET_ADMIN and CAP_BPF); where it cannot, the device
 * keeps the mode 0 hook and the path says why. rcap_path_name() gives
 * the name /proc/net/ringcap shows: "xdp-copy" (the kfunc copies),
 * "xdp-redirect" (the fallback without it, RINGCAP_XDP=redirect),
 * "aware", "zerocopy", "hook", "hook:no-native-xdp", "hook:no-program",
 * "hook:busy" (the device runs its own XDP program), "hook:refused"
 * (another errno, in path->error), or "-" when unbound; in mode 2, a
 * socket bound without CAP_NET_ADMIN takes no frame from the stack and
 * its path ends in ":pass" ("aware:pass", "xdp-copy:pass", "hook:pass").
 */
int rcap_path(struct ringcap *rc, struct ringcap_path *path);
const char *rcap_path_name(const struct ringcap_path *path);

/*
 * mmap the ring, and for a zero-copy socket (hdr->zc_mmap_size != 0) the
 * NIC's buffers read-only; fails with EPROTO on a magic or ABI version
 * mismatch or a geometry that does not add up. rcap_close() unmaps.
 */
int rcap_map(struct ringcap *rc);
const struct ringcap_ring_hdr *rcap_hdr(const struct ringcap *rc);

/*
 * Up to max frames starting at the current read position, without copying.
 * Repeated calls continue after the last frame returned. Returns the count
 * (0: nothing ready) or -1 (EIO: a corrupt record, including a zero-copy
 * one whose zc_offset + caplen lies beyond the mapped buffers). On 0,
 * release and rcap_wait(): a zero-copy socket gets new frames only then.
 */
int rcap_recv_batch(struct ringcap *rc, struct ringcap_pkt *pkts, int max);
/* Give every frame returned so far back to the kernel. */
void rcap_release(struct ringcap *rc);
/*
 * Give back only the frames (and records) returned before @pkt, one that
 * rcap_recv_batch() returned and that has not been given back: a reader
 * that dies while it holds @pkt leaves @pkt and what follows in a
 * persistent ring for the next. Since libringcap 1.3.
 */
void rcap_release_before(struct ringcap *rc, const struct ringcap_pkt *pkt);

/*
 * poll() for readiness under the socket's wake-up policy (in zero-copy
 * mode, a poll() that finds nothing readable is also what lets the
 * driver fetch frames and re-arm the released buffers). 1 ready, 0 timeout,
 * -1 on error: errno from SO_ERROR (ENODEV once the device is gone, kept
 * on later calls), EIO when the kernel refused the consumer position,
 * EINTR on a signal. Frames still readable are reported before an error.
 * The same as rcap_poll_result() on the revents of one poll().
 */
int rcap_wait(struct ringcap *rc, int timeout_ms);

/*
 * Decode the revents that the caller's own poll() returned for
 * rcap_fd(rc), polled for POLLIN alongside the caller's other fds, so
 * that a wake-up costs one poll(). 1 readable, 0 nothing yet, -1 with
 * errno and rcap_errmsg() as rcap_wait() gives them: POLLERR and
 * POLLHUP become the socket's error (read with SO_ERROR, no second poll),
 * POLLNVAL is EBADF. POLLIN wins over an error, as in rcap_wait().
 */
int rcap_poll_result(struct ringcap *rc, short revents);

/*
 * The socket's counters: the fields of the structure's first size
 * (RINGCAP_STATS_SIZE_V1), so that a program built before it grows is
 * never written past; as rcap_tx_stats() with RINGCAP_TX_STATS_SIZE_V1.
 */
int rcap_stats(struct ringcap *rc, struct ringcap_stats *st);
/*
 * The same with the structure's size this program was built with
 * (sizeof(*st)): fields the kernel's older structure lacks are 0.
 * Since libringcap 1.4.
 */
int rcap_stats_sized(struct ringcap *rc, struct ringcap_stats *st,
		     size_t size);

/*
 * Transmit ring (RINGCAP_TX_RING_SIZE in the ABI header): frames copied
 * into a second mapped ring and sent, in order, out of the bound device
 * when the kernel is kicked, with no system call per frame. All of it
 * is LIBRINGCAP_1.1: rcap_set_zerocopy()'s version.
 *
 * rcap_set_tx_ring(): bytes of transmit ring (a power of two, as for
 * rcap_set_ring_size(); 0: none, the default), before bind: EBUSY
 * once bound, ENOPROTOOPT from a module without transmit rings, each
 * with a message that says so. rcap_map() then maps it beside the
 * receive ring and checks it as strictly (EPROTO); the ring of a handle
 * that did not ask for one is never mapped.
 *
 * Like the reader, the transmit side is one thread's at a time.
 *
 * rcap_set_capture(rc, 0), before bind: the socket captures nothing
 * (its receive ring stays empty, so a small rcap_set_ring_size()
 * saves memory) and only sends. It takes no frame from anyone: a
 * capturing socket bound to all queues of an aware NIC in transparent
 * mode 2 would take every frame away from the stack. Not with zero-copy
 * receive (EINVAL at bind).
 */
int rcap_set_tx_ring(struct ringcap *rc, uint32_t bytes);
int rcap_set_capture(struct ringcap *rc, int on);

/*
 * Copy one frame of len bytes (from its Ethernet header, without FCS)
 * into the transmit ring, behind those put before; nothing is sent
 * until rcap_tx_flush() or rcap_tx_wait(). 0, or -1 with errno:
 *   EAGAIN    no room now, even after reading how far the kernel has
 *             sent: rcap_tx_wait() (which flushes), then put the
 *             same frame again. (Where the frame must start over at the
 *             beginning of the area, the pad record that skips there
 *             may already be written: that is harmless, and what lets a
 *             frame longer than the rest of an empty ring in at all.)
 *   EMSGSIZE  len below 14 (an Ethernet header) or above
 *             rcap_tx_frame_max(): the kernel would refuse it
 *   ENXIO     no transmit ring mapped
 *   EIO       the kernel's completion position makes no sense (a stray
 *             write into the mapping)
 */
int rcap_tx_put(struct ringcap *rc, const void *frame, uint32_t len);

/*
 * Publish the frames put so far (a release store of producer) and kick
 * the kernel (a zero-length send), which sends them in order before the
 * call returns; it never waits for the device. Returns 0 when the
 * kernel is done with every frame put (sent, or refused and counted in
 * the counters below), 1 when some still wait because the device's
 * queue filled (flush again later, or rcap_tx_wait()), -1 on error:
 * ENODEV the device went away, ENOTCONN not bound, ENXIO no transmit
 * ring, EINVAL the kernel refused the producer or a record (the ring's
 * memory was overwritten), EIO as for rcap_tx_put(). With nothing
 * outstanding it makes no system call. Put a batch, then flush: one
 * kick sends them all. Frames not sent when the socket is closed are
 * lost: flush until it returns 0 first.
 */
int rcap_tx_flush(struct ringcap *rc);

/*
 * Flush, and while frames are still waiting for the device, wait until
 * the kernel has sent some (kicking again at short, growing intervals,
 * 20 us up to 1 ms: the kernel wakes no one when the device's queue
 * drains, so the wait is on the clock, not on poll()). 1 when the ring
 * has more room than when called (or everything is sent), 0 when
 * timeout_ms passed first (-1: no limit, 0: one kick), -1 on an error
 * of rcap_tx_flush() or EINTR on a signal. A program with its own
 * event loop can poll() the fd for POLLOUT instead, which kicks too
 * (what a flush has published) and reports POLLOUT while the ring has
 * any room.
 */
int rcap_tx_wait(struct ringcap *rc, int timeout_ms);

/*
 * The longest frame rcap_tx_put() takes: the bound device's MTU plus
 * an Ethernet and a VLAN header as of the last kick (hdr->frame_max,
 * which each kick renews from the MTU it finds; the kernel checks every
 * frame against the MTU at its own kick), or less if the ring itself is
 * smaller than that record. 0 without a mapped transmit ring.
 */
uint32_t rcap_tx_frame_max(const struct ringcap *rc);

/*
 * The mapped transmit ring's header (NULL if none): the kernel's mirror
 * of the counters, sent, refused and full, current after each kick.
 */
const struct ringcap_tx_hdr *rcap_tx_hdr(const struct ringcap *rc);

/* The counters of struct ringcap_tx_stats; ENXIO without a transmit ring. */
int rcap_tx_stats(struct ringcap *rc, struct ringcap_tx_stats *st);

/*
 * The names before libringcap 1.2 (LIBRINGCAP_1 and 1.1), kept for one
 * release as aliases of the rcap_* functions: the same code, so binaries
 * built against them keep running, and sources get a deprecation warning
 * naming the new function. They were renamed because the kernel module
 * has functions of the same names and other signatures (ringcap_bind(),
 * ringcap_tx_stats(), ...), which made every grep and backtrace ambiguous.
 * Define LIBRINGCAP_NO_OLD_NAMES to leave them undeclared.
 */
#define RCAP_OLD_NAMES(X)	\
	X(batch_watermark)	\
	X(bind)	\
	X(bind_spec)	\
	X(clear_filter)	\
	X(close)	\
	X(cluster_policy_name)	\
	X(errmsg)	\
	X(family)	\
	X(fd)	\
	X(get_ring_size)	\
	X(hdr)	\
	X(map)	\
	X(open)	\
	X(parse_cluster)	\
	X(parse_spec)	\
	X(path)	\
	X(path_name)	\
	X(poll_result)	\
	X(recv_batch)	\
	X(release)	\
	X(set_capture)	\
	X(set_cluster)	\
	X(set_filter)	\
	X(set_promisc)	\
	X(set_ring_size)	\
	X(set_snaplen)	\
	X(set_tx_ring)	\
	X(set_wakeup)	\
	X(set_zerocopy)	\
	X(stats)	\
	X(tx_flush)	\
	X(tx_frame_max)	\
	X(tx_hdr)	\
	X(tx_put)	\
	X(tx_stats)	\
	X(tx_wait)	\
	X(wait)

#ifndef LIBRINGCAP_NO_OLD_NAMES
#define RCAP_OLD_DECL(n)	\
	extern __typeof__(rcap_##n) ringcap_##n \
		__attribute__((deprecated("renamed rcap_" #n)));
RCAP_OLD_NAMES(RCAP_OLD_DECL)
#undef RCAP_OLD_DECL
#endif

#ifdef __cplusplus
}
#endif

#endif /* LIBRINGCAP_H */
