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

/*
 * Every ethtool -S counter, as where it lives: an offset into the RX ring,
 * the TX ring or the adapter, and how it is read there. The order of each
 * table is the order of ethtool -S (and of the names in docs/DRIVER.md):
 * each RX queue's counters with prefix rx<q>_, TX queue 0's with tx0_,
 * then the device's.
 */
enum rce_stat_kind {
	RCE_STAT_SYNCED,	/* u64_stats_t under the ring's stats.syncp */
	RCE_STAT_ATOMIC,	/* atomic_long_t, counted in interrupt context */
	RCE_STAT_HW,		/* u64 folded from a NIC register, stats_lock */
};

struct rce_stat {
	const char		*name;
	enum rce_stat_kind	kind;
	unsigned int		offset;
};

#define RCE_STAT(_name, _kind, _type, _member) \
	{ .name = _name, .kind = _kind, .offset = offsetof(_type, _member) }
#define RCE_RXQ(name, m)	RCE_STAT(name, RCE_STAT_SYNCED, struct rce_rx_ring, stats.m)
#define RCE_RXQ_IRQ(name, m)	RCE_STAT(name, RCE_STAT_ATOMIC, struct rce_rx_ring, m)
#define RCE_TXQ(name, m)	RCE_STAT(name, RCE_STAT_SYNCED, struct rce_tx_ring, stats.m)
#define RCE_TXQ_XMIT(name, m)	RCE_STAT(name, RCE_STAT_ATOMIC, struct rce_tx_ring, m)
#define RCE_DEV_HW(name, m)	RCE_STAT(name, RCE_STAT_HW, struct rce_adapter, hws.m)
#define RCE_DEV(name, m)	RCE_STAT(name, RCE_STAT_ATOMIC, struct rce_adapter, m)

static const struct rce_stat rce_rxq_stats[] = {
	RCE_RXQ("packets", packets),
	RCE_RXQ("bytes", bytes),
	RCE_RXQ("errors", errors),
	RCE_RXQ("to_ring", to_ring),
	RCE_RXQ("to_stack", to_stack),
	RCE_RXQ_IRQ("irqs", irqs),
	RCE_RXQ_IRQ("masks", masks),
	RCE_RXQ("unmasks", unmasks),
	RCE_RXQ("wakeups", wakeups),
	RCE_RXQ("batches", batches),
	RCE_RXQ("buf_allocs", buf_allocs),
	RCE_RXQ("zc_masked", zc_masked),
	RCE_RXQ("zc_rearmed", zc_rearmed),
	RCE_RXQ("vlan_stripped", vlan_stripped),
	RCE_RXQ("skb_failed", dropped),
};

static const struct rce_stat rce_txq_stats[] = {
	RCE_TXQ("packets", packets),
	RCE_TXQ("bytes", bytes),
	RCE_TXQ_XMIT("busy", busy),
	RCE_TXQ_XMIT("ring_frames", ring_frames),
	RCE_TXQ("cleaned", cleaned),
};

static const struct rce_stat rce_dev_stats[] = {
	RCE_DEV_HW("rx_missed", mpc),
	RCE_DEV_HW("rx_no_buffer", rnbc),
	RCE_DEV("rx_overruns", rx_overruns),
	RCE_DEV_HW("rx_crc_errors", crcerrs),
	RCE_DEV_HW("rx_length_errors", len_errs),
	RCE_DEV_HW("rx_hw_packets", gprc),
	RCE_DEV_HW("tx_hw_packets", gptc),
	RCE_DEV("irq_other", irq_other),
	RCE_DEV("link_changes", link_changes),
};

#define RCE_NUM_STATS	(RCE_NUM_RXQ * ARRAY_SIZE(rce_rxq_stats) + \
			 ARRAY_SIZE(rce_txq_stats) + ARRAY_SIZE(rce_dev_stats))

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
	ec->tx_coalesce_usecs = ad->tx_itr_usecs;
	return 0;
}

static int rce_set_coalesce(struct net_device *netdev,
			    struct ethtool_coalesce *ec,
			    struct kernel_ethtool_coalesce *kec,
			    struct netlink_ext_ack *extack)
{
	struct rce_adapter *ad = netdev_priv(netdev);

