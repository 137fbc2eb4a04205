/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ringcap user-space ABI.
 *
 * A ringcap socket is a packet-capture socket whose frames are written by the
 * kernel into one memory-mapped ring per socket.
 *
 *   fd = socket(family, SOCK_RAW, htons(ETH_P_ALL));
 *       family: /sys/module/ringcap/parameters/family (default
 *       RINGCAP_FAMILY_DEFAULT). Needs CAP_NET_RAW in the socket's netns.
 *   setsockopt(fd, SOL_RINGCAP, RINGCAP_RING_SIZE, ...)   optional
 *   bind(fd, struct sockaddr_ringcap { ifindex, queue })
 *   getsockopt(fd, SOL_RINGCAP, RINGCAP_RING_INFO) -> mmap_size
 *   mmap(NULL, mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
 *
 * This header says what each call allows, when and to whom; the errno of
 * every refusal is listed once, in docs/CONTRACTS.md of the ringcap
 * source tree, installed by the ringcap-tools package as
 * /usr/share/doc/ringcap-tools/CONTRACTS.md.gz.
 *
 * Mapping layout:
 *
 *   offset 0             struct ringcap_ring_hdr (one page)
 *   offset data_offset   data area, data_size bytes (a power of two)
 *
 * Records are packed back to back in the data area, each a struct
 * ringcap_rec followed by caplen bytes of frame, the whole rounded up to
 * RINGCAP_REC_ALIGN. A record never wraps: when the space left before the
 * end of the data area is too small, the kernel writes a record with
 * RINGCAP_REC_PAD set (only rec_len and flags are meaningful) that covers
 * the rest of the area, and the next record starts at offset 0.
 *
 * Positions are free-running 64-bit byte counts; the offset in the data area
 * is pos & (data_size - 1).
 *
 *      consumer (user writes)           producer (kernel writes)
 *          |                                  |
 *   ... ---[rec][rec][rec][pad]|[rec][rec]----+--- free ---
 *
 * Ordering. The kernel writes a record, then stores producer with release
 * semantics. A reader loads producer with acquire semantics, reads the
 * records below it, then stores consumer with release semantics; only then
 * may the kernel reuse that space. The kernel validates consumer before
 * each use: it must be 8-byte aligned and within data_size bytes below
 * producer. Any other value makes the kernel treat the ring as full (the
 * frame is counted in dropped and in bad_consumer) until a valid value is
 * written back.
 *
 * ABI versioning: ringcap_ring_hdr.abi_version must equal RINGCAP_ABI_VERSION
 * of the header a program was built with; libringcap refuses a mismatch.
 *
 * Privileges. CAP_NET_RAW over the socket's network namespace (checked at
 * socket()) lets a process capture what AF_PACKET would let it capture,
 * and transmit what AF_PACKET would let it send. Taking frames away from
 * the device's stack is an administrator's act, as attaching XDP is: it
 * needs CAP_NET_ADMIN over the network namespace of the device (the
 * socket's), held at bind():
 *   - RINGCAP_ZEROCOPY: bind() fails without it;
 *   - transparent_mode 2: a socket bound without it is a capture like any
 *     other: it gets the frames it wants, and the stack gets them too (as
 *     in mode 1); RINGCAP_PATH says so (RINGCAP_PATH_PASS). Only frames
 *     that a socket bound with CAP_NET_ADMIN wants are kept from the stack;
 *   - RINGCAP_XDP_LINK: refused without it (at the call and at bind).
 * A user namespace that owns its network namespace has CAP_NET_ADMIN over
 * that namespace's devices only; the host's NICs are not among them (bind
 * finds none), and from a user namespace without its own network
 * namespace socket() fails. So no unprivileged user takes a queue
 * or a frame from the host's stack (a NIC that the host's administrator
 * moves into such a namespace is handed over with it).
 */
#ifndef _UAPI_LINUX_RINGCAP_H
#define _UAPI_LINUX_RINGCAP_H

#include <linux/types.h>

#define RINGCAP_ABI_VERSION	1
#define RINGCAP_MAGIC		0x50414352	/* "RCAP" little-endian */
#define RINGCAP_FAMILY_DEFAULT	25		/* historic AF_WANPIPE, unused */

/* bind() address. */
#define RINGCAP_QUEUE_ANY	0xffff

struct sockaddr_ringcap {
	__u16	rc_family;	/* the family number */
	__u16	rc_queue;	/* RX queue, or RINGCAP_QUEUE_ANY */
	__s32	rc_ifindex;
};

/* setsockopt()/getsockopt() level and option names. */
#define SOL_RINGCAP		300

