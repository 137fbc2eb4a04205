// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool_ops: driver info, link, ring sizes, channels, statistics,
 * interrupt throttling and a register dump. docs/DRIVER.md lists the -S
 * counters and what each one means.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/stringify.h>
#include "rce.h"

static const char * const rce_rxq_stat_names[] = {
	"packets", "bytes", "errors", "to_ring", "to_stack", "irqs", "masks",
	"unmasks", "wakeups", "batches", "buf_allocs", "vlan_stripped",
	"skb_failed",
};

static const char * const rce_txq_stat_names[] = {
	"packets", "bytes", "busy", "cleaned",
};

static const char * const rce_dev_stat_names[] = {
	"rx_missed", "rx_no_buffer", "rx_overruns", "rx_crc_errors",
	"rx_length_errors", "rx_hw_packets", "tx_hw_packets", "irq_other",
	"link_changes",
};

#define RCE_RXQ_STATS	ARRAY_SIZE(rce_rxq_stat_names)
#define RCE_TXQ_STATS	ARRAY_SIZE(rce_txq_stat_names)
#define RCE_DEV_STATS	ARRAY_SIZE(rce_dev_stat_names)
#define RCE_NUM_STATS	(RCE_NUM_RXQ * RCE_RXQ_STATS + RCE_TXQ_STATS + \
			 RCE_DEV_STATS)

static void rce_get_drvinfo(struct net_device *netdev,
			    struct ethtool_drvinfo *info)
{
	struct rce_adapter *ad = netdev_priv(netdev);

	strscpy(info->driver, RCE_DRV_NAME, sizeof(info->driver));
	strscpy(info->version, RINGCAP_VERSION, sizeof(info->version));
	strscpy(info->bus_info, pci_name(ad->pdev), sizeof(info->bus_info));
}

static int rce_get_link_ksettings(struct net_device *netdev,
				  struct ethtool_link_ksettings *ks)
{
	struct rce_adapter *ad = netdev_priv(netdev);
	u32 status = rce_rd(ad, RCE_STATUS);
	static const int speeds[] = { SPEED_10, SPEED_100, SPEED_1000,
				      SPEED_1000 };

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_add_link_mode(ks, supported, 1000baseT_Full);
	ethtool_link_ksettings_add_link_mode(ks, supported, 100baseT_Full);
	ethtool_link_ksettings_add_link_mode(ks, supported, 10baseT_Full);
	ethtool_link_ksettings_add_link_mode(ks, supported, Autoneg);
	ethtool_link_ksettings_add_link_mode(ks, supported, TP);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ethtool_link_ksettings_add_link_mode(ks, advertising, 1000baseT_Full);
	ethtool_link_ksettings_add_link_mode(ks, advertising, 100baseT_Full);
	ethtool_link_ksettings_add_link_mode(ks, advertising, 10baseT_Full);
	ethtool_link_ksettings_add_link_mode(ks, advertising, Autoneg);
	ks->base.port = PORT_TP;
	ks->base.autoneg = AUTONEG_ENABLE;
	if (netif_running(netdev) && (status & RCE_STATUS_LU)) {
		ks->base.speed = speeds[(status & RCE_STATUS_SPEED_MASK) >>
					RCE_STATUS_SPEED_SHIFT];
		ks->base.duplex = status & RCE_STATUS_FD ? DUPLEX_FULL :
							   DUPLEX_HALF;
	} else {
		ks->base.speed = SPEED_UNKNOWN;
		ks->base.duplex = DUPLEX_UNKNOWN;
	}
	return 0;
}

static void rce_get_ringparam(struct net_device *netdev,
			      struct ethtool_ringparam *ring,
			      struct kernel_ethtool_ringparam *kring,
			      struct netlink_ext_ack *extack)
{
	struct rce_adapter *ad = netdev_priv(netdev);

	ring->rx_max_pending = RCE_RING_MAX;
	ring->tx_max_pending = RCE_RING_MAX;
	ring->rx_pending = ad->rx_count;
	ring->tx_pending = ad->tx_count;
}

