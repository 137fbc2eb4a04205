/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ringcap_e1000e internals: the adapter, its rings and the calls between
 * the driver's files. docs/DRIVER.md describes the driver as a whole.
 *
 * Contexts: each RX ring belongs to its kernel thread, which alone touches
 * its descriptors, buffers and software counters. The TX ring is shared by
 * ndo_start_xmit (under the netdev TX lock) and the TX NAPI poll, which
 * meet only through next_to_use/next_to_clean and the queue-stopped bit.
 * Everything that changes the rings' existence runs under RTNL.
 */
#ifndef _RCE_H
#define _RCE_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/io.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include <ringcap/driver.h>
#include "desc.h"
#include "regs.h"

#define RCE_DRV_NAME		"ringcap_e1000e"
#define RCE_NUM_RXQ		2
#define RCE_RX_BUF_LEN		2048	/* RCTL.BSIZE = 2048, no BSEX */
/*
 * 1024 receive buffers a queue (2 MiB): a zero-copy reader's buffers are
 * the queue's own, and libringcap wakes it after a quarter of them; with
 * 256 that was every 64 frames, which made zero-copy dearer per frame
 * than copy mode at 64 B (docs/ZEROCOPY.md). It also rides out four
 * times the burst before the NIC drops.
 */
#define RCE_RX_RING_DEFAULT	1024
#define RCE_TX_RING_DEFAULT	256
#define RCE_RING_MIN		64
#define RCE_RING_MAX		4096
/* RDLEN/TDLEN must be multiples of 128 bytes: 8 descriptors. */
#define RCE_RING_ALIGN		8
#define RCE_TX_WAKE_THRESH	32	/* free descriptors to restart TX */
/* At most 20000 interrupts a second per vector, as ITR counts 256 ns. */
#define RCE_ITR_DEFAULT_USECS	50
#define RCE_ITR_MAX_USECS	16776	/* 0xffff * 256 ns */

/* RCE_IRQ_AUTO is a request only (irq_mode=auto): each kind in turn. */
enum rce_irq_mode { RCE_IRQ_AUTO, RCE_IRQ_MSIX, RCE_IRQ_MSI, RCE_IRQ_LEGACY };

/* MSI-X vectors, in the order IVAR maps causes to them. */
enum rce_vector { RCE_VEC_RX0, RCE_VEC_RX1, RCE_VEC_TX, RCE_VEC_OTHER,
		  RCE_NUM_VEC };

struct rce_adapter;

struct rce_rx_buf {
	void		*data;
	dma_addr_t	dma;
};

/* Written by the queue's thread only, read by ethtool and stats64. */
struct rce_rx_stats {
	u64_stats_t	packets;
	u64_stats_t	bytes;
	u64_stats_t	errors;
	u64_stats_t	to_ring;
	u64_stats_t	to_stack;
	u64_stats_t	unmasks;
	u64_stats_t	wakeups;
	u64_stats_t	batches;
	u64_stats_t	buf_allocs;
	u64_stats_t	vlan_stripped;	/* tags the NIC took out (VP) */
	u64_stats_t	dropped;	/* no skb for the stack */
	u64_stats_t	zc_masked;	/* idle with the IRQ masked: reader busy */
	u64_stats_t	zc_rearmed;	/* buffers a zero-copy reader gave back */
	struct u64_stats_sync syncp;
};