/* int-sized (__u32) options, optlen 4, values within the limits below. */
#define RINGCAP_RING_SIZE	1	/* data bytes, power of two; set before bind, mmap or RING_INFO */
#define RINGCAP_SNAPLEN		2	/* 1..RINGCAP_SNAPLEN_MAX, see below */
#define RINGCAP_WATERMARK	3	/* N: signal after N frames, 1..RINGCAP_WATERMARK_MAX */
#define RINGCAP_TIMEOUT_US	4	/* m: signal m us after the first unsignalled frame, 0: never */
#define RINGCAP_PROMISC		5	/* 0 or 1 (default 1), set before bind */
#define RINGCAP_ZEROCOPY	8	/* 0 or 1 (default 0), set before bind; see below */
#define RINGCAP_TX_RING_SIZE	9	/* transmit ring data bytes, 0 (default: none) or as RING_SIZE; before bind, TX_INFO or its mmap; see below */
#define RINGCAP_CAPTURE		10	/* 0 or 1 (default 1), before bind: 0 binds to transmit only */
#define RINGCAP_GAPS		11	/* 0 or 1 (default 0), before bind: gap records, see below */
/* names: 1..RINGCAP_PERSIST_NAME_MAX bytes of [A-Za-z0-9._-], optlen their length */
#define RINGCAP_PERSIST		12	/* before bind: a ring that outlives its reader, see below */
#define RINGCAP_PERSIST_DELETE	13	/* write-only: delete the persistent ring of that name */
#define RINGCAP_FLOW_CUTOFF	14	/* bytes per flow and direction, 0 (default: off) or 1..RINGCAP_FLOW_CUTOFF_MAX, before bind; see below */
/* struct-sized */
#define RINGCAP_CLUSTER		6	/* struct ringcap_cluster, set before bind */
#define RINGCAP_XDP_LINK	7	/* struct ringcap_xdp_link, write-only, after bind */
/* read-only */
#define RINGCAP_RING_INFO	16	/* struct ringcap_ring_info */
#define RINGCAP_STATS		17	/* struct ringcap_stats */
#define RINGCAP_ABI		18	/* __u32 RINGCAP_ABI_VERSION */
#define RINGCAP_PATH		19	/* struct ringcap_path */
#define RINGCAP_TX_INFO		20	/* struct ringcap_ring_info of the transmit ring */
#define RINGCAP_TX_STATS	21	/* struct ringcap_tx_stats */

/*
 * The structures RING_INFO, TX_INFO, STATS and TX_STATS hand back only
 * grow, at their end. Pass the size of the structure a program was built
 * with in optlen: the kernel takes any size from the first one published
 * (RINGCAP_*_SIZE_V1) up, writes the first min(optlen, its own size)
 * bytes, and returns in optlen how many it wrote. An older kernel writes
 * fewer than a newer program asks for and leaves the rest of its buffer
 * alone (zero it first); a newer kernel gives an older program the
 * fields of its older structure.
 */
#define RINGCAP_RING_INFO_SIZE_V1	16	/* also TX_INFO */
#define RINGCAP_RING_INFO_SIZE_V2	40	/* + the zero-copy area */
#define RINGCAP_STATS_SIZE_V1		56
#define RINGCAP_STATS_SIZE_V2		80	/* + the per-flow cut-off */
#define RINGCAP_TX_STATS_SIZE_V1	48

/*
 * Limits of the options above; a value outside them is refused. The module
 * parameters of the same names (ring_size, watermark, timeout_us) obey the
 * same bounds.
 *
 * Ring size: a power of two from RINGCAP_RING_SIZE_MIN (raised to the page
 * size where pages are larger) up to the module parameter max_ring_mem
 * (default 64 MiB), which may itself be set at most to RINGCAP_RING_SIZE_MAX.
 *
 * Watermark N: at most RINGCAP_WATERMARK_MAX frames (2^20).
 * Timeout m: at most RINGCAP_TIMEOUT_US_MAX microseconds (10 s); 0 is allowed.
 * Snaplen: at most RINGCAP_SNAPLEN_MAX bytes, and see below.
 */
#define RINGCAP_RING_SIZE_MIN	4096U
#define RINGCAP_RING_SIZE_MAX	(1U << 30)
#define RINGCAP_WATERMARK_MAX	(1U << 20)
#define RINGCAP_TIMEOUT_US_MAX	10000000U
#define RINGCAP_SNAPLEN_MAX	65535