/* Resizing re-initialises the rings: the interface goes down and up. */
static int rce_set_ringparam(struct net_device *netdev,
			     struct ethtool_ringparam *ring,
			     struct kernel_ethtool_ringparam *kring,
			     struct netlink_ext_ack *extack)
{
	struct rce_adapter *ad = netdev_priv(netdev);
	unsigned int old_rx = ad->rx_count, old_tx = ad->tx_count;
	int err;

	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG(extack, "no mini or jumbo rings");
		return -EINVAL;
	}
	if (ring->rx_pending < RCE_RING_MIN || ring->rx_pending > RCE_RING_MAX ||
	    ring->tx_pending < RCE_RING_MIN || ring->tx_pending > RCE_RING_MAX) {
		NL_SET_ERR_MSG(extack, "ring sizes must be "
			       __stringify(RCE_RING_MIN) "-"
			       __stringify(RCE_RING_MAX));
		return -EINVAL;
	}
	/* Ring lengths are multiples of 128 bytes: 8 descriptors. */
	ad->rx_count = ALIGN(ring->rx_pending, RCE_RING_ALIGN);
	ad->tx_count = ALIGN(ring->tx_pending, RCE_RING_ALIGN);
	if (ad->rx_count == old_rx && ad->tx_count == old_tx)
		return 0;
	if (!netif_running(netdev))
		return 0;

	rce_down(ad);
	err = rce_up(ad);
	if (!err)
		return 0;
	NL_SET_ERR_MSG(extack, "cannot allocate rings of that size, kept the old ones");
	ad->rx_count = old_rx;
	ad->tx_count = old_tx;
	if (rce_up(ad)) {
		netdev_err(netdev, "cannot restart with the old rings either\n");
		dev_close(netdev);
	}
	return err;
}

static void rce_get_channels(struct net_device *netdev,
			     struct ethtool_channels *ch)
{
	ch->max_rx = RCE_NUM_RXQ;
	ch->max_tx = 1;
	ch->max_other = 1;
	ch->rx_count = RCE_NUM_RXQ;
	ch->tx_count = 1;
	ch->other_count = 1;
}

static int rce_get_coalesce(struct net_device *netdev,
			    struct ethtool_coalesce *ec,
			    struct kernel_ethtool_coalesce *kec,
			    struct netlink_ext_ack *extack)
{
	struct rce_adapter *ad = netdev_priv(netdev);

	ec->rx_coalesce_usecs = ad->itr_usecs;
	return 0;
}

static int rce_set_coalesce(struct net_device *netdev,
			    struct ethtool_coalesce *ec,
			    struct kernel_ethtool_coalesce *kec,
			    struct netlink_ext_ack *extack)
{
	struct rce_adapter *ad = netdev_priv(netdev);

	if (ec->rx_coalesce_usecs > RCE_ITR_MAX_USECS) {
		NL_SET_ERR_MSG(extack, "rx-usecs must be 0-"
			       __stringify(RCE_ITR_MAX_USECS));
		return -EINVAL;
	}
	ad->itr_usecs = ec->rx_coalesce_usecs;
	if (netif_running(netdev))
		rce_hw_set_itr(ad);
	return 0;
}

static int rce_get_sset_count(struct net_device *netdev, int sset)
{
	return sset == ETH_SS_STATS ? RCE_NUM_STATS : -EOPNOTSUPP;
}

static void rce_get_strings(struct net_device *netdev, u32 sset, u8 *p)
{
	int q, i;

	if (sset != ETH_SS_STATS)
		return;
	for (q = 0; q < RCE_NUM_RXQ; q++)
		for (i = 0; i < RCE_RXQ_STATS; i++)
			ethtool_sprintf(&p, "rx%d_%s", q, rce_rxq_stat_names[i]);
	for (i = 0; i < RCE_TXQ_STATS; i++)
		ethtool_sprintf(&p, "tx0_%s", rce_txq_stat_names[i]);
	for (i = 0; i < RCE_DEV_STATS; i++)
		ethtool_sprintf(&p, "%s", rce_dev_stat_names[i]);
}