struct rce_rx_ring {
	struct rce_adapter	*ad;
	unsigned int		q;
	union rce_rx_desc	*desc;
	dma_addr_t		desc_dma;
	unsigned int		count;
	unsigned int		next;		/* next descriptor to look at */
	bool			discard;	/* inside a frame that overflowed */
	struct rce_rx_buf	*bufs;
	struct page		**pages;	/* the buffers, two per page */
	dma_addr_t		*page_dma;
	unsigned int		nr_pages;
	/* Zero-copy (zc.c): the thread's, switched on its side. */
	struct ringcap_zc	*zc;		/* a reader has the queue */
	struct ringcap_zc	*zc_next;	/* what RTNL asked for */
	unsigned int		zc_clean;	/* first descriptor not re-armed */
	struct completion	zc_switched;
	struct task_struct	*thread;
	u32			irq_bit;	/* IMS/IMC bit of this queue */
	unsigned long		irq_held;	/* bit 0: masked for the thread */
	struct rce_rx_stats	stats;
	/* Counted in the interrupt handler. */
	atomic_long_t		irqs;
	atomic_long_t		masks;
	char			irq_name[IFNAMSIZ + 8];
};

struct rce_tx_buf {
	struct sk_buff	*skb;
	dma_addr_t	dma;
	unsigned int	len;
};

/* Written by the TX NAPI poll only. */
struct rce_tx_stats {
	u64_stats_t	packets;
	u64_stats_t	bytes;
	u64_stats_t	cleaned;
	struct u64_stats_sync syncp;
};

struct rce_tx_ring {
	struct rce_adapter	*ad;
	struct rce_tx_desc	*desc;
	dma_addr_t		desc_dma;
	unsigned int		count;
	unsigned int		next_to_use;	/* xmit side */
	unsigned int		next_to_clean;	/* NAPI side */
	struct rce_tx_buf	*bufs;		/* skb NULL: a ring frame */
	/* A buffer per descriptor, mapped once, for ringcap's TX ring. */
	struct page		**pages;	/* two buffers per page */
	dma_addr_t		*page_dma;
	unsigned int		nr_pages;
	struct napi_struct	napi;
	u32			irq_bit;
	struct rce_tx_stats	stats;
	/* Counted on the xmit side, which may run beside the poll. */
	atomic_long_t		busy;
	atomic_long_t		ring_frames;	/* from ringcap TX rings */
	char			irq_name[IFNAMSIZ + 8];
};

/* Hardware counters accumulated from the clear-on-read registers. */
struct rce_hw_stats {
	u64	mpc, rnbc, crcerrs, rxerrc, roc, colc;
	u64	gprc, gptc, mprc;
	u64	len_errs;	/* RUC + ROC: undersize and oversize */
};

struct rce_adapter {
	struct net_device	*netdev;
	struct pci_dev		*pdev;
	u8 __iomem		*hw;
	struct ringcap_dev __rcu *rd;	/* NULL once removal has begun */

	enum rce_irq_mode	irq_mode;
	int			nvec;
	u32			rx_irq_bits;	/* all RX causes we enable */
	/* Single vector: the RX causes are shared by both queues, so they
	 * stay masked until every queue that was woken has drained. With
	 * MSI-X it orders a queue's hold against its thread's arm. */
	spinlock_t		rx_irq_lock;
	unsigned int		rx_active;	/* queues holding the mask */
	int			irq_vec[RCE_NUM_VEC];	/* Linux IRQ numbers */

	struct rce_rx_ring	rx[RCE_NUM_RXQ];
	struct rce_tx_ring	tx;
	unsigned int		rx_count, tx_count;	/* ring sizes */
	bool			up;	/* rce_up() done, rce_down() not yet */
	u32			itr_usecs;		/* ethtool -C rx-usecs */
	u32			tx_itr_usecs;		/* tx-usecs: MSI-X only */

	spinlock_t		stats_lock;
	struct rce_hw_stats	hws;
	struct delayed_work	stats_work;	/* counters and link, every second */
	struct work_struct	reset_work;	/* TX timeout: down and up again */
	spinlock_t		link_lock;
	atomic_long_t		irq_other;
	atomic_long_t		rx_overruns;	/* RXO: a queue had no descriptor */
	atomic_long_t		link_changes;
};

static inline u32 rce_rd(struct rce_adapter *ad, u32 reg)
{
	return readl(ad->hw + reg);
}

static inline void rce_wr(struct rce_adapter *ad, u32 reg, u32 val)
{
	writel(val, ad->hw + reg);
}