/*
 * Snaplen and ring size go together: one record of snaplen bytes must fit
 * in half the data area (RINGCAP_SNAPLEN_FOR_RING), so that a frame of any
 * length always finds room once the reader has caught up. Setting either
 * option so that this fails is refused. Until RINGCAP_SNAPLEN is set, the
 * snaplen follows the ring size: RINGCAP_SNAPLEN_FOR_RING(ring size).
 *
 * Memory: ring pages are charged to the memory cgroup of the task that
 * allocates the ring (at bind, RINGCAP_RING_INFO or mmap), which fails
 * past the cgroup's limit. Not to RLIMIT_MEMLOCK, which AF_PACKET's rings
 * do not count against either (earlier modules charged it).
 */
#define RINGCAP_SNAPLEN_FOR_RING(data_size)				\
	((data_size) / 2 - sizeof(struct ringcap_rec) < RINGCAP_SNAPLEN_MAX ? \
	 (__u32)((data_size) / 2 - sizeof(struct ringcap_rec)) :		\
	 RINGCAP_SNAPLEN_MAX)

/*
 * Clusters: sockets of one network namespace that set the same cluster id
 * and then bind to the same device and queue share its frames, each frame
 * going to exactly one member; sockets outside the cluster still get their
 * own copy. Members may bind and close at any time; frames go to the
 * members present. A member whose ring is full drops the frame (its own
 * dropped counter); the frame is not given to another member, so that
 * flows stay whole.
 *
 * Policies:
 *   RINGCAP_CLUSTER_FLOW   a hash of the IPv4/IPv6 addresses, protocol
 *                          and TCP, UDP, UDP-Lite or SCTP ports that is
 *                          the same in both directions (VLAN tags are
 *                          looked through, and IPv6 extension headers);
 *                          every fragment of an IPv4 or IPv6 datagram,
 *                          the first included, hashes on its addresses
 *                          and protocol without ports, so the datagram
 *                          stays whole; non-IP frames go
 *                          to the earliest bound member
 *   RINGCAP_CLUSTER_RR     round robin over the members
 *   RINGCAP_CLUSTER_QUEUE  the frame's RX queue modulo the member count
 *
 * The option is set before bind. A cluster on a device has one policy and
 * one queue: bind refuses a member that asks for another policy or binds
 * to another queue. id 0 leaves no cluster (default).
 *
 * Spanning devices (RINGCAP_CLUSTER_SPAN or'd into the policy): the
 * members may bind to different devices of the namespace, such as the two
 * ports of a tap, each to all queues (RINGCAP_QUEUE_ANY, else bind is
 * EINVAL), and every frame of every member's device goes to one member of
 * them all. With RINGCAP_CLUSTER_FLOW, whose hash is the same in both
 * directions, both directions of a flow reach one member whichever port
 * each arrives on. All members of a spanning cluster have the same policy
 * (EEXIST otherwise), and a spanning cluster has at most
 * RINGCAP_CLUSTER_SPAN_MAX members (ENOSPC past them); a cluster of the
 * same id without the flag is another cluster, per device as above, but
 * on one device an id names one cluster: a member of the other kind is
 * refused there (EEXIST). In mode 2 a device's frames are kept from its
 * stack only by members bound to it with CAP_NET_ADMIN; a frame of one
 * device that a member bound to another gets also reaches the stack. A
 * member's gap records count the NIC loss of its own device only.
 *
 * Tunnels (RINGCAP_CLUSTER_INNER, with RINGCAP_CLUSTER_FLOW only, else
 * EINVAL): a VXLAN frame (UDP to port 4789, the I flag set) or a GRE one
 * (version 0, no routing; Ethernet, IPv4 or IPv6 inside) is hashed on the
 * flow it carries, in the same way, so that the many flows between two
 * tunnel endpoints spread over the members and each stays whole; a frame
 * whose inner flow cannot be read (a fragment of the tunnel, too short)
 * is hashed on its own headers.
 */
#define RINGCAP_CLUSTER_FLOW	0
#define RINGCAP_CLUSTER_RR	1
#define RINGCAP_CLUSTER_QUEUE	2
#define RINGCAP_CLUSTER_POLICY	0xff	/* the policy, without its flags */
#define RINGCAP_CLUSTER_SPAN	0x100	/* flag: members on several devices */
#define RINGCAP_CLUSTER_INNER	0x200	/* flag, with FLOW: a tunnel's inner flow */
#define RINGCAP_CLUSTER_SPAN_MAX	64

struct ringcap_cluster {
	__u32	id;
	__u32	policy;
};

