// SPDX-License-Identifier: GPL-2.0
/*
 * The 82574L itself: reset, MAC address, address filters, RSS, interrupt
 * throttling, link state and the hardware counters.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/iopoll.h>
#include "rce.h"
#include "trace.h"

/**
 * rce_hw_reset - put the NIC into its power-on state, quiet
 * @ad: the adapter
 *
 * Stops DMA first, as the datasheet asks before a software reset, then
 * resets and leaves every interrupt masked. The MAC then follows the PHY's
 * autonegotiation (SLU + ASDE), so link comes up with no PHY programming.
 * Sleeps.
 *
 * Return: 0, or -EIO if the NIC never came out of reset.
 */
int rce_hw_reset(struct rce_adapter *ad)
{
	u32 ctrl, val;
	int err;

	rce_wr(ad, RCE_IMC, ~0u);
	rce_wr(ad, RCE_RCTL, 0);
	rce_wr(ad, RCE_TCTL, 0);
	rce_flush(ad);

	/* Let outstanding PCIe requests drain before the reset drops them. */
	rce_wr(ad, RCE_CTRL, rce_rd(ad, RCE_CTRL) | RCE_CTRL_GIO_MD);
	err = readl_poll_timeout(ad->hw + RCE_STATUS, val,
				 !(val & RCE_STATUS_GIO_ME), 100, 10000);
	if (err)
		dev_warn(&ad->pdev->dev, "GIO master still active, resetting anyway\n");

	rce_wr(ad, RCE_CTRL, rce_rd(ad, RCE_CTRL) | RCE_CTRL_RST);
	usleep_range(1000, 2000);
	err = readl_poll_timeout(ad->hw + RCE_CTRL, val, !(val & RCE_CTRL_RST),
				 1000, 50000);
	if (err) {
		dev_err(&ad->pdev->dev, "device reset did not complete\n");
		return -EIO;
	}

	rce_wr(ad, RCE_IMC, ~0u);
	rce_rd(ad, RCE_ICR);

	ctrl = rce_rd(ad, RCE_CTRL);
	ctrl &= ~(RCE_CTRL_FRCSPD | RCE_CTRL_FRCDPX | RCE_CTRL_PHY_RST |
		  RCE_CTRL_VME | RCE_CTRL_GIO_MD);
	ctrl |= RCE_CTRL_SLU | RCE_CTRL_ASDE;
	rce_wr(ad, RCE_CTRL, ctrl);
	rce_flush(ad);
	return 0;
}

static int rce_nvm_read(struct rce_adapter *ad, u16 word, u16 *data)
{
	u32 val;
	int err;

	rce_wr(ad, RCE_EERD, (word << RCE_EERD_ADDR_SHIFT) | RCE_EERD_START);
	err = readl_poll_timeout(ad->hw + RCE_EERD, val, val & RCE_EERD_DONE,
				 5, 10000);
	if (err)
		return err;
	*data = val >> RCE_EERD_DATA_SHIFT;
	return 0;
}

/**
 * rce_hw_read_mac - the permanent MAC address
 * @ad: the adapter
 * @mac: out, ETH_ALEN bytes; all zero if neither source has one
 *
 * NVM words 0-2 hold it, low byte first. If the NVM cannot be read, RAL0/
 * RAH0 still hold what the NIC loaded from it at reset.
 */
void rce_hw_read_mac(struct rce_adapter *ad, u8 *mac)
{
	u32 ral, rah;
	u16 word;
	int i;

	for (i = 0; i < ETH_ALEN / 2; i++) {
		if (rce_nvm_read(ad, i, &word))
			break;
		mac[2 * i] = word & 0xff;
		mac[2 * i + 1] = word >> 8;
	}
	if (i == ETH_ALEN / 2 && is_valid_ether_addr(mac))
		return;

	dev_info(&ad->pdev->dev, "no MAC from the NVM, trying RAL0/RAH0\n");
	ral = rce_rd(ad, RCE_RAL(0));
	rah = rce_rd(ad, RCE_RAH(0));
	if (!(rah & RCE_RAH_AV)) {
		eth_zero_addr(mac);
		return;
	}
	for (i = 0; i < 4; i++)
		mac[i] = ral >> (8 * i);
	mac[4] = rah;
	mac[5] = rah >> 8;
}

static void rce_hw_set_rar(struct rce_adapter *ad, unsigned int i,
			   const u8 *mac)
{
	u32 ral = 0, rah = 0;

	if (mac) {
		ral = mac[0] | mac[1] << 8 | mac[2] << 16 | (u32)mac[3] << 24;
		rah = mac[4] | mac[5] << 8 | RCE_RAH_AV;
	}
	/* Clear AV first so the NIC never matches a half-written entry. */
	rce_wr(ad, RCE_RAH(i), 0);
	rce_wr(ad, RCE_RAL(i), ral);
	rce_wr(ad, RCE_RAH(i), rah);
}

