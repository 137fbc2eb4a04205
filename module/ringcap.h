/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal types of ringcap.ko shared between its files.
 *
 * Locking, outermost first:
 *   the module parameter lock  held by the kernel while a parameter is
 *                       set; setting transparent_mode takes rtnl under it
 *                       (params.c, xdp.c)
 *   rtnl_lock           binding state: rs->dev, rs->rd, the per-device
 *                       socket sets, aware-device registration, XDP links
 *   ringcap_socks_lock  the global socket list (/proc, device removal)
 *   rs->lock            per-socket configuration and ring allocation
 *   tx->lock            one transmit kick at a time (tx.c)
 *   rs->prod_lock       the ring's producer side, counters and wake-up
 *                       state; taken in softirq or with BH disabled
 *   zc->wake_lock       a zero-copy queue's driver wake-up, held across
 *                       the driver's zc_wakeup (zerocopy.c); BH disabled,
 *                       a leaf but for what that driver op takes
 */
#ifndef _RINGCAP_H
#define _RINGCAP_H

#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/sock.h>
#include <ringcap/driver.h>
#include <ringcap/xdp.h>
#include <uapi/linux/ringcap.h>
#include "reasons.h"

/* From the VERSION file, through include/ringcap/common.kbuild. */
#ifndef RINGCAP_VERSION
#error "RINGCAP_VERSION comes from include/ringcap/common.kbuild"
#endif

/* The transparent mode (params.c; DESIGN.md, "Transparent modes"). */
enum ringcap_mode {
	RINGCAP_MODE_HOOK = 0,	/* the standard path, through the hook */
	RINGCAP_MODE_COPY = 1,	/* sources copy; the stack gets every frame */
	RINGCAP_MODE_STEAL = 2,	/* sources copy; wanted frames skip the stack */
};

/* Module parameters (params.c). */
extern unsigned int ringcap_family_nr;
extern unsigned int ringcap_default_ring_size;
extern unsigned int ringcap_max_ring_mem;
extern unsigned int ringcap_default_watermark;
extern unsigned int ringcap_default_timeout_us;
extern unsigned int ringcap_max_persist;
extern unsigned int ringcap_persist_timeout;
extern unsigned int ringcap_cutoff_flows;
extern unsigned int ringcap_cutoff_idle;
enum ringcap_mode ringcap_mode(void);
void ringcap_mode_follow(void (*changed)(void));

/* The mapping's header page; the data area follows it. */
#define RINGCAP_HDR_BYTES	PAGE_SIZE

/* The mapping is whole pages, so no ring is smaller than one. */
#define RINGCAP_RING_SIZE_FLOOR	max_t(u32, RINGCAP_RING_SIZE_MIN, PAGE_SIZE)

struct ringcap_ring {
	struct ringcap_ring_hdr *hdr;	/* start of the vmalloc area */
	u8 *data;
	u32 data_size;
	size_t mmap_size;
	u64 prod;	/* the producer position; the shared copy is a mirror */
};

struct ringcap_cutoff;
struct ringcap_dev;
struct ringcap_xdp_hold;

struct ringcap_sock {
	struct sock sk;			/* must be first */
	struct mutex lock;
	struct ringcap_ring *ring;	/* set once, under lock */

	/* binding, under rtnl */
	struct net_device *dev;		/* holds a reference while bound */
	struct ringcap_dev *rd;		/* the device's state while bound */
	struct list_head dev_node;	/* rd->socks */
	u32 fed_from, fed_len;		/* its set versions we are in (dev.c) */
	int ifindex;
	u16 queue;
	/*
	 * Bound with CAP_NET_ADMIN over the device's netns: in mode 2 its
	 * frames may be withheld from the stack (DESIGN.md, "Security
	 * posture"). Without it the socket gets copies and the stack the
	 * frames, as in mode 1.
	 */
	bool steal;
	struct ringcap_cluster cluster;	/* set before bind, under lock */
	struct list_head span_node;	/* a spanning cluster's, while bound */
	bool gone;			/* the bound device was unregistered */
	char devname[IFNAMSIZ];		/* for /proc, under ringcap_socks_lock */

	/* the device's missed frames since bind, under lock */
	u64 nic_missed_last;		/* its counter when last read */
	u64 nic_dropped;		/* the sum of its increases since */