/*
 * Which path feeds a bound socket's device (RINGCAP_PATH), and in mode 2
 * on a device without an aware driver, why not XDP.
 *
 * Modes 1 and 2 on such a device capture before any skb is built: a small XDP
 * program (libringcap's, attached by the reader as a BPF link on the
 * device and handed over with RINGCAP_XDP_LINK) runs on every frame. It
 * takes one of two ways:
 *   - copy (RINGCAP_PATH_XDP_COPY, "xdp-copy"), where the module has BTF:
 *     the program calls the module's kfunc bpf_ringcap_xdp_capture(),
 *     which copies the frame into the rings of the sockets that want it
 *     while the program runs, and says whether to drop it (mode 2, a
 *     socket bound with CAP_NET_ADMIN wanted it) or pass it on; a frame
 *     passed on carries a mark in its metadata (<ringcap/xdp.h>) so that
 *     the mode 0 hook does not offer it again. In mode 1 the same program
 *     gives copies without an skb and the stack every frame.
 *   - redirect (RINGCAP_PATH_XDP, "xdp-redirect"), the fallback where the
 *     kfunc cannot be had: the program redirects the frames that bound
 *     sockets want into the namespace's ringcapxdpN device, whose
 *     ndo_xdp_xmit() puts them into the rings; other frames go on to the
 *     stack. Mode 2 only.
 * The module holds the link while sockets are bound to the device
 * and drops it (the program is detached) after the last one leaves. Where
 * that cannot happen, the device keeps the mode 0 hook and `why` says why.
 *
 *   path  RINGCAP_PATH_UNBOUND, _HOOK (the standard mode 0 hook), _AWARE
 *         (an aware driver, modes 1 and 2), _XDP (redirect, mode 2),
 *         _XDP_COPY (modes 1 and 2), _ZEROCOPY (any mode)
 *   why   with _HOOK in modes 1 and 2: RINGCAP_XDP_NO_NATIVE (the driver has no
 *         native XDP), _NO_PROGRAM (no program handed over yet: a raw
 *         socket user, or one bound before mode 2), _REFUSED (attaching
 *         failed, `error` the errno it failed with: the device runs an
 *         XDP program of its own, say, or the reader lacks CAP_NET_ADMIN
 *         and CAP_BPF),
 *         _NO_COPY_PROGRAM (mode 1, where the module has the kfunc: no
 *         copy program handed over yet; no other program serves mode 1,
 *         and without the kfunc mode 1 is the plain hook); else
 *         RINGCAP_XDP_NONE (also for a socket with RINGCAP_PATH_PASS,
 *         which no program would serve)
 *   flags RINGCAP_PATH_PASS in mode 2 for a socket bound without
 *         CAP_NET_ADMIN: the frames it gets reach the stack as well (see
 *         "Privileges" above). The XDP path's program redirects only what
 *         sockets bound with CAP_NET_ADMIN want; such a socket gets
 *         those it wants too, and the others through the mode 0 hook.
 *         /proc/net/ringcap appends ":pass" to the path's name.
 *         RINGCAP_PATH_KFUNC whenever the module has the kfunc: the
 *         program to hand over for _NO_PROGRAM is the copy program.
 *
 * struct ringcap_xdp_link: fd a BPF link of libringcap's program attached
 * to the bound device in native mode, or -1 with error the positive errno
 * the attach failed with, which the module reports as _REFUSED; flags
 * RINGCAP_XDP_LINK_COPY for the copy program (an XDP program without
 * maps that calls the kfunc; only where the module has the kfunc), else
 * 0 for the redirect program; no other flags, and reserved 0. The option
 * takes the first 8 bytes alone too (flags 0), as before flags existed.
 * It needs CAP_NET_ADMIN, at the call and when the socket was bound, and
 * a socket bound to a device without an aware driver; the link must be
 * such a program attached to the bound device in native mode (not a link
 * on another device, nor a program whose map is read-only or frozen), and
 * a device holds one link at a time. The module holds the link while a
 * socket bound with CAP_NET_ADMIN is bound to the device. A link that is
 * detached or given another program while held is let go at the next
 * bind, unbind or mode change: _REFUSED, with an `error` that says so.
 */
#define RINGCAP_PATH_UNBOUND	0
#define RINGCAP_PATH_HOOK	1
#define RINGCAP_PATH_AWARE	2
#define RINGCAP_PATH_XDP	3
#define RINGCAP_PATH_ZEROCOPY	4	/* RINGCAP_ZEROCOPY: the queue's own buffers */
#define RINGCAP_PATH_XDP_COPY	5	/* XDP, copied by the module's kfunc */

#define RINGCAP_XDP_NONE	0
#define RINGCAP_XDP_NO_NATIVE	1
#define RINGCAP_XDP_NO_PROGRAM	2
#define RINGCAP_XDP_REFUSED	3
#define RINGCAP_XDP_NO_COPY_PROGRAM 4	/* mode 1: waits for the copy program */