/**
 * rce_hw_set_mac - the address the NIC answers to (receive address 0)
 * @ad: the adapter
 * @mac: ETH_ALEN bytes
 */
void rce_hw_set_mac(struct rce_adapter *ad, const u8 *mac)
{
	rce_hw_set_rar(ad, 0, mac);
}

/* Multicast filter hash with RCTL.MO = 0: address bits 47:36. */
static u32 rce_mta_hash(const u8 *addr)
{
	return ((addr[4] >> 4) | (addr[5] << 4)) & 0xfff;
}

/**
 * rce_hw_set_rx_mode - program promiscuous, unicast and multicast filters
 * @ad: the adapter
 *
 * Runs under the netdev address lock (atomic context). Secondary unicast
 * addresses take receive-address entries 1-15; more than that falls back
 * to unicast promiscuous.
 */
void rce_hw_set_rx_mode(struct rce_adapter *ad)
{
	struct net_device *netdev = ad->netdev;
	u32 mta[RCE_MTA_WORDS] = { };
	struct netdev_hw_addr *ha;
	unsigned int i = 1;
	u32 rctl, hash;

	rctl = rce_rd(ad, RCE_RCTL) & ~(RCE_RCTL_UPE | RCE_RCTL_MPE);
	if (netdev->flags & IFF_PROMISC)
		rctl |= RCE_RCTL_UPE | RCE_RCTL_MPE;
	if (netdev->flags & IFF_ALLMULTI)
		rctl |= RCE_RCTL_MPE;

	if (netdev_uc_count(netdev) >= RCE_RAR_ENTRIES)
		rctl |= RCE_RCTL_UPE;
	else
		netdev_for_each_uc_addr(ha, netdev)
			rce_hw_set_rar(ad, i++, ha->addr);
	for (; i < RCE_RAR_ENTRIES; i++)
		rce_hw_set_rar(ad, i, NULL);

	netdev_for_each_mc_addr(ha, netdev) {
		hash = rce_mta_hash(ha->addr);
		mta[hash >> 5] |= BIT(hash & 31);
	}
	for (i = 0; i < RCE_MTA_WORDS; i++)
		rce_wr(ad, RCE_MTA(i), mta[i]);

	rce_wr(ad, RCE_RCTL, rctl);
}

/**
 * rce_hw_setup_rss - spread receive over both queues
 * @ad: the adapter
 *
 * The 82574 hashes IPv4 and IPv6 addresses, plus ports for TCP only; UDP
 * flows spread by address. The hash replaces the packet checksum in the
 * write-back (RXCSUM.PCSD), which is why RX checksum offload is off. The
 * 128-entry redirection table alternates queues 0 and 1.
 */
void rce_hw_setup_rss(struct rce_adapter *ad)
{
	u32 key[RCE_RSSRK_WORDS];
	int i;

	netdev_rss_key_fill(key, sizeof(key));
	for (i = 0; i < RCE_RSSRK_WORDS; i++)
		rce_wr(ad, RCE_RSSRK(i), key[i]);
	/* Four one-byte entries per register: queues 0, 1, 0, 1. */
	for (i = 0; i < RCE_RETA_ENTRIES / 4; i++)
		rce_wr(ad, RCE_RETA(i),
		       (RCE_RETA_QUEUE1 << 8) | (RCE_RETA_QUEUE1 << 24));
	rce_wr(ad, RCE_RXCSUM, RCE_RXCSUM_PCSD);
	/*
	 * Every hash function the 82574 has. TCP over IPv6 has two, with
	 * and without the Ex parsing: both are on, and which applies is the
	 * NIC's rule. QEMU's model (7.2) implements bit 18 only, as RSS
	 * type 3; it ignores bit 21.
	 */
	rce_wr(ad, RCE_MRQC, RCE_MRQC_RSS_EN | RCE_MRQC_IPV4 |
	       RCE_MRQC_TCP_IPV4 | RCE_MRQC_IPV6 | RCE_MRQC_IPV6_EX |
	       RCE_MRQC_TCP_IPV6 | RCE_MRQC_TCP_IPV6_EX);
}

/**
 * rce_hw_set_vlan_strip - strip 802.1Q tags on receive, or leave them
 * @ad: the adapter
 * @on: NETIF_F_HW_VLAN_CTAG_RX (ethtool -K DEV rxvlan on|off)
 *
 * With CTRL.VME the NIC removes a tag whose ethertype is VET from the
 * frame and writes its TCI into the descriptor (status VP), for frames
 * landing from then on; each descriptor says which way its frame came.
 * VET is set here too: its reset value is not one to rely on.
 */
void rce_hw_set_vlan_strip(struct rce_adapter *ad, bool on)
{
	u32 ctrl = rce_rd(ad, RCE_CTRL);

	rce_wr(ad, RCE_VET, ETH_P_8021Q);
	if (on)
		ctrl |= RCE_CTRL_VME;
	else
		ctrl &= ~RCE_CTRL_VME;
	rce_wr(ad, RCE_CTRL, ctrl);
}