	if (ec->rx_coalesce_usecs > RCE_ITR_MAX_USECS ||
	    ec->tx_coalesce_usecs > RCE_ITR_MAX_USECS) {
		NL_SET_ERR_MSG(extack, "rx-usecs and tx-usecs must be 0-"
			       __stringify(RCE_ITR_MAX_USECS));
		return -EINVAL;
	}
	/* MSI and INTx have one interrupt for all, throttled by rx-usecs. */
	if (ec->tx_coalesce_usecs && ad->irq_mode != RCE_IRQ_MSIX) {
		NL_SET_ERR_MSG(extack, "tx-usecs needs MSI-X (irq_mode)");
		return -EOPNOTSUPP;
	}
	ad->itr_usecs = ec->rx_coalesce_usecs;
	ad->tx_itr_usecs = ec->tx_coalesce_usecs;
	if (netif_running(netdev))
		rce_hw_set_itr(ad);
	return 0;
}

static int rce_get_sset_count(struct net_device *netdev, int sset)
{
	return sset == ETH_SS_STATS ? RCE_NUM_STATS : -EOPNOTSUPP;
}

static void rce_stat_names(u8 **p, const char *prefix,
			   const struct rce_stat *t, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ethtool_sprintf(p, "%s%s", prefix, t[i].name);
}

static void rce_get_strings(struct net_device *netdev, u32 sset, u8 *p)
{
	char prefix[8];
	int q;

	if (sset != ETH_SS_STATS)
		return;
	for (q = 0; q < RCE_NUM_RXQ; q++) {
		snprintf(prefix, sizeof(prefix), "rx%d_", q);
		rce_stat_names(&p, prefix, rce_rxq_stats,
			       ARRAY_SIZE(rce_rxq_stats));
	}
	rce_stat_names(&p, "tx0_", rce_txq_stats, ARRAY_SIZE(rce_txq_stats));
	rce_stat_names(&p, "", rce_dev_stats, ARRAY_SIZE(rce_dev_stats));
}

/*
 * Read table @t of object @base into @v. The synced counters are read
 * together, under one u64_stats retry loop on @syncp; the caller holds
 * stats_lock if the table has RCE_STAT_HW entries.
 *
 * Return: where the next table's values go.
 */
static u64 *rce_stats_read(const struct rce_stat *t, unsigned int n,
			   const void *base, const struct u64_stats_sync *syncp,
			   u64 *v)
{
	unsigned int i, start;

	if (syncp) {
		do {
			start = u64_stats_fetch_begin(syncp);
			for (i = 0; i < n; i++)
				if (t[i].kind == RCE_STAT_SYNCED)
					v[i] = u64_stats_read(base + t[i].offset);
		} while (u64_stats_fetch_retry(syncp, start));
	}
	for (i = 0; i < n; i++) {
		if (t[i].kind == RCE_STAT_ATOMIC)
			v[i] = atomic_long_read(base + t[i].offset);
		else if (t[i].kind == RCE_STAT_HW)
			v[i] = *(const u64 *)(base + t[i].offset);
	}
	return v + n;
}

static void rce_get_ethtool_stats(struct net_device *netdev,
				  struct ethtool_stats *stats, u64 *v)
{
	struct rce_adapter *ad = netdev_priv(netdev);
	unsigned long flags;
	int q;

	for (q = 0; q < RCE_NUM_RXQ; q++)
		v = rce_stats_read(rce_rxq_stats, ARRAY_SIZE(rce_rxq_stats),
				   &ad->rx[q], &ad->rx[q].stats.syncp, v);
	v = rce_stats_read(rce_txq_stats, ARRAY_SIZE(rce_txq_stats), &ad->tx,
			   &ad->tx.stats.syncp, v);

	if (netif_running(netdev))
		rce_hw_stats_update(ad);
	spin_lock_irqsave(&ad->stats_lock, flags);
	rce_stats_read(rce_dev_stats, ARRAY_SIZE(rce_dev_stats), ad, NULL, v);
	spin_unlock_irqrestore(&ad->stats_lock, flags);
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
	.supported_coalesce_params = ETHTOOL_COALESCE_RX_USECS |
				     ETHTOOL_COALESCE_TX_USECS,
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