#define RINGCAP_PATH_PASS	0x1	/* mode 2 without CAP_NET_ADMIN: copies */
#define RINGCAP_PATH_KFUNC	0x2	/* the module has the kfunc: load the copy program */

struct ringcap_path {
	__u32	path;
	__u32	why;
	__s32	error;
	__u32	flags;		/* RINGCAP_PATH_PASS, _KFUNC */
};

#define RINGCAP_XDP_LINK_COPY	0x1	/* the program calls the kfunc */

struct ringcap_xdp_link {
	__s32	fd;
	__s32	error;
	__u32	flags;		/* RINGCAP_XDP_LINK_COPY */
	__u32	reserved;	/* 0 */
};

/*
 * Zero-copy receive (RINGCAP_ZEROCOPY = 1 before bind). The socket binds
 * to one RX queue (not RINGCAP_QUEUE_ANY) of a device whose driver
 * offers it (ringcap_e1000e), while the device is up, and takes that
 * queue over: its frames go to this socket only, whatever
 * transparent_mode says, and not to the stack. Taking a queue is an
 * administrator's act: bind() needs CAP_NET_ADMIN over the device's
 * network namespace (see "Privileges" above). One such socket per
 * queue: a second one, or a copy-mode socket bound to that queue, is
 * refused at bind, as is a zero-copy bind to a queue a copy-mode socket
 * is bound to. Copy-mode sockets bound to all queues of the device do not
 * see that queue's frames. No clusters.
 *
 * The NIC's receive buffers are mapped read-only, apart from the ring:
 *
 *   mmap(NULL, hdr->zc_mmap_size, PROT_READ, MAP_SHARED, fd,
 *        hdr->zc_mmap_offset)
 *
 * (PROT_WRITE is refused; a write to the mapping is SIGSEGV). Its pages
 * cannot be taken beyond it: vmsplice(), process_vm_readv(), O_DIRECT,
 * MSG_ZEROCOPY and io_uring fixed buffers over it fail; copies out of it
 * (write(), memcpy()) work. Buffer b is hdr->zc_buf_size bytes at
 * b * zc_buf_size; there are zc_nr_bufs.
 * The ring carries records as in copy mode, each with RINGCAP_REC_ZC set,
 * rec_len = sizeof(struct ringcap_rec) and no frame bytes after it: the
 * frame is at zc_offset in the buffer mapping (caplen bytes of it are
 * valid). A VLAN tag the NIC did not strip stays in the frame.
 *
 * The buffer of a record belongs to the reader until consumer passes the
 * record; the driver gives it back to the NIC only then. A reader that
 * keeps every buffer makes the NIC drop (its RXO/missed counters), never
 * the kernel wait. While frames are pending, the queue's interrupt stays
 * masked; poll() with nothing to read lets the driver fetch what the NIC
 * holds and unmask it (the N-or-m wake-up policy applies as in copy
 * mode). So a reader that does not poll() when it finds the ring empty
 * receives nothing more. When the socket is closed (or its process ends)
 * every buffer goes back to the driver and the queue to the stack. When
 * the device goes down or away the socket reports POLLERR, as one whose
 * bound device was deleted does; the pages stay the process's until it
 * unmaps them and are not reused.
 */
#define RINGCAP_ZC_MMAP_OFFSET	0x80000000ULL