	/* options, read locklessly by producers */
	u32 snaplen;			/* what fits the ring until set */
	bool snaplen_set;
	u32 watermark;
	u32 timeout_us;
	u32 ring_size;
	bool promisc;
	bool zerocopy;			/* RINGCAP_ZEROCOPY, set before bind */
	struct ringcap_zc *zc;		/* zero-copy binding, under rtnl and lock */
	bool capture;			/* RINGCAP_CAPTURE, set before bind */
	bool gaps;			/* RINGCAP_GAPS, set before bind */
	struct ringcap_cutoff *cutoff;	/* RINGCAP_FLOW_CUTOFF, set before bind */
	u32 tx_size;			/* RINGCAP_TX_RING_SIZE, 0: none */
	struct ringcap_tx *tx;		/* the transmit ring (tx.c), set once */

	/* producer side, under prod_lock */
	spinlock_t prod_lock;
	struct hrtimer timer;
	u32 pending;		/* frames written since the last signal */
	u64 sig_pos;		/* producer position at the last signal */
	struct ringcap_stats st;
	struct ringcap_gap gap;	/* lost since the last gap record (gap.c) */
	bool gap_pending;

	struct list_head all_node;	/* ringcap_socks */
	struct pid *pid;		/* the reader's process; NULL: unclaimed */

	/* RINGCAP_PERSIST (persist.c): set before bind, then under rtnl */
	char persist[RINGCAP_PERSIST_NAME_MAX + 1];	/* "": none */
	kuid_t persist_owner;
	struct list_head persist_node;	/* ringcap_persists while bound */
	bool unclaimed;			/* its reader is gone; we hold it */
	unsigned long unclaimed_at;	/* jiffies */
	/*
	 * The sock its struct socket had before it took this ring over,
	 * orphaned: a call on the socket that fetched it before then may
	 * still use it, so it goes when the file does (ringcap_release()).
	 */
	struct sock *replaced;
};

static inline struct ringcap_sock *ringcap_sk(const struct sock *sk)
{
	return (struct ringcap_sock *)sk;
}

/*
 * The socket's inode number, what /proc and the tracepoints name it by;
 * 0 for a persistent ring nobody holds. Its struct socket is read once:
 * it may be orphaned or grafted meanwhile (persist.c), and its inode
 * stays there until a grace period after, so callers are under RCU or
 * ringcap_socks_lock.
 */
static inline u64 ringcap_sock_ino(const struct ringcap_sock *rs)
{
	struct socket *sock = READ_ONCE(rs->sk.sk_socket);

	return sock ? SOCK_INODE(sock)->i_ino : 0;
}

/*
 * A flow in one direction (flow.c): what the cut-off tells flows apart
 * by, compared and hashed as 40 bytes, so zeroed before it is filled.
 */
struct ringcap_flow_key {
	__be32 src[4], dst[4];		/* IPv4: the first word of each */
	__be16 sport, dport;		/* 0 without ports, and in a fragment */
	u16 vlan;			/* VLAN id, 0 for none */
	u8 proto;			/* the transport protocol */
	u8 family;			/* 4 or 6; 0: not IP, no flow */
};

struct ringcap_flow {
	struct ringcap_flow_key key;
	u8 tcp_flags;			/* TCP: its flags byte; else 0 */
#define RINGCAP_TCP_FIN	0x01		/* bits of the flags byte (RFC 9293) */
#define RINGCAP_TCP_SYN	0x02
#define RINGCAP_TCP_RST	0x04
#define RINGCAP_TCP_ACK	0x10
	bool fragment;			/* not a whole datagram */
	u16 thoff;			/* the transport header's offset, or 0 */
};

/* A frame on its way into a ring, from any source. */
struct ringcap_frame {
	struct sk_buff *skb;		/* mode 0: data starts at the MAC header */
	const void *data;		/* aware driver: linear frame */
	struct net_device *dev;		/* aware driver: the device */
	struct sk_buff *filter_skb;	/* aware driver: filled on first use */
	u32 len;
	int ifindex;
	u16 queue;
	u16 flags;			/* RINGCAP_REC_VLAN / _HASH */
	u16 vlan_hole;			/* data: skip the in-band tag here, or 0 */
	u16 vlan_tci;
	__be16 vlan_proto;
	u32 rss_hash;
	u64 tstamp_ns;
	struct ringcap_flow flow;	/* flow.c, once flow_parsed */
	bool flow_parsed;
	bool zc;			/* zero-copy: data is in a mapped buffer */
	u32 zc_offset;			/* zero-copy: its offset in the mapping */
};

