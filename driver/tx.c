// SPDX-License-Identifier: GPL-2.0
/*
 * The TX ring: one legacy descriptor per frame (we advertise no scatter-
 * gather and no offloads, so every skb is linear and complete), and
 * completion cleaning from the TX vector's NAPI poll. Only TX queue 0 of
 * the 82574's two is used.
 *
 * Frames from a ringcap transmit ring (rce_tx_frames) take the same
 * descriptors without an skb: each descriptor has a 2048-byte buffer of
 * its own, allocated and mapped once with the ring, that the frame is
 * copied into; such a descriptor's bufs[].skb is NULL.
 *
 * ndo_start_xmit owns next_to_use, the poll owns next_to_clean; each reads
 * the other's index. Stopping and waking the queue follows the usual
 * pattern: stop, full barrier, look again.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include "rce.h"

static unsigned int rce_tx_free_descs(struct rce_tx_ring *tx)
{
	unsigned int ntu = READ_ONCE(tx->next_to_use);
	unsigned int ntc = READ_ONCE(tx->next_to_clean);

	return (ntc + tx->count - ntu - 1) % tx->count;
}

#define RCE_TX_BUFS_PER_PAGE	(PAGE_SIZE / RCE_RX_BUF_LEN)

static void rce_tx_free_pages(struct rce_tx_ring *tx)
{
	unsigned int p;

	for (p = 0; tx->pages && p < tx->nr_pages && tx->pages[p]; p++) {
		dma_unmap_page(&tx->ad->pdev->dev, tx->page_dma[p], PAGE_SIZE,
			       DMA_TO_DEVICE);
		__free_page(tx->pages[p]);
	}
	kfree(tx->pages);
	kfree(tx->page_dma);
	tx->pages = NULL;
	tx->page_dma = NULL;
}

/* A buffer per descriptor for ring frames, mapped for the NIC to read. */
static int rce_tx_alloc_pages(struct rce_tx_ring *tx)
{
	struct device *dev = &tx->ad->pdev->dev;
	unsigned int p;

	tx->nr_pages = DIV_ROUND_UP(tx->count, RCE_TX_BUFS_PER_PAGE);
	tx->pages = kcalloc(tx->nr_pages, sizeof(*tx->pages), GFP_KERNEL);
	tx->page_dma = kcalloc(tx->nr_pages, sizeof(*tx->page_dma), GFP_KERNEL);
	if (!tx->pages || !tx->page_dma)
		return -ENOMEM;
	for (p = 0; p < tx->nr_pages; p++) {
		struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		dma_addr_t dma;

		if (!page)
			return -ENOMEM;
		dma = dma_map_page(dev, page, 0, PAGE_SIZE, DMA_TO_DEVICE);
		if (dma_mapping_error(dev, dma)) {
			__free_page(page);
			return -ENOMEM;
		}
		tx->pages[p] = page;
		tx->page_dma[p] = dma;
	}
	return 0;
}

/**
 * rce_tx_setup - allocate the TX ring: descriptors, buffers, their pages
 * @ad: the adapter; its size is ad->tx_count
 *
 * Return: 0 or -ENOMEM, with nothing left allocated.
 */
int rce_tx_setup(struct rce_adapter *ad)
{
	struct rce_tx_ring *tx = &ad->tx;

	tx->count = ad->tx_count;
	tx->next_to_use = 0;
	tx->next_to_clean = 0;
	tx->bufs = kcalloc(tx->count, sizeof(*tx->bufs), GFP_KERNEL);
	if (!tx->bufs)
		return -ENOMEM;
	if (rce_tx_alloc_pages(tx))
		goto err_pages;
	tx->desc = dma_alloc_coherent(&ad->pdev->dev,
				      tx->count * sizeof(*tx->desc),
				      &tx->desc_dma, GFP_KERNEL);
	if (!tx->desc)
		goto err_pages;
	return 0;

err_pages:
	rce_tx_free_pages(tx);
	kfree(tx->bufs);
	tx->bufs = NULL;
	return -ENOMEM;
}

/**
 * rce_tx_free - undo rce_tx_setup()
 * @ad: the adapter, the NIC stopped
 *
 * Frees the frames the NIC never sent too.
 */
void rce_tx_free(struct rce_adapter *ad)
{
	struct rce_tx_ring *tx = &ad->tx;
	unsigned int i;

	for (i = 0; i < tx->count; i++) {
		struct rce_tx_buf *b = &tx->bufs[i];

		if (!b->skb)
			continue;
		dma_unmap_single(&ad->pdev->dev, b->dma, b->len, DMA_TO_DEVICE);
		dev_kfree_skb_any(b->skb);
		b->skb = NULL;
	}
	netdev_reset_queue(ad->netdev);
	rce_tx_free_pages(tx);
	kfree(tx->bufs);
	tx->bufs = NULL;
	dma_free_coherent(&ad->pdev->dev, tx->count * sizeof(*tx->desc),
			  tx->desc, tx->desc_dma);
	tx->desc = NULL;
}

