// SPDX-License-Identifier: GPL-2.0
/*
 * net_device_ops: bringing the interface up and down, statistics, address
 * filters. rce_up() and rce_down() are the one place the order of
 * bring-up is written; ethtool's ring resize and the TX timeout reuse them.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include "rce.h"

/**
 * rce_up - allocate the rings and start the NIC
 * @ad: the adapter; caller holds RTNL
 *
 * Return: 0, or an error with everything undone.
 */
int rce_up(struct rce_adapter *ad)
{
	int q, err;

	err = rce_tx_setup(ad);
	if (err)
		return err;
	for (q = 0; q < RCE_NUM_RXQ; q++) {
		err = rce_rx_setup(&ad->rx[q]);
		if (err)
			goto err_rx;
	}
	err = rce_irq_request(ad);
	if (err)
		goto err_rx;

	rce_hw_set_mac(ad, ad->netdev->dev_addr);
	rce_tx_configure(ad);
	rce_rx_configure(ad);
	rce_hw_set_itr(ad);

	err = rce_rx_threads_start(ad);
	if (err)
		goto err_irq;
	napi_enable(&ad->tx.napi);
	netif_start_queue(ad->netdev);
	rce_irq_enable(ad);
	rce_link_update(ad);
	schedule_delayed_work(&ad->stats_work, HZ);
	ad->up = true;
	return 0;

err_irq:
	rce_hw_reset(ad);
	rce_irq_release(ad);
err_rx:
	while (q--)
		rce_rx_free(&ad->rx[q]);
	rce_tx_free(ad);
	return err;
}

/**
 * rce_down - stop the NIC and free the rings
 * @ad: the adapter, up; caller holds RTNL
 *
 * The mirror of rce_up(). The reset stops DMA before the buffers go.
 * Nothing to do if a restart (ring resize, TX timeout) failed to bring
 * the NIC up again: rce_up() undid its own work.
 */
void rce_down(struct rce_adapter *ad)
{
	int q;

	if (!ad->up)
		return;
	ad->up = false;
	cancel_delayed_work_sync(&ad->stats_work);
	/* Before carrier off, so no link interrupt turns it on again. */
	rce_irq_disable(ad);
	netif_carrier_off(ad->netdev);
	netif_tx_disable(ad->netdev);
	napi_disable(&ad->tx.napi);
	rce_rx_threads_stop(ad);
	rce_hw_stats_update(ad);
	rce_hw_reset(ad);
	rce_irq_release(ad);
	for (q = RCE_NUM_RXQ - 1; q >= 0; q--) {
		rce_zc_down(&ad->rx[q]);
		rce_rx_free(&ad->rx[q]);
	}
	rce_tx_free(ad);
}

static int rce_open(struct net_device *netdev)
{
	return rce_up(netdev_priv(netdev));
}

static int rce_stop(struct net_device *netdev)
{
	rce_down(netdev_priv(netdev));
	return 0;
}

/**
 * rce_reset_work - a stuck TX ring: start over, from process context
 * @work: ad->reset_work, queued by the TX timeout
 */
void rce_reset_work(struct work_struct *work)
{
	struct rce_adapter *ad = container_of(work, struct rce_adapter,
					      reset_work);

	rtnl_lock();
	if (netif_running(ad->netdev)) {
		netdev_warn(ad->netdev, "resetting after a TX timeout\n");
		rce_down(ad);
		if (rce_up(ad))
			dev_close(ad->netdev);
	}
	rtnl_unlock();
}

static void rce_tx_timeout(struct net_device *netdev, unsigned int txq)
{
	struct rce_adapter *ad = netdev_priv(netdev);

	schedule_work(&ad->reset_work);
}

static void rce_set_rx_mode(struct net_device *netdev)
{
	rce_hw_set_rx_mode(netdev_priv(netdev));
}

static int rce_set_mac_address(struct net_device *netdev, void *p)
{
	struct rce_adapter *ad = netdev_priv(netdev);
	struct sockaddr *addr = p;

	if (!is_valid_ether_addr(addr->sa_data))
		return -EADDRNOTAVAIL;
	eth_hw_addr_set(netdev, addr->sa_data);
	rce_hw_set_mac(ad, netdev->dev_addr);
	return 0;
}

static void rce_get_stats64(struct net_device *netdev,
			    struct rtnl_link_stats64 *s)
{
	struct rce_adapter *ad = netdev_priv(netdev);
	struct rce_hw_stats *h = &ad->hws;
	unsigned long flags;
	unsigned int start;
	int q;

	for (q = 0; q < RCE_NUM_RXQ; q++) {
		struct rce_rx_stats *rs = &ad->rx[q].stats;
		u64 packets, bytes, errors, dropped;

		do {
			start = u64_stats_fetch_begin(&rs->syncp);
			packets = u64_stats_read(&rs->packets);
			bytes = u64_stats_read(&rs->bytes);
			errors = u64_stats_read(&rs->errors);
			dropped = u64_stats_read(&rs->dropped);
		} while (u64_stats_fetch_retry(&rs->syncp, start));
		s->rx_packets += packets;
		s->rx_bytes += bytes;
		s->rx_errors += errors;
		s->rx_dropped += dropped;
	}
	do {
		start = u64_stats_fetch_begin(&ad->tx.stats.syncp);
		s->tx_packets = u64_stats_read(&ad->tx.stats.packets);
		s->tx_bytes = u64_stats_read(&ad->tx.stats.bytes);
	} while (u64_stats_fetch_retry(&ad->tx.stats.syncp, start));
	s->tx_dropped = netdev->stats.tx_dropped;

	/* Fresh hardware counts: ringcap reads rx_missed_errors from here. */
	if (netif_running(netdev))
		rce_hw_stats_update(ad);
	spin_lock_irqsave(&ad->stats_lock, flags);
	s->rx_missed_errors = h->mpc;
	s->rx_fifo_errors = h->rnbc;
	s->rx_crc_errors = h->crcerrs;
	s->rx_length_errors = h->len_errs;
	/* Not RUC: QEMU's model counts short frames there and delivers them. */
	s->rx_errors += h->crcerrs + h->rxerrc + h->roc;
	s->multicast = h->mprc;
	s->collisions = h->colc;
	spin_unlock_irqrestore(&ad->stats_lock, flags);
}

/* Called under RTNL before netdev->features changes. */
static int rce_set_features(struct net_device *netdev,
			    netdev_features_t features)
{
	struct rce_adapter *ad = netdev_priv(netdev);
	netdev_features_t changed = netdev->features ^ features;

	/* Down, rce_rx_configure() applies it at the next open. */
	if ((changed & NETIF_F_HW_VLAN_CTAG_RX) && ad->up)
		rce_hw_set_vlan_strip(ad, features & NETIF_F_HW_VLAN_CTAG_RX);
	return 0;
}

const struct net_device_ops rce_netdev_ops = {
	.ndo_open		= rce_open,
	.ndo_stop		= rce_stop,
	.ndo_start_xmit		= rce_xmit,
	.ndo_get_stats64	= rce_get_stats64,
	.ndo_set_rx_mode	= rce_set_rx_mode,
	.ndo_set_mac_address	= rce_set_mac_address,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_tx_timeout		= rce_tx_timeout,
	.ndo_set_features	= rce_set_features,
};