/*
 * Where a device's frames go: one lone socket, or one cluster whose
 * members share them. Part of an immutable set (dev.c).
 */
struct ringcap_dest {
	struct ringcap_cluster cluster;	/* id 0: a lone socket */
	u16 queue;
	bool steal;			/* a member may withhold frames (mode 2) */
	unsigned int nr;		/* sockets; 1 for a lone one */
	atomic_t next;			/* round robin */
	struct ringcap_sock **socks;
};

struct ringcap_dev_set {
	struct rcu_head rcu;
	u32 version;
	unsigned int nr_dests;
	struct ringcap_dest *dests;	/* after socks[] */
	struct ringcap_sock *socks[];
};

/* Per net_device with bound sockets or an aware driver (dev.c). */
struct ringcap_dev {
	struct list_head node;		/* ringcap_devs, under rtnl */
	struct rcu_head rcu;		/* /proc and RINGCAP_PATH read under RCU */
	struct net_device *dev;
	unsigned int nr_rxq;		/* aware: its RX queues; else 0 */
	struct list_head socks;		/* bound sockets, under rtnl */
	struct packet_type pt;		/* mode 0 hook while socks is non-empty */
	struct ringcap_dev_set __rcu *set;	/* never NULL */
	/* mode 2 through XDP (xdp.c), under rtnl */
	struct list_head xdp_node;	/* while xdp is held */
	struct ringcap_xdp_hold *xdp;	/* the reader's link, its program and map */
	bool xdp_copy;	/* xdp's program calls the kfunc; read locklessly */
	int xdp_target;			/* ifindex of the redirect target */
	bool xdp_native;		/* the driver has native XDP */
	int xdp_error;			/* the reader's failed attach, errno */
	/* zero-copy (zerocopy.c), under rtnl */
	const struct ringcap_drv_ops *ops;	/* what the aware driver offers, or NULL */
	struct ringcap_zc **zc;		/* per RX queue, while registered */
};

/* ring.c */
struct ringcap_ring *ringcap_ring_area(u32 data_size);
struct ringcap_ring *ringcap_ring_alloc(u32 data_size, u32 snaplen);
void ringcap_ring_free(struct ringcap_ring *ring);
void ringcap_ring_info(const struct ringcap_ring *ring,
		       struct ringcap_ring_info *info);
int ringcap_ring_mmap(struct ringcap_ring *ring, struct vm_area_struct *vma,
		      unsigned long pgoff);
bool ringcap_ring_consumer_ok(const struct ringcap_ring *ring, u64 cons);
struct ringcap_rec *ringcap_ring_reserve(struct ringcap_ring *ring, u32 caplen,
					 u32 *rec_len, bool *bad_consumer);
void ringcap_ring_commit(struct ringcap_ring *ring, u32 rec_len);
int ringcap_ring_ensure(struct ringcap_sock *rs);
struct ringcap_ring *ringcap_sock_ring(struct ringcap_sock *rs);

/* frame.c */
int ringcap_capture_init(void);
void ringcap_capture_exit(void);
void ringcap_frame_meta(struct ringcap_frame *f,
			const struct ringcap_rx_meta *meta);
struct sk_buff *ringcap_filter_skb(struct ringcap_frame *f);
void ringcap_frame_copy(const struct ringcap_frame *f, void *to, u32 len);
void ringcap_frame_untag(struct ringcap_frame *f);

/* flow.c */
void ringcap_flow_parse(struct ringcap_frame *f);
bool ringcap_flow_inner(const struct ringcap_frame *f, struct ringcap_flow *in);

/* cutoff.c */
int ringcap_cutoff_set(struct ringcap_sock *rs, u32 bytes);
void ringcap_cutoff_free(struct ringcap_sock *rs);
u32 ringcap_cutoff_limit(struct ringcap_sock *rs);
bool ringcap_cutoff_past(struct ringcap_sock *rs, struct ringcap_frame *f);

/* capture.c: a socket whose producer lock a batch of frames holds */
struct ringcap_batch {
	struct ringcap_sock *rs;	/* or NULL: none held */
	unsigned int n;			/* frames committed to it since */
};
bool ringcap_deliver_batched(struct ringcap_batch *b, struct ringcap_sock *rs,
			     struct ringcap_frame *f);
void ringcap_batch_end(struct ringcap_batch *b);
bool ringcap_deliver(struct ringcap_sock *rs, struct ringcap_frame *f);