/**
 * rce_tx_configure - give the TX ring to the NIC and enable the transmitter
 * @ad: the adapter, its ring set up
 */
void rce_tx_configure(struct rce_adapter *ad)
{
	struct rce_tx_ring *tx = &ad->tx;

	rce_wr(ad, RCE_TDBAL(0), lower_32_bits(tx->desc_dma));
	rce_wr(ad, RCE_TDBAH(0), upper_32_bits(tx->desc_dma));
	rce_wr(ad, RCE_TDLEN(0), tx->count * sizeof(*tx->desc));
	rce_wr(ad, RCE_TDH(0), 0);
	rce_wr(ad, RCE_TDT(0), 0);
	rce_wr(ad, RCE_TXDCTL(0),
	       rce_rd(ad, RCE_TXDCTL(0)) | RCE_TXDCTL_GRAN);
	/* The datasheet's copper values: IPGT 8, IPGR1 8, IPGR2 6. */
	rce_wr(ad, RCE_TIPG, 8 | 8 << 10 | 6 << 20);
	/* TARC0 keeps its reset value: the 82574 wants bit 10 set there. */
	rce_wr(ad, RCE_TCTL, RCE_TCTL_EN | RCE_TCTL_PSP | RCE_TCTL_RTLC |
	       0x0f << RCE_TCTL_CT_SHIFT | 0x3f << RCE_TCTL_COLD_SHIFT);
}

/* Stop the queue when it is full; the TX lock held. */
static void rce_tx_maybe_stop(struct rce_tx_ring *tx, struct net_device *netdev)
{
	if (likely(rce_tx_free_descs(tx) >= 1))
		return;
	netif_stop_queue(netdev);
	atomic_long_inc(&tx->busy);
	/* The poll may have cleaned in between: look again. */
	smp_mb();
	if (rce_tx_free_descs(tx) >= RCE_TX_WAKE_THRESH)
		netif_start_queue(netdev);
}

/**
 * rce_xmit - ndo_start_xmit: one skb into the TX ring
 * @skb: the frame, linear or not
 * @netdev: the device
 *
 * Return: NETDEV_TX_OK, the skb sent or dropped (and counted), or
 * NETDEV_TX_BUSY should the ring be full despite the queue stop.
 */
netdev_tx_t rce_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct rce_adapter *ad = netdev_priv(netdev);
	struct rce_tx_ring *tx = &ad->tx;
	struct rce_tx_desc *d;
	struct rce_tx_buf *b;
	unsigned int i;
	dma_addr_t dma;
	bool kick;

	/* Frees the skb on failure. */
	if (skb_put_padto(skb, ETH_ZLEN))
		goto drop;

	if (unlikely(!rce_tx_free_descs(tx))) {
		/* The stop below should have kept us from getting here. */
		netif_stop_queue(netdev);
		atomic_long_inc(&tx->busy);
		return NETDEV_TX_BUSY;
	}

	dma = dma_map_single(&ad->pdev->dev, skb->data, skb->len,
			     DMA_TO_DEVICE);
	if (dma_mapping_error(&ad->pdev->dev, dma)) {
		dev_kfree_skb_any(skb);
		goto drop;
	}

	i = tx->next_to_use;
	b = &tx->bufs[i];
	b->skb = skb;
	b->dma = dma;
	b->len = skb->len;
	d = &tx->desc[i];
	d->addr = cpu_to_le64(dma);
	d->len = cpu_to_le16(skb->len);
	d->cso = 0;
	d->css = 0;
	d->special = 0;
	d->status = 0;
	d->cmd = RCE_TXD_CMD_EOP | RCE_TXD_CMD_IFCS | RCE_TXD_CMD_RS;
	/* BQL accounting; says whether the doorbell may wait for more. */
	kick = __netdev_sent_queue(netdev, skb->len, netdev_xmit_more());
	skb_tx_timestamp(skb);

	/* The poll reads next_to_use: publish it after the descriptor. */
	smp_store_release(&tx->next_to_use, i + 1 == tx->count ? 0 : i + 1);

	rce_tx_maybe_stop(tx, netdev);

	if (kick || netif_queue_stopped(netdev)) {
		/* writel orders the descriptor writes before the doorbell. */
		rce_wr(ad, RCE_TDT(0), tx->next_to_use);
	}
	return NETDEV_TX_OK;

drop:
	netdev->stats.tx_dropped++;
	/* Frames queued before this one waited for this doorbell. */
	if (!netdev_xmit_more())
		rce_wr(ad, RCE_TDT(0), tx->next_to_use);
	return NETDEV_TX_OK;
}

/**
 * rce_tx_frames - send frames of a ringcap transmit ring, without skbs
 * @netdev: our device
 * @f: the frames, each 14..MTU + 18 bytes (ringcap checked them against
 *     the MTU at the kick; ours is at most ETH_DATA_LEN, so 1518)
 * @n: how many
 *
 * Each frame is copied into its descriptor's own buffer; the doorbell is
 * rung once for all of them. Shares the ring with rce_xmit() under the
 * queue's TX lock, and stops and wakes the queue as it does.
 *
 * Return: how many were queued (fewer when the ring filled up), or
 * -ENETDOWN.
 */
