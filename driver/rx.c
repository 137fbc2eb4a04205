// SPDX-License-Identifier: GPL-2.0
/*
 * The RX rings: extended descriptors over 2048-byte buffers that are
 * allocated and DMA-mapped once, when the interface comes up, and handed
 * back to the NIC in place after every frame. Receiving allocates nothing
 * but the skbs of frames that go to the stack (rx<q>_buf_allocs only moves
 * at interface up and ring resize). The buffers are whole pages, two to a
 * page, so that a zero-copy reader can map them (zc.c).
 *
 * Each frame is offered to ringcap while it is still in the DMA buffer;
 * ringcap says whether the stack must have it too (transparent modes).
 * On a zero-copy queue it goes to the reader instead, and its buffer is
 * re-armed only once the reader has released it.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/skbuff.h>
#include "rce.h"
#include "trace.h"

#define RCE_RX_BUFS_PER_PAGE	(PAGE_SIZE / RCE_RX_BUF_LEN)

/**
 * rce_rx_setup - allocate a ring's descriptors and buffers, map them
 * @rx: the ring, with ->ad, ->q set; its size is ad->rx_count
 *
 * Return: 0 or -ENOMEM, with nothing left allocated.
 */
int rce_rx_setup(struct rce_rx_ring *rx)
{
	struct device *dev = &rx->ad->pdev->dev;
	unsigned int i, p;

	BUILD_BUG_ON(RCE_RING_ALIGN % RCE_RX_BUFS_PER_PAGE);
	rx->count = rx->ad->rx_count;
	rx->next = 0;
	rx->discard = false;
	rx->nr_pages = rx->count / RCE_RX_BUFS_PER_PAGE;
	rx->bufs = kcalloc(rx->count, sizeof(*rx->bufs), GFP_KERNEL);
	rx->pages = kcalloc(rx->nr_pages, sizeof(*rx->pages), GFP_KERNEL);
	rx->page_dma = kcalloc(rx->nr_pages, sizeof(*rx->page_dma), GFP_KERNEL);
	if (!rx->bufs || !rx->pages || !rx->page_dma)
		goto err;
	rx->desc = dma_alloc_coherent(dev, rx->count * sizeof(*rx->desc),
				      &rx->desc_dma, GFP_KERNEL);
	if (!rx->desc)
		goto err;

	/* Zeroed: a reader that maps them sees no earlier kernel data. */
	for (p = 0; p < rx->nr_pages; p++) {
		struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		dma_addr_t dma;

		if (!page)
			goto err;
		dma = dma_map_page(dev, page, 0, PAGE_SIZE, DMA_FROM_DEVICE);
		if (dma_mapping_error(dev, dma)) {
			__free_page(page);
			goto err;
		}
		rx->pages[p] = page;
		rx->page_dma[p] = dma;
	}
	for (i = 0; i < rx->count; i++) {
		struct rce_rx_buf *b = &rx->bufs[i];
		unsigned int off = i % RCE_RX_BUFS_PER_PAGE * RCE_RX_BUF_LEN;

		p = i / RCE_RX_BUFS_PER_PAGE;
		b->data = page_address(rx->pages[p]) + off;
		b->dma = rx->page_dma[p] + off;
		rce_rx_desc_arm(rx, i);
	}
	u64_stats_update_begin(&rx->stats.syncp);
	u64_stats_add(&rx->stats.buf_allocs, rx->count);
	u64_stats_update_end(&rx->stats.syncp);
	return 0;

err:
	rce_rx_free(rx);
	return -ENOMEM;
}

/**
 * rce_rx_free - undo rce_rx_setup()
 * @rx: the ring, the NIC no longer writing it
 *
 * A zero-copy reader's mapping keeps its own references to the pages.
 */
void rce_rx_free(struct rce_rx_ring *rx)
{
	struct device *dev = &rx->ad->pdev->dev;
	unsigned int p;

	for (p = 0; rx->pages && p < rx->nr_pages && rx->pages[p]; p++) {
		dma_unmap_page(dev, rx->page_dma[p], PAGE_SIZE,
			       DMA_FROM_DEVICE);
		put_page(rx->pages[p]);
	}
	kfree(rx->pages);
	kfree(rx->page_dma);
	kfree(rx->bufs);
	rx->pages = NULL;
	rx->page_dma = NULL;
	rx->bufs = NULL;
	if (rx->desc)
		dma_free_coherent(dev, rx->count * sizeof(*rx->desc), rx->desc,
				  rx->desc_dma);
	rx->desc = NULL;
}

/**
 * rce_rx_configure - point the NIC at the rings and start receiving
 * @ad: the adapter, rings set up, after rce_hw_reset()
 *
 * The descriptor format and buffer size latch when RCTL.EN is written,
 * so RFCTL, RXCSUM and RSS are programmed first.
 */