/* gap.c */
void ringcap_gap_lost(struct ringcap_sock *rs);
bool ringcap_gap_put(struct ringcap_sock *rs, struct ringcap_ring *ring,
		     u64 tstamp_ns, bool *bad);

/* persist.c */
int ringcap_persist_name(const char *name, unsigned int len);
int ringcap_persist_bind(struct ringcap_sock *rs,
			 const struct sockaddr_ringcap *addr,
			 struct ringcap_sock **ring);
void ringcap_persist_bound(struct ringcap_sock *rs);
void ringcap_persist_takeover(struct socket *sock, struct ringcap_sock *rs,
			      struct ringcap_sock *ring);
bool ringcap_persist_keep(struct ringcap_sock *rs);
void ringcap_persist_unbound(struct ringcap_sock *rs);
int ringcap_persist_delete(struct ringcap_sock *rs, const char *name);
void ringcap_persist_exit(void);

/* hook.c */
void ringcap_hook_add(struct ringcap_dev *rd);
void ringcap_hook_del(struct ringcap_dev *rd);

/* wakeup.c */
void ringcap_wakeup_init(struct ringcap_sock *rs);
void ringcap_wakeup_frames(struct ringcap_sock *rs);
void ringcap_wakeup_flush(struct ringcap_sock *rs);
void ringcap_wakeup_stop(struct ringcap_sock *rs);
bool ringcap_readable(struct ringcap_sock *rs, struct ringcap_ring *ring);
void ringcap_sock_lost(struct ringcap_sock *rs);

/* dev.c */
struct ringcap_dev *ringcap_dev_find(struct net_device *dev);
struct ringcap_dev *ringcap_dev_find_rcu(struct net_device *dev);
struct ringcap_dev *ringcap_dev_get(struct net_device *dev);
void ringcap_dev_put(struct ringcap_dev *rd);
unsigned int ringcap_dev_nr_queues(struct net_device *dev);
int ringcap_dev_publish(struct ringcap_dev *rd, struct ringcap_sock *add,
			struct ringcap_sock *del, bool open_all, bool nofail);
int ringcap_dev_open_all(struct ringcap_dev *rd);
void ringcap_dev_republish(struct ringcap_dev *rd);
void ringcap_dev_close_all(struct ringcap_dev *rd);
/* What ringcap_set_deliver() found. */
#define RINGCAP_SET_WANTED	0x1	/* a destination wanted the frame */
#define RINGCAP_SET_STEAL	0x2	/* one that may withhold it from the stack */
unsigned int ringcap_set_deliver_batched(struct ringcap_dev_set *set,
					 struct ringcap_frame *f,
					 const u32 *skip,
					 struct ringcap_batch *b);
unsigned int ringcap_set_deliver(struct ringcap_dev_set *set,
				 struct ringcap_frame *f, const u32 *skip);

/* tx.c */
int ringcap_tx_prepare(struct ringcap_sock *rs);
void ringcap_tx_bind(struct ringcap_sock *rs);
void ringcap_tx_free(struct ringcap_sock *rs);
int ringcap_tx_info(struct ringcap_sock *rs, struct ringcap_ring_info *info);
int ringcap_tx_stats(struct ringcap_sock *rs, struct ringcap_tx_stats *st);
int ringcap_tx_mmap(struct ringcap_sock *rs, struct vm_area_struct *vma);
int ringcap_tx_kick(struct ringcap_sock *rs);
__poll_t ringcap_tx_poll(struct ringcap_sock *rs, __poll_t asked);

/* zerocopy.c */
int ringcap_zc_bind(struct ringcap_sock *rs);
void ringcap_zc_unbind(struct ringcap_sock *rs);
bool ringcap_zc_queue_taken(struct ringcap_dev *rd, u16 queue);
int ringcap_zc_register(struct ringcap_dev *rd,
			const struct ringcap_drv_ops *ops);
void ringcap_zc_unregister(struct ringcap_dev *rd);
int ringcap_zc_mmap(struct ringcap_sock *rs, struct vm_area_struct *vma);
void ringcap_zc_poll(struct ringcap_sock *rs);
void ringcap_zc_info(struct ringcap_sock *rs, struct ringcap_ring_info *info);

/* xdp.c */
int ringcap_xdp_set_link(struct ringcap_sock *rs,
			 const struct ringcap_xdp_link *req);
void ringcap_xdp_update(struct ringcap_dev *rd, bool leaving);
int ringcap_xdp_init(void);
void ringcap_xdp_exit(void);