int rce_tx_frames(struct net_device *netdev, const struct ringcap_tx_frame *f,
		  unsigned int n)
{
	struct rce_adapter *ad = netdev_priv(netdev);
	struct netdev_queue *txq = netdev_get_tx_queue(netdev, 0);
	struct rce_tx_ring *tx = &ad->tx;
	unsigned int k, bytes = 0;

	__netif_tx_lock_bh(txq);
	if (!ad->up || !netif_carrier_ok(netdev)) {
		__netif_tx_unlock_bh(txq);
		return -ENETDOWN;
	}
	for (k = 0; k < n && !netif_xmit_stopped(txq); k++) {
		unsigned int i = tx->next_to_use;
		unsigned int len = max_t(unsigned int, f[k].len, ETH_ZLEN);
		unsigned int off = i % RCE_TX_BUFS_PER_PAGE * RCE_RX_BUF_LEN;
		unsigned int p = i / RCE_TX_BUFS_PER_PAGE;
		u8 *buf = page_address(tx->pages[p]) + off;
		dma_addr_t dma = tx->page_dma[p] + off;
		struct rce_tx_desc *d = &tx->desc[i];

		if (WARN_ON_ONCE(len > RCE_RX_BUF_LEN))
			break;
		memcpy(buf, f[k].data, f[k].len);
		/* Short frames are padded with zeros, as skb_put_padto(). */
		memset(buf + f[k].len, 0, len - f[k].len);
		dma_sync_single_for_device(&ad->pdev->dev, dma, len,
					   DMA_TO_DEVICE);
		tx->bufs[i].skb = NULL;
		tx->bufs[i].dma = dma;
		tx->bufs[i].len = len;
		d->addr = cpu_to_le64(dma);
		d->len = cpu_to_le16(len);
		d->cso = 0;
		d->css = 0;
		d->special = 0;
		d->status = 0;
		d->cmd = RCE_TXD_CMD_EOP | RCE_TXD_CMD_IFCS | RCE_TXD_CMD_RS;
		bytes += len;
		smp_store_release(&tx->next_to_use,
				  i + 1 == tx->count ? 0 : i + 1);
		rce_tx_maybe_stop(tx, netdev);
	}
	if (k) {
		netdev_tx_sent_queue(txq, bytes);
		atomic_long_add(k, &tx->ring_frames);
		txq_trans_cond_update(txq);
		/* writel orders the descriptor writes before the doorbell. */
		rce_wr(ad, RCE_TDT(0), tx->next_to_use);
	}
	__netif_tx_unlock_bh(txq);
	return k;
}

/**
 * rce_tx_poll - NAPI poll of the TX vector: reclaim sent frames
 * @napi: the TX ring's NAPI context
 * @budget: RX budget; TX cleaning is not bounded by it
 *
 * Return: always 0, after re-enabling the TX interrupt unless @budget is
 * 0 (netpoll), which must not complete.
 */
int rce_tx_poll(struct napi_struct *napi, int budget)
{
	struct rce_tx_ring *tx = container_of(napi, struct rce_tx_ring, napi);
	struct rce_adapter *ad = tx->ad;
	struct net_device *netdev = ad->netdev;
	unsigned int i = tx->next_to_clean, packets = 0, bytes = 0;
	unsigned int ntu = smp_load_acquire(&tx->next_to_use);

	while (i != ntu) {
		struct rce_tx_desc *d = &tx->desc[i];
		struct rce_tx_buf *b = &tx->bufs[i];

		if (!(READ_ONCE(d->status) & RCE_TXD_STAT_DD))
			break;
		dma_rmb();
		packets++;
		bytes += b->len;
		if (b->skb) {
			dma_unmap_single(&ad->pdev->dev, b->dma, b->len,
					 DMA_TO_DEVICE);
			napi_consume_skb(b->skb, budget);
			b->skb = NULL;
		}
		if (++i == tx->count)
			i = 0;
	}
	WRITE_ONCE(tx->next_to_clean, i);
	netdev_completed_queue(netdev, packets, bytes);

	if (packets) {
		u64_stats_update_begin(&tx->stats.syncp);
		u64_stats_add(&tx->stats.packets, packets);
		u64_stats_add(&tx->stats.bytes, bytes);
		u64_stats_inc(&tx->stats.cleaned);
		u64_stats_update_end(&tx->stats.syncp);
	}

	/* Pairs with the barrier after netif_stop_queue() in rce_xmit(). */
	smp_mb();
	if (netif_queue_stopped(netdev) &&
	    rce_tx_free_descs(tx) >= RCE_TX_WAKE_THRESH)
		netif_wake_queue(netdev);

	if (budget && napi_complete_done(napi, 0))
		rce_wr(ad, RCE_IMS, tx->irq_bit);
	return 0;
}