void rce_rx_configure(struct rce_adapter *ad)
{
	int q;

	rce_wr(ad, RCE_RCTL, 0);
	for (q = 0; q < RCE_NUM_RXQ; q++) {
		struct rce_rx_ring *rx = &ad->rx[q];

		rce_wr(ad, RCE_RDBAL(q), lower_32_bits(rx->desc_dma));
		rce_wr(ad, RCE_RDBAH(q), upper_32_bits(rx->desc_dma));
		rce_wr(ad, RCE_RDLEN(q), rx->count * sizeof(*rx->desc));
		rce_wr(ad, RCE_RDH(q), 0);
		/* One descriptor stays ours so a full ring is not an empty one. */
		rce_wr(ad, RCE_RDT(q), rx->count - 1);
	}
	/* No receive delay: the threads batch, EITR/ITR moderate. */
	rce_wr(ad, RCE_RDTR, 0);
	rce_wr(ad, RCE_RADV, 0);
	rce_wr(ad, RCE_RFCTL, RCE_RFCTL_EXSTEN | RCE_RFCTL_ACK_DIS);
	rce_hw_setup_rss(ad);
	rce_hw_set_vlan_strip(ad, ad->netdev->features &
			      NETIF_F_HW_VLAN_CTAG_RX);

	netif_addr_lock_bh(ad->netdev);
	rce_wr(ad, RCE_RCTL, RCE_RCTL_BAM | RCE_RCTL_SECRC |
	       RCE_RCTL_BSIZE_2048 | RCE_RCTL_RDMTS_HALF);
	rce_hw_set_rx_mode(ad);
	rce_wr(ad, RCE_RCTL, rce_rd(ad, RCE_RCTL) | RCE_RCTL_EN);
	netif_addr_unlock_bh(ad->netdev);
}

/**
 * rce_rx_pending - has the NIC written the next descriptor?
 * @rx: the ring, from its thread
 *
 * Return: whether its DD bit is set.
 */
bool rce_rx_pending(struct rce_rx_ring *rx)
{
	u32 st = le32_to_cpu(READ_ONCE(rx->desc[rx->next].wb.status_error));

	return st & RCE_RXD_STAT_DD;
}

struct rce_rx_tally {
	unsigned int packets, bytes, errors, to_ring, to_stack, dropped;
	unsigned int vlan_stripped;
};

/* Hash types 1 and 3 are TCP over IPv4/IPv6: the hash covers the ports. */
static enum pkt_hash_types rce_rss_type(u32 mrq)
{
	switch (mrq & RCE_RXD_MRQ_RSS_TYPE) {
	case 0:
		return PKT_HASH_TYPE_NONE;
	case 1:
	case 3:
		return PKT_HASH_TYPE_L4;
	default:
		return PKT_HASH_TYPE_L3;
	}
}

/* What the write-back says about a frame besides its length. */
static enum pkt_hash_types rce_rx_meta(const union rce_rx_desc *d, u32 st,
				       struct ringcap_rx_meta *meta)
{
	enum pkt_hash_types htype = rce_rss_type(le32_to_cpu(d->wb.mrq));

	*meta = (struct ringcap_rx_meta) {
		.rss_hash = le32_to_cpu(d->wb.rss_hash),
		.has_hash = htype != PKT_HASH_TYPE_NONE,
		.vlan_tci = le16_to_cpu(d->wb.vlan),
		.has_vlan = !!(st & RCE_RXD_STAT_VP),
	};
	return htype;
}

/*
 * One good frame: to the rings and/or to a fresh skb on @list. A tag the
 * NIC stripped (VP) goes with it: to the rings in the record, to the
 * stack as the skb's accelerated tag.
 */
static void rce_rx_frame(struct rce_rx_ring *rx, struct ringcap_dev *rd,
			 const union rce_rx_desc *d, u32 st, const void *data,
			 unsigned int len, struct list_head *list,
			 struct rce_rx_tally *t)
{
	struct ringcap_rx_meta meta;
	enum pkt_hash_types htype = rce_rx_meta(d, st, &meta);
	unsigned int where = RINGCAP_RX_STACK;
	struct sk_buff *skb;

	t->vlan_stripped += meta.has_vlan;

	if (rd)
		where = ringcap_rx(rd, rx->q, data, len, &meta);
	if (where & RINGCAP_RX_RING)
		t->to_ring++;
	if (!(where & RINGCAP_RX_STACK))
		return;

	skb = netdev_alloc_skb_ip_align(rx->ad->netdev, len);
	if (unlikely(!skb)) {
		t->dropped++;
		return;
	}
	skb_put_data(skb, data, len);
	skb->protocol = eth_type_trans(skb, rx->ad->netdev);
	skb_record_rx_queue(skb, rx->q);
	ringcap_rx_skb(skb, where);
	if (meta.has_hash)
		skb_set_hash(skb, meta.rss_hash, htype);
	if (meta.has_vlan)
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q), meta.vlan_tci);
	list_add_tail(&skb->list, list);
	t->to_stack++;
}