/*
 * Transmit ring (RINGCAP_TX_RING_SIZE, a power of two as RING_SIZE, set
 * before bind). The application writes frames into it and the kernel
 * sends them out of the bound device, in order:
 *
 *   getsockopt(fd, SOL_RINGCAP, RINGCAP_TX_INFO) -> struct ringcap_ring_info
 *   mmap(NULL, info.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
 *        RINGCAP_TX_MMAP_OFFSET)
 *
 * offset 0 of that mapping is a struct ringcap_tx_hdr (one page), and
 * data_offset the data area: records packed as in the receive ring, each
 * a struct ringcap_tx_rec followed by len bytes of frame (from its
 * Ethernet header, without FCS), the whole rounded up to RINGCAP_REC_ALIGN;
 * a record never wraps (RINGCAP_TX_PAD covers the rest of the area, and
 * the next record starts at offset 0). Positions are free-running byte
 * counts, as in the receive ring, here with the roles swapped: the
 * application writes records, then stores producer with release
 * semantics; the kernel takes the records below it in order and stores
 * completion with release semantics once it is done with them (each frame
 * copied out, into the driver's buffers or an skb): the space below
 * completion is the application's again.
 *
 * Kick: sendto(fd, NULL, 0, 0, NULL, 0) (or send()/write() of 0 bytes), or
 * poll() asking for POLLOUT: the kernel sends what lies between completion
 * and producer before it returns. It never waits: when the device's queue
 * is full it stops (tx_full counted) and the rest waits for the next kick.
 * poll() reports POLLOUT while the ring has room; a poll() asleep on a
 * full ring after a kick found the device full is woken every 100 us to
 * kick again, so it returns once the device has taken frames. A kick
 * needs a transmit ring and a bound socket whose device is still there;
 * getsockopt(RINGCAP_TX_INFO) and the mmap need RINGCAP_TX_RING_SIZE set
 * first (they allocate the ring), RINGCAP_TX_STATS the ring allocated. A
 * send() with data (length > 0) is refused.
 *
 * Refused and counted, never sent (the kick goes on past them): a frame
 * shorter than an Ethernet header, or longer than the device takes now
 * (refused_len), or one while the device is down (refused_down). The
 * length rule is the one AF_PACKET applies to a send, against the
 * MTU as the kick finds it, not as it was at bind: at most MTU plus the
 * device's link header (dev->hard_header_len: 14 on Ethernet, so 1514 at
 * MTU 1500), or 4 bytes more for a frame tagged 802.1Q (EtherType 0x8100
 * at offset 12, Ethernet devices only; 0x88a8 gets no allowance). An MTU
 * above RINGCAP_TX_MTU_MAX (64 KiB, loopback's default; dummy and
 * loopback have no upper MTU) counts as RINGCAP_TX_MTU_MAX, so no record
 * however long stays in the ring: it is sent or refused. hdr->frame_max
 * shows the longest frame (a tagged one) as of the last kick. A producer
 * the kernel cannot use (unaligned, more than data_size ahead of
 * completion, behind it) or a record that does not fit sends nothing:
 * the kick fails and bad_producer counts it.
 *
 * Each record is counted once, when completion passes it: sent,
 * refused_len or refused_down (a pad record in none), so sent +
 * refused_len + refused_down never exceeds the frame records put, and
 * equals them once completion reaches producer. A kick that stops at a
 * full device counts none of the records it left for the next kick.
 *
 * On an aware driver that offers it (ringcap_e1000e), frames go straight
 * into the NIC's TX descriptors from buffers the driver mapped once, with
 * no skb; elsewhere each becomes an skb handed to the device's queue
 * (dev_direct_xmit(): no qdisc, as AF_PACKET's PACKET_QDISC_BYPASS).
 * A socket with RINGCAP_CAPTURE 0 captures nothing (it joins no device
 * set, steals no frame in mode 2, needs no receive path) and can only
 * transmit; its receive ring still exists and stays empty.
 */
#define RINGCAP_TX_MMAP_OFFSET	0xc0000000ULL
#define RINGCAP_TX_MAGIC	0x58544352	/* "RCTX" little-endian */

#define RINGCAP_TX_PAD		0x0001	/* skip to the start of the data area */
#define RINGCAP_TX_MTU_MAX	65536	/* a larger MTU counts as this (see above) */

struct ringcap_tx_rec {
	__u32	rec_len;	/* bytes from this record to the next */
	__u16	flags;		/* RINGCAP_TX_PAD */
	__u16	__pad;
	__u32	len;		/* frame bytes following this header */
	__u32	__reserved;
};

struct ringcap_tx_hdr {
	/* 0: read-only description */
	__u32	magic;
	__u16	abi_version;
	__u16	rec_hdr_len;	/* sizeof(struct ringcap_tx_rec) */
	__u32	data_offset;
	__u32	data_size;
	__u32	frame_max;	/* longest frame (tagged), as of the last kick */
	__u32	__pad0[27];
	/* 128: kernel-written line */
	__u64	completion;
	__u64	sent;
	__u64	refused;	/* refused_len + refused_down */
	__u64	full;
	__u64	__pad1[12];
	/* 256: application-written line */
	__u64	producer;
	__u64	__pad2[15];
};

/* Counters since the transmit ring was set up. */
struct ringcap_tx_stats {
	__u64	sent;		/* frames handed to the device */
	__u64	refused_len;	/* too short or too long (at the kick) */
	__u64	refused_down;	/* the device was down */
	__u64	full;		/* kicks that stopped at a full device queue */
	__u64	bad_producer;	/* kicks refused for an unusable producer */
	__u64	kicks;
};

struct ringcap_ring_info {
	__u64	mmap_size;
	__u32	data_offset;
	__u32	data_size;
	/*
	 * Since RINGCAP_RING_INFO_SIZE_V2: a bound zero-copy socket's
	 * buffer area, as its ring header has it but the kernel's own
	 * values (the header is writable); 0 otherwise and in TX_INFO.
	 */
	__u64	zc_mmap_offset;
	__u64	zc_mmap_size;
	__u32	zc_buf_size;
	__u32	zc_nr_bufs;
};