/* In the order of rce_rxq_stat_names. */
static u64 *rce_rxq_stats(struct rce_rx_ring *rx, u64 *v)
{
	struct rce_rx_stats *s = &rx->stats;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		v[0] = u64_stats_read(&s->packets);
		v[1] = u64_stats_read(&s->bytes);
		v[2] = u64_stats_read(&s->errors);
		v[3] = u64_stats_read(&s->to_ring);
		v[4] = u64_stats_read(&s->to_stack);
		v[7] = u64_stats_read(&s->unmasks);
		v[8] = u64_stats_read(&s->wakeups);
		v[9] = u64_stats_read(&s->batches);
		v[10] = u64_stats_read(&s->buf_allocs);
		v[11] = u64_stats_read(&s->vlan_stripped);
		v[12] = u64_stats_read(&s->dropped);
	} while (u64_stats_fetch_retry(&s->syncp, start));
	v[5] = atomic_long_read(&rx->irqs);
	v[6] = atomic_long_read(&rx->masks);
	return v + RCE_RXQ_STATS;
}

static void rce_get_ethtool_stats(struct net_device *netdev,
				  struct ethtool_stats *stats, u64 *v)
{
	struct rce_adapter *ad = netdev_priv(netdev);
	struct rce_tx_ring *tx = &ad->tx;
	struct rce_hw_stats *h = &ad->hws;
	unsigned long flags;
	unsigned int start;
	int q;

	BUILD_BUG_ON(RCE_RXQ_STATS != 13 || RCE_TXQ_STATS != 4 ||
		     RCE_DEV_STATS != 9);
	for (q = 0; q < RCE_NUM_RXQ; q++)
		v = rce_rxq_stats(&ad->rx[q], v);

	do {
		start = u64_stats_fetch_begin(&tx->stats.syncp);
		v[0] = u64_stats_read(&tx->stats.packets);
		v[1] = u64_stats_read(&tx->stats.bytes);
		v[3] = u64_stats_read(&tx->stats.cleaned);
	} while (u64_stats_fetch_retry(&tx->stats.syncp, start));
	v[2] = atomic_long_read(&tx->busy);
	v += RCE_TXQ_STATS;

	if (netif_running(netdev))
		rce_hw_stats_update(ad);
	spin_lock_irqsave(&ad->stats_lock, flags);
	v[0] = h->mpc;
	v[1] = h->rnbc;
	v[3] = h->crcerrs;
	v[4] = h->ruc + h->roc;
	v[5] = h->gprc;
	v[6] = h->gptc;
	spin_unlock_irqrestore(&ad->stats_lock, flags);
	v[2] = atomic_long_read(&ad->rx_overruns);
	v[7] = atomic_long_read(&ad->irq_other);
	v[8] = atomic_long_read(&ad->link_changes);
}

/* Configuration registers only: reading a statistics register clears it. */
static const u32 rce_dump_regs[] = {
	RCE_CTRL, RCE_STATUS, RCE_CTRL_EXT, RCE_IMS, RCE_IVAR, RCE_EIAC,
	RCE_ITR, RCE_EITR(0), RCE_EITR(1), RCE_RCTL, RCE_RFCTL, RCE_RXCSUM,
	RCE_MRQC, RCE_RDLEN(0), RCE_RDH(0), RCE_RDT(0), RCE_RDLEN(1),
	RCE_RDH(1), RCE_RDT(1), RCE_TCTL, RCE_TIPG, RCE_TDLEN(0), RCE_TDH(0),
	RCE_TDT(0), RCE_TXDCTL(0),
};

static int rce_get_regs_len(struct net_device *netdev)
{
	return sizeof(rce_dump_regs);
}

static void rce_get_regs(struct net_device *netdev, struct ethtool_regs *regs,
			 void *p)
{
	struct rce_adapter *ad = netdev_priv(netdev);
	u32 *out = p;
	int i;

	/* Version 1: the registers of rce_dump_regs, in that order. */
	regs->version = 1;
	for (i = 0; i < ARRAY_SIZE(rce_dump_regs); i++)
		out[i] = rce_rd(ad, rce_dump_regs[i]);
}

const struct ethtool_ops rce_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_RX_USECS,
	.get_drvinfo		= rce_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= rce_get_link_ksettings,
	.get_ringparam		= rce_get_ringparam,
	.set_ringparam		= rce_set_ringparam,
	.get_channels		= rce_get_channels,
	.get_coalesce		= rce_get_coalesce,
	.set_coalesce		= rce_set_coalesce,
	.get_sset_count		= rce_get_sset_count,
	.get_strings		= rce_get_strings,
	.get_ethtool_stats	= rce_get_ethtool_stats,
	.get_regs_len		= rce_get_regs_len,
	.get_regs		= rce_get_regs,
};