/* A zero-copy queue's frame: the buffer goes to the reader, if it takes it. */
static void rce_rx_zc_frame(struct rce_rx_ring *rx, const union rce_rx_desc *d,
			    u32 st, unsigned int i, unsigned int len,
			    struct rce_rx_tally *t)
{
	struct ringcap_rx_meta meta;

	rce_rx_meta(d, st, &meta);
	t->vlan_stripped += meta.has_vlan;
	if (ringcap_zc_rx(rx->zc, i, len, &meta))
		t->to_ring++;
}

/**
 * rce_rx_clean - handle up to @budget received descriptors
 * @rx: the ring; called by its thread only
 * @budget: most descriptors to handle
 *
 * Frames the stack must see are passed up together at the end, with
 * bottom halves off as netif_receive_skb_list() expects. The tail
 * register is written at most once per call. A zero-copy queue re-arms
 * only what its reader released (and what never went to it), and nothing
 * once the reader's queue is dead.
 *
 * Return: how many descriptors were handled.
 */
unsigned int rce_rx_clean(struct rce_rx_ring *rx, unsigned int budget)
{
	struct rce_adapter *ad = rx->ad;
	struct device *dev = &ad->pdev->dev;
	struct rce_rx_tally t = { };
	unsigned int done = 0, rearmed = 0, i = rx->next;
	struct ringcap_zc *zc = rx->zc;
	struct ringcap_dev *rd;
	LIST_HEAD(list);

	rcu_read_lock();
	if (zc && ringcap_zc_dead(zc)) {
		rcu_read_unlock();
		return 0;
	}
	rd = rcu_dereference(ad->rd);
	while (done < budget) {
		union rce_rx_desc *d = &rx->desc[i];
		struct rce_rx_buf *b = &rx->bufs[i];
		u32 st = le32_to_cpu(READ_ONCE(d->wb.status_error));
		unsigned int len;

		if (!(st & RCE_RXD_STAT_DD))
			break;
		/* Read the rest of the write-back only after DD. */
		dma_rmb();
		len = le16_to_cpu(d->wb.len);

		dma_sync_single_for_cpu(dev, b->dma, RCE_RX_BUF_LEN,
					DMA_FROM_DEVICE);
		if (!(st & RCE_RXD_STAT_EOP)) {
			/* Longer than a buffer: we take no jumbo frames. */
			if (!rx->discard)
				t.errors++;
			rx->discard = true;
		} else if (rx->discard) {
			rx->discard = false;	/* its last piece */
		} else if ((st & RCE_RXD_ERR_FRAME) || len < ETH_HLEN) {
			t.errors++;
		} else {
			t.packets++;
			t.bytes += len;
			if (zc)
				rce_rx_zc_frame(rx, d, st, i, len, &t);
			else
				rce_rx_frame(rx, rd, d, st, b->data, len,
					     &list, &t);
		}
		if (!zc) {
			dma_sync_single_for_device(dev, b->dma, RCE_RX_BUF_LEN,
						   DMA_FROM_DEVICE);
			rce_rx_desc_arm(rx, i);
		}
		done++;
		if (++i == rx->count)
			i = 0;
	}
	rx->next = i;
	if (zc) {
		rearmed = rce_zc_rearm(rx);
		i = rx->zc_clean;
	}
	rcu_read_unlock();
	if (!done && !rearmed)
		return 0;

	/*
	 * The descriptors must be re-armed in memory before the NIC sees RDT.
	 * A zero-copy ring's tail moves only with what was re-armed: frames
	 * its reader still holds leave it where it was, and writing the same
	 * value again costs an MMIO write (a VM exit under emulation) per call.
	 */
	if (!zc || rearmed) {
		wmb();
		rce_wr(ad, RCE_RDT(rx->q), (i ? i : rx->count) - 1);
	}

	if (!list_empty(&list)) {
		local_bh_disable();
		netif_receive_skb_list(&list);
		local_bh_enable();
	}

	u64_stats_update_begin(&rx->stats.syncp);
	u64_stats_add(&rx->stats.packets, t.packets);
	u64_stats_add(&rx->stats.bytes, t.bytes);
	u64_stats_add(&rx->stats.errors, t.errors);
	u64_stats_add(&rx->stats.to_ring, t.to_ring);
	u64_stats_add(&rx->stats.to_stack, t.to_stack);
	u64_stats_add(&rx->stats.vlan_stripped, t.vlan_stripped);
	u64_stats_add(&rx->stats.dropped, t.dropped);
	u64_stats_inc(&rx->stats.batches);
	u64_stats_update_end(&rx->stats.syncp);
	trace_rce_rx_batch(rx, done, t.packets, t.to_ring, t.to_stack,
			   t.dropped, budget);
	return done;
}