/* Counters since the socket was created. */
struct ringcap_stats {
	__u64	received;	/* frames written to the ring */
	__u64	dropped;	/* frames lost because the ring was full */
	__u64	filtered;	/* frames rejected by the socket's BPF filter */
	__u64	wakeups;	/* times a sleeping reader was woken */
	__u64	wakeups_timer;	/* of those, by the timeout rather than N */
	__u64	bad_consumer;	/* frames dropped on an invalid consumer */
	__u64	nic_dropped;	/* device's rx_missed_errors since bind */
	/* Since RINGCAP_STATS_SIZE_V2 (RINGCAP_FLOW_CUTOFF): */
	__u64	cutoff;		/* frames past their flow's cut-off, not copied */
	__u64	cutoff_bytes;	/* their wire bytes */
	__u64	flows_evicted;	/* flows forgotten for room before they ended */
};

/* First page of the mapping. Offsets are fixed by the ABI. */
struct ringcap_ring_hdr {
	/* 0: read-only description */
	__u32	magic;
	__u16	abi_version;
	__u16	rec_hdr_len;	/* sizeof(struct ringcap_rec) */
	__u32	data_offset;
	__u32	data_size;
	__u32	snaplen;
	/* zero-copy sockets only, else 0 */
	__u32	zc_buf_size;
	__u32	zc_nr_bufs;
	__u32	__pad0a;
	__u64	zc_mmap_offset;
	__u64	zc_mmap_size;
	__u32	__pad0[20];
	/* 128: kernel-written line: position and a mirror of the counters */
	__u64	producer;
	__u64	received;
	__u64	dropped;
	__u64	filtered;
	__u64	wakeups;
	__u64	__pad1[11];
	/* 256: user-written line */
	__u64	consumer;
	__u64	__pad2[15];
};

#define RINGCAP_REC_ALIGN	8

/* Record flags */
#define RINGCAP_REC_PAD		0x0001	/* skip to the start of the data area */
#define RINGCAP_REC_VLAN	0x0002	/* vlan_tci/vlan_proto hold a stripped tag */
#define RINGCAP_REC_HASH	0x0004	/* rss_hash is valid */
#define RINGCAP_REC_TRUNC	0x0008	/* caplen < wire_len */
#define RINGCAP_REC_ZC		0x0010	/* the frame is at zc_offset in the buffers */
#define RINGCAP_REC_GAP		0x0020	/* a gap record: struct ringcap_gap follows */

struct ringcap_rec {
	__u32	rec_len;	/* bytes from this record to the next */
	__u16	flags;
	__u16	queue;		/* RX queue the frame arrived on */
	__u32	caplen;		/* bytes of frame following this header */
	__u32	wire_len;	/* length of the frame on the wire */
	__u64	tstamp_ns;	/* CLOCK_REALTIME, nanoseconds */
	__s32	ifindex;
	__u32	rss_hash;
	__u16	vlan_tci;	/* host order */
	__u16	vlan_proto;	/* network order, e.g. htons(ETH_P_8021Q) */
	__u32	zc_offset;	/* RINGCAP_REC_ZC: offset in the buffer mapping, else 0 */
};

/*
 * Gap records (RINGCAP_GAPS = 1, set before bind): the ring says where
 * frames meant for the socket were lost, and why. Each such frame is
 * counted by its reason; the next record the kernel writes after one or
 * more are counted is a gap record, and the frame records go on after it:
 *
 *   [frame 17][gap: ring_full 5][frame 23][frame 24]...
 *
 * A gap record is a struct ringcap_rec with RINGCAP_REC_GAP set, caplen
 * bytes of struct ringcap_gap following it (a reader takes the first
 * min(caplen, sizeof) bytes, as the structure only grows), wire_len 0,
 * tstamp_ns when the record was written, ifindex and queue the socket's
 * binding (queue RINGCAP_QUEUE_ANY for all queues). Its counts are
 * those since the previous gap record: a gap record needs room like a
 * frame, so while the ring is full the counts grow, and the first record
 * written when it has room again carries them all. The sum of the
 * records' ring_full and cluster_full, plus what is not written yet,
 * equals RINGCAP_STATS dropped; nothing but frames is counted in received.
 * Without the option the ring carries only frame records, as before it
 * existed.
 */
#define RINGCAP_GAP_SIZE_V1	24
#define RINGCAP_GAP_SIZE_V2	32	/* + cutoff */