/*
 * Interrupt throttling (ethtool -C rx-usecs, and tx-usecs for the TX
 * vector of MSI-X); registers count 256 ns.
 */
static u32 rce_itr_val(u32 usecs)
{
	return usecs * 1000 / 256;
}

/**
 * rce_hw_set_itr - program interrupt throttling from ad's settings
 * @ad: the adapter
 *
 * With MSI-X each RX vector gets rx-usecs and the TX vector tx-usecs; one
 * vector gets rx-usecs for everything.
 */
void rce_hw_set_itr(struct rce_adapter *ad)
{
	u32 val = rce_itr_val(ad->itr_usecs);

	if (ad->irq_mode == RCE_IRQ_MSIX) {
		rce_wr(ad, RCE_EITR(RCE_VEC_RX0), val);
		rce_wr(ad, RCE_EITR(RCE_VEC_RX1), val);
		rce_wr(ad, RCE_EITR(RCE_VEC_TX), rce_itr_val(ad->tx_itr_usecs));
	} else {
		rce_wr(ad, RCE_ITR, val);
	}
}

/**
 * rce_link_update - follow the link's state into the carrier
 * @ad: the adapter
 *
 * From the link interrupt, the watchdog and open; any context. The lock
 * keeps the interrupt and the watchdog from reporting one change twice.
 */
void rce_link_update(struct rce_adapter *ad)
{
	u32 status = rce_rd(ad, RCE_STATUS);
	bool up = status & RCE_STATUS_LU;
	unsigned long flags;

	spin_lock_irqsave(&ad->link_lock, flags);
	if (up == netif_carrier_ok(ad->netdev))
		goto out;
	atomic_long_inc(&ad->link_changes);
	if (up) {
		netdev_info(ad->netdev, "link up, %s duplex\n",
			    status & RCE_STATUS_FD ? "full" : "half");
		netif_carrier_on(ad->netdev);
	} else {
		netdev_info(ad->netdev, "link down\n");
		netif_carrier_off(ad->netdev);
	}
out:
	spin_unlock_irqrestore(&ad->link_lock, flags);
}

/*
 * Frames the NIC missed (MPC) are the capture's loss too: the sockets that
 * keep gap records see them in the ring. Before registration, and after
 * it is undone, nobody is bound to hear.
 */
static void rce_report_missed(struct rce_adapter *ad, u32 mpc)
{
	struct ringcap_dev *rd;

	rcu_read_lock();
	rd = rcu_dereference(ad->rd);
	if (rd)
		ringcap_nic_lost(rd, mpc);
	rcu_read_unlock();
}

/**
 * rce_hw_stats_update - fold the clear-on-read counters into ad->hws
 * @ad: the adapter
 *
 * Not from hard IRQ, since it reports the missed frames to ringcap; any
 * other context. Runs every second while the interface is up
 * (rce_hw_stats_work), far below the time a 32-bit counter needs to wrap.
 */
void rce_hw_stats_update(struct rce_adapter *ad)
{
	struct rce_hw_stats *h = &ad->hws;
	unsigned long flags;
	u32 mpc, rnbc, roc;

	spin_lock_irqsave(&ad->stats_lock, flags);
	mpc = rce_rd(ad, RCE_MPC);
	rnbc = rce_rd(ad, RCE_RNBC);
	roc = rce_rd(ad, RCE_ROC);
	h->mpc += mpc;
	h->rnbc += rnbc;
	h->crcerrs += rce_rd(ad, RCE_CRCERRS);
	h->rxerrc += rce_rd(ad, RCE_RXERRC);
	h->roc += roc;
	h->len_errs += (u64)rce_rd(ad, RCE_RUC) + roc;
	h->colc += rce_rd(ad, RCE_COLC);
	h->gprc += rce_rd(ad, RCE_GPRC);
	h->gptc += rce_rd(ad, RCE_GPTC);
	h->mprc += rce_rd(ad, RCE_MPRC);
	spin_unlock_irqrestore(&ad->stats_lock, flags);
	if (mpc || rnbc)
		trace_rce_hw_drops(ad, mpc, rnbc);
	if (mpc)
		rce_report_missed(ad, mpc);
}

/**
 * rce_hw_stats_work - the watchdog, every second while the interface is up
 * @work: ad->stats_work
 *
 * It folds the counters and polls the link, so a link change whose
 * interrupt was lost (see rce_other_causes()) shows within a second.
 */
void rce_hw_stats_work(struct work_struct *work)
{
	struct rce_adapter *ad = container_of(to_delayed_work(work),
					      struct rce_adapter, stats_work);

	rce_hw_stats_update(ad);
	rce_link_update(ad);
	schedule_delayed_work(&ad->stats_work, HZ);
}