static inline void rce_flush(struct rce_adapter *ad)
{
	rce_rd(ad, RCE_STATUS);
}

/* main.c: module parameters */
int rce_param_rx_cpu(unsigned int q);
bool rce_param_busy_poll(void);
unsigned int rce_param_rx_batch(void);

/* hw.c */
int rce_hw_reset(struct rce_adapter *ad);
void rce_hw_read_mac(struct rce_adapter *ad, u8 *mac);
void rce_hw_set_mac(struct rce_adapter *ad, const u8 *mac);
void rce_hw_set_rx_mode(struct rce_adapter *ad);
void rce_hw_setup_rss(struct rce_adapter *ad);
void rce_hw_set_vlan_strip(struct rce_adapter *ad, bool on);
void rce_hw_set_itr(struct rce_adapter *ad);
void rce_link_update(struct rce_adapter *ad);
void rce_hw_stats_update(struct rce_adapter *ad);
void rce_hw_stats_work(struct work_struct *work);

/* irq.c */
int rce_irq_alloc_vectors(struct rce_adapter *ad, enum rce_irq_mode want);
void rce_irq_free_vectors(struct rce_adapter *ad);
int rce_irq_request(struct rce_adapter *ad);
void rce_irq_release(struct rce_adapter *ad);
void rce_irq_enable(struct rce_adapter *ad);
void rce_irq_disable(struct rce_adapter *ad);
void rce_irq_sync(struct rce_adapter *ad);
void rce_rx_irq_arm(struct rce_rx_ring *rx);
const char *rce_irq_mode_name(enum rce_irq_mode mode);

/* tx.c */
int rce_tx_setup(struct rce_adapter *ad);
void rce_tx_configure(struct rce_adapter *ad);
void rce_tx_free(struct rce_adapter *ad);
netdev_tx_t rce_xmit(struct sk_buff *skb, struct net_device *netdev);
int rce_tx_frames(struct net_device *netdev, const struct ringcap_tx_frame *f,
		  unsigned int n);
int rce_tx_poll(struct napi_struct *napi, int budget);

/*
 * Hand descriptor i's buffer (back) to the NIC: copy and zero-copy
 * receive both do (rx.c, zc.c).
 */
static inline void rce_rx_desc_arm(struct rce_rx_ring *rx, unsigned int i)
{
	rx->desc[i].read.addr = cpu_to_le64(rx->bufs[i].dma);
	/* Also clears the DD bit the write-back put in this word. */
	rx->desc[i].read.reserved = 0;
}

/* rx.c */
int rce_rx_setup(struct rce_rx_ring *rx);
void rce_rx_configure(struct rce_adapter *ad);
void rce_rx_free(struct rce_rx_ring *rx);
unsigned int rce_rx_clean(struct rce_rx_ring *rx, unsigned int budget);
bool rce_rx_pending(struct rce_rx_ring *rx);

/* zc.c */
int rce_zc_start(struct net_device *netdev, unsigned int q,
		 struct ringcap_zc *zc);
void rce_zc_stop(struct net_device *netdev, unsigned int q);
void rce_zc_wakeup(struct net_device *netdev, unsigned int q);
void rce_zc_apply(struct rce_rx_ring *rx);
unsigned int rce_zc_rearm(struct rce_rx_ring *rx);
bool rce_zc_want_irq(struct rce_rx_ring *rx);
void rce_zc_down(struct rce_rx_ring *rx);

/* rxthread.c */
int rce_rx_threads_start(struct rce_adapter *ad);
void rce_rx_threads_stop(struct rce_adapter *ad);

/* netdev.c */
extern const struct net_device_ops rce_netdev_ops;
void rce_reset_work(struct work_struct *work);
int rce_up(struct rce_adapter *ad);
void rce_down(struct rce_adapter *ad);

/* ethtool.c */
extern const struct ethtool_ops rce_ethtool_ops;

#endif /* _RCE_H */