struct ringcap_gap {
	__u64	ring_full;	/* no room in the ring, or an invalid consumer */
	__u64	cluster_full;	/* the same for a cluster member: the frame was its */
	__u64	nic;		/* the NIC's own loss, where its driver reports
				 * it (ringcap_e1000e: the missed packet
				 * counter, read every second): device-wide,
				 * so before the filter */
	/* Since RINGCAP_GAP_SIZE_V2: */
	__u64	cutoff;		/* past their flow's cut-off (RINGCAP_FLOW_CUTOFF):
				 * left out on purpose, not lost; their sum is
				 * RINGCAP_STATS cutoff */
};

/*
 * Persistent rings (RINGCAP_PERSIST, a name, before bind). A socket bound
 * with a name keeps its ring bound and capturing when its reader closes
 * it or dies: the ring is "unclaimed" until a socket of the same network
 * namespace binds with the same name to the same device and queue and
 * takes it over. That socket then is the ring: it reads from the first
 * record the old reader had not released (hdr->consumer), RINGCAP_STATS
 * counts from the ring's creation, and what the ring could not hold
 * meanwhile is in a gap record (a persistent ring always keeps gap
 * records, as with RINGCAP_GAPS 1). The ring keeps everything it was
 * bound with (size, snaplen, filter, cluster, promiscuity); of the new
 * socket's options only the watermark and the timeout apply, and a
 * filter is attached after bind (one attached before is refused).
 *
 * Who: the user (effective uid) that created the ring, or a holder of
 * CAP_NET_ADMIN over the namespace, may take it over or delete it; a
 * ring bound with CAP_NET_ADMIN (which takes frames from the stack) is
 * taken over only with it. Each
 * user may hold max_persist persistent rings (module parameter, all
 * namespaces together); their memory stays charged to the memory cgroup
 * of the task that created them. An unclaimed ring is deleted after
 * persist_timeout seconds (module parameter), and with its device, or
 * with RINGCAP_PERSIST_DELETE. While one exists the module cannot be
 * unloaded. Not with RINGCAP_ZEROCOPY, a transmit ring or RINGCAP_CAPTURE
 * 0. /proc/net/ringcap shows the name in its persist column ("-" for
 * none) and an unclaimed ring with pid 0.
 */
#define RINGCAP_PERSIST_NAME_MAX 32

/*
 * Per-flow cut-off (RINGCAP_FLOW_CUTOFF, bytes, before bind). The socket
 * keeps the first frames of each flow, in each direction, until the wire
 * bytes of that flow and direction reach the cut-off: a frame is copied
 * when the flow's bytes before it are below the cut-off (so the frame that
 * crosses it is kept whole, snaplen permitting), and every later frame of
 * the flow is counted in RINGCAP_STATS cutoff and cutoff_bytes, not
 * copied, and with RINGCAP_GAPS shown as a gap record's cutoff count. It
 * applies after the socket's filter, to frames the filter accepted; a
 * frame lost to a full ring still counts towards its flow's bytes.
 *
 * A flow is its VLAN id, IP version, source and destination address,
 * transport protocol and, for TCP, UDP, SCTP and UDP-Lite, source and
 * destination port (behind any IPv6 extension headers), in that
 * direction; every fragment of an IPv4 or IPv6 datagram, the first
 * included, has no ports, so a flow's fragments make one flow of their
 * own. Frames that are not IPv4 or IPv6 on an Ethernet-like device are
 * never cut. A flow ends, and its next frame starts it afresh:
 *   - after a TCP frame with FIN or RST in that direction, and at any TCP
 *     SYN (a new connection on the same ports: its SYN one way, its
 *     SYN-ACK the other);
 *   - after cutoff_idle seconds without a frame (module parameter,
 *     default 60).
 * Each socket tracks at most cutoff_flows flows (module parameter,
 * default 4096, read when the option is set): when a new flow needs room,
 * the one seen least recently is forgotten and counted in flows_evicted,
 * and if it comes back it starts afresh. So a full table makes the socket
 * keep more than the cut-off, never less (a flow quiet past cutoff_idle
 * had ended: it is reused without being counted). The table is allocated
 * when the option is set and charged, as the ring is, to the memory
 * cgroup of the task that set it. With a flow cluster every flow's frames
 * reach one member, so each member's cut-off sees whole flows; with the
 * rr and queue policies a member sees only its share of each flow.
 *
 * With gap records, a kept frame that follows cut frames has a gap record
 * before it, so the reader knows where the stream was thinned; that costs
 * ring space (a record header and struct ringcap_gap) where kept and cut
 * frames interleave. A persistent ring keeps its cut-off: a socket that
 * takes it over with another one set is refused (EINVAL at bind).
 */
#define RINGCAP_FLOW_CUTOFF_MAX	(1U << 31)

#endif /* _UAPI_LINUX_RINGCAP_H */