/* kfunc.c */
void ringcap_kfunc_init(void);
bool ringcap_kfunc_available(void);
bool ringcap_kfunc_called_by(const struct bpf_prog *prog);
const u32 *ringcap_xdp_marked(const struct sk_buff *skb,
			      const struct ringcap_dev *rd);

/* path.c */
void ringcap_sock_path(struct ringcap_sock *rs, struct ringcap_path *p);
const char *ringcap_path_name(const struct ringcap_path *p);

/* cluster.c */
struct ringcap_sock *ringcap_cluster_pick(struct ringcap_dest *d,
					  struct ringcap_frame *f);
int ringcap_cluster_check(struct ringcap_dev *rd, struct ringcap_sock *rs);
void ringcap_cluster_span_join(struct ringcap_sock *rs);
void ringcap_cluster_span_devices(struct ringcap_sock *rs,
				  void (*fn)(struct ringcap_dev *rd));
void ringcap_cluster_span_leave(struct ringcap_sock *rs);
unsigned int ringcap_cluster_span_members(const struct ringcap_sock *rs,
					  struct ringcap_sock **out);
unsigned int ringcap_cluster_span_room(struct list_head *socks);

static inline bool ringcap_cluster_spans(const struct ringcap_sock *rs)
{
	return rs->cluster.id && (rs->cluster.policy & RINGCAP_CLUSTER_SPAN);
}
bool ringcap_cluster_policy_ok(u32 policy);
const char *ringcap_cluster_policy_name(u32 policy);
void ringcap_cluster_init(void);
/*
 * Set versions are 30 bits (they share ringcap_rx()'s return value with
 * its flags) and compared modulo that. A socket is fed by versions
 * [fed_from, fed_from + fed_len); while it is linked, fed_len is half the
 * version space, far more than can be in flight.
 */
#define RINGCAP_VERSION_MASK	(~0U >> RINGCAP_RX_VERSION_SHIFT)

static inline bool ringcap_fed_by(const struct ringcap_sock *rs, u32 version)
{
	return ((version - READ_ONCE(rs->fed_from)) & RINGCAP_VERSION_MASK) <
	       READ_ONCE(rs->fed_len);
}

/*
 * The mark ringcap_rx_skb() leaves on an aware driver's skb whose frame
 * went to the sockets of one set version of one device. It lives at the
 * end of skb->cb: the driver's skb is fresh (zeroed cb) and goes up
 * without GRO (<ringcap/driver.h>), and nothing between the driver and
 * the device's own packet_type hooks writes skb->cb.
 *
 * The mark holds only on @dev. Versions are global, so a set of another
 * device (a bridge, bond, VLAN or macvlan device the skb reaches next)
 * may well hold sockets "fed by" @version by number: they never had the
 * frame. @dev is compared, never dereferenced.
 */
#define RINGCAP_SKB_IN_RINGS	0x72696e67U
struct ringcap_skb_cb {
	u32	magic;
	u32	version;
	const struct net_device *dev;
};

static inline struct ringcap_skb_cb *ringcap_skb_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(skb->cb) < sizeof(struct ringcap_skb_cb));
	return (void *)(skb->cb + sizeof(skb->cb) - sizeof(struct ringcap_skb_cb));
}

/* bind.c */
bool ringcap_may_steal(struct ringcap_sock *rs, bool audit);
int ringcap_bind(struct ringcap_sock *rs, const struct sockaddr_ringcap *addr);
void ringcap_unbind(struct ringcap_sock *rs);

/* stats.c */
void ringcap_sock_nic_start(struct ringcap_sock *rs);
void ringcap_sock_fold_missed(struct ringcap_sock *rs);
void ringcap_sock_stats(struct ringcap_sock *rs, struct ringcap_stats *st);

/* sockopt.c */
int ringcap_setsockopt(struct socket *sock, int level, int optname,
		       sockptr_t optval, unsigned int optlen);
int ringcap_getsockopt(struct socket *sock, int level, int optname,
		       char __user *optval, int __user *optlen);

/* sock.c */
int ringcap_sock_init(void);
void ringcap_sock_exit(void);
int ringcap_netdev_init(void);
void ringcap_netdev_exit(void);
extern struct mutex ringcap_socks_lock;
extern struct list_head ringcap_socks;

/* proc.c */
int ringcap_proc_init(void);
void ringcap_proc_exit(void);

#endif /* _RINGCAP_H */
