// SPDX-License-Identifier: GPL-2.0
/*
 * ringcap_e1000e: module parameters, PCI probe and remove.
 *
 * The driver claims the Intel 82574L (8086:10d3) but exports no module
 * alias for it: udev would otherwise load it beside the stock e1000e and
 * the two would race for the same NICs. Users choose which NIC it drives
 * (docs/DRIVER.md); loading it takes every 82574L that no driver holds.
 */
#include <linux/cpumask.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "rce.h"

static int rx_cpu[RCE_NUM_RXQ] = { [0 ... RCE_NUM_RXQ - 1] = -1 };
static unsigned int rx_cpu_n;
module_param_array(rx_cpu, int, &rx_cpu_n, 0444);
MODULE_PARM_DESC(rx_cpu, "CPU of each RX queue's thread, e.g. 1,0 (default: queue i on CPU i mod online CPUs)");

static bool busy_poll;
module_param(busy_poll, bool, 0644);
MODULE_PARM_DESC(busy_poll, "RX threads poll instead of sleeping on the interrupt (default 0)");

/*
 * irq_mode and rx_batch are checked when set, at load time and (rx_batch)
 * through sysfs: a bad value is refused with a line naming the parameter
 * and what it takes, and the rest of the driver reads valid values only.
 */
static const char * const rce_irq_mode_params[] = {
	[RCE_IRQ_AUTO]		= "auto",
	[RCE_IRQ_MSIX]		= "msix",
	[RCE_IRQ_MSI]		= "msi",
	[RCE_IRQ_LEGACY]	= "legacy",
};

static int rce_irq_mode_set(const char *val, const struct kernel_param *kp)
{
	/* Matches with or without the newline a sysfs write ends in. */
	int mode = sysfs_match_string(rce_irq_mode_params, val);

	if (mode < 0) {
		pr_err("irq_mode=%.*s is invalid: expected auto, msix, msi or legacy\n",
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	*(enum rce_irq_mode *)kp->arg = mode;
	return 0;
}

static int rce_irq_mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  rce_irq_mode_params[*(enum rce_irq_mode *)kp->arg]);
}

static const struct kernel_param_ops rce_irq_mode_ops = {
	.set = rce_irq_mode_set,
	.get = rce_irq_mode_get,
};

static enum rce_irq_mode irq_mode = RCE_IRQ_AUTO;
module_param_cb(irq_mode, &rce_irq_mode_ops, &irq_mode, 0444);
MODULE_PARM_DESC(irq_mode, "Interrupts: auto (MSI-X, then MSI, then legacy), msix, msi or legacy");

static int rce_rx_batch_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < 1 || v > RCE_RING_MAX) {
		pr_err("rx_batch=%.*s is invalid: expected 1..%u\n",
		       (int)strcspn(val, "\n"), val, RCE_RING_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops rce_rx_batch_ops = {
	.set = rce_rx_batch_set,
	.get = param_get_uint,
};

static unsigned int rx_batch = 64;
module_param_cb(rx_batch, &rce_rx_batch_ops, &rx_batch, 0644);
MODULE_PARM_DESC(rx_batch, "Frames an RX thread handles per pass, 1-4096 (default 64)");

/**
 * rce_param_rx_cpu - the CPU queue @q's thread runs on
 * @q: the RX queue
 *
 * Return: rx_cpu[q] if that CPU is online, else the (q mod n)th online CPU.
 */
int rce_param_rx_cpu(unsigned int q)
{
	int cpu = rx_cpu[q];
	unsigned int n;

	if (cpu >= 0 && cpu < nr_cpu_ids && cpu_online(cpu))
		return cpu;
	if (cpu >= 0)
		pr_warn_once("rx_cpu %d is not an online CPU, using the default\n",
			     cpu);
	/* The (q mod n)th online CPU. */
	n = q % num_online_cpus();
	for_each_online_cpu(cpu)
		if (n-- == 0)
			return cpu;
	return raw_smp_processor_id();
}

/**
 * rce_param_busy_poll - do the RX threads poll instead of sleeping?
 *
 * Return: the busy_poll parameter now.
 */
bool rce_param_busy_poll(void)
{
	return READ_ONCE(busy_poll);
}

/**
 * rce_param_rx_batch - frames an RX thread handles per pass
 *
 * Return: the rx_batch parameter now, 1..RCE_RING_MAX (it is only ever
 * set through rce_rx_batch_set()).
 */
unsigned int rce_param_rx_batch(void)
{
	return READ_ONCE(rx_batch);
}

/**
 * rce_sw_init - allocate the net_device and set the adapter up in memory
 * @pdev: the PCI device being probed
 *
 * Everything probe does that touches no register: the adapter's defaults,
 * the rings' back-pointers, counters, locks and work items, the
 * net_device's operations and features, and the TX NAPI context.
 * rce_sw_free() undoes it.
 *
 * Return: the adapter, or NULL if the net_device cannot be allocated.
 */
static struct rce_adapter *rce_sw_init(struct pci_dev *pdev)
{
	struct net_device *netdev;
	struct rce_adapter *ad;
	int q;

	netdev = alloc_etherdev_mqs(sizeof(*ad), 1, RCE_NUM_RXQ);
	if (!netdev)
		return NULL;
	SET_NETDEV_DEV(netdev, &pdev->dev);
	pci_set_drvdata(pdev, netdev);
	ad = netdev_priv(netdev);
	ad->netdev = netdev;
	ad->pdev = pdev;
	ad->rx_count = RCE_RX_RING_DEFAULT;
	ad->tx_count = RCE_TX_RING_DEFAULT;
	ad->itr_usecs = RCE_ITR_DEFAULT_USECS;
	ad->tx.ad = ad;
	for (q = 0; q < RCE_NUM_RXQ; q++) {
		ad->rx[q].ad = ad;
		ad->rx[q].q = q;
		u64_stats_init(&ad->rx[q].stats.syncp);
		init_completion(&ad->rx[q].zc_switched);
	}
	u64_stats_init(&ad->tx.stats.syncp);
	spin_lock_init(&ad->stats_lock);
	spin_lock_init(&ad->link_lock);
	INIT_DELAYED_WORK(&ad->stats_work, rce_hw_stats_work);
	INIT_WORK(&ad->reset_work, rce_reset_work);

	netdev->netdev_ops = &rce_netdev_ops;
	netdev->ethtool_ops = &rce_ethtool_ops;
	netdev->min_mtu = ETH_MIN_MTU;
	netdev->max_mtu = ETH_DATA_LEN;
	netdev->watchdog_timeo = 5 * HZ;
	/* Receive tag stripping only, on by default as in the stock e1000e. */
	netdev->hw_features = NETIF_F_HW_VLAN_CTAG_RX;
	netdev->features = NETIF_F_HW_VLAN_CTAG_RX;
	netif_napi_add_tx(netdev, &ad->tx.napi, rce_tx_poll);
	/* No carrier until the link says so, from the first open on. */
	netif_carrier_off(netdev);
	return ad;
}

/*
 * The mirror of rce_sw_init(). The net_device is unregistered by now, so
 * a TX timeout can no longer queue reset_work; one already queued finds
 * the interface down and does nothing.
 */
static void rce_sw_free(struct rce_adapter *ad)
{
	cancel_work_sync(&ad->reset_work);
	netif_napi_del(&ad->tx.napi);
	free_netdev(ad->netdev);
}

/* What we offer ringcap beyond ringcap_rx(): zc.c, tx.c. */
static const struct ringcap_drv_ops rce_ringcap_ops = {
	.zc_start = rce_zc_start,
	.zc_stop = rce_zc_stop,
	.zc_wakeup = rce_zc_wakeup,
	.tx_frames = rce_tx_frames,
};

static int rce_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct net_device *netdev;
	struct ringcap_dev *rd;
	struct rce_adapter *ad;
	u8 mac[ETH_ALEN];
	int err;

	err = pci_enable_device_mem(pdev);
	if (err)
		return err;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (err) {
		dev_err(&pdev->dev, "no usable DMA mask\n");
		goto err_disable;
	}
	err = pci_request_mem_regions(pdev, RCE_DRV_NAME);
	if (err)
		goto err_disable;
	pci_set_master(pdev);

	err = -ENOMEM;
	ad = rce_sw_init(pdev);
	if (!ad)
		goto err_regions;
	netdev = ad->netdev;

	err = -EIO;
	ad->hw = pci_iomap(pdev, 0, 0);
	if (!ad->hw)
		goto err_sw;

	err = rce_hw_reset(ad);
	if (err)
		goto err_iounmap;

	rce_hw_read_mac(ad, mac);
	if (is_valid_ether_addr(mac)) {
		eth_hw_addr_set(netdev, mac);
	} else {
		dev_warn(&pdev->dev, "invalid MAC %pM in NVM and RAL0, using a random one\n",
			 mac);
		eth_hw_addr_random(netdev);
	}

	err = rce_irq_alloc_vectors(ad, irq_mode);
	if (err)
		goto err_iounmap;

	err = register_netdev(netdev);
	if (err)
		goto err_vectors;

	rtnl_lock();
	rd = ringcap_register_dev(netdev, RCE_NUM_RXQ, &rce_ringcap_ops);
	if (!IS_ERR(rd))
		rcu_assign_pointer(ad->rd, rd);
	rtnl_unlock();
	if (IS_ERR(rd)) {
		err = PTR_ERR(rd);
		netdev_err(netdev, "ringcap registration failed: %d\n", err);
		goto err_unregister;
	}

	netdev_info(netdev, "82574L, MAC %pM, %s interrupts (%d vector%s), %u RX queues\n",
		    netdev->dev_addr, rce_irq_mode_name(ad->irq_mode), ad->nvec,
		    ad->nvec == 1 ? "" : "s", RCE_NUM_RXQ);
	return 0;

err_unregister:
	unregister_netdev(netdev);
err_vectors:
	rce_irq_free_vectors(ad);
err_iounmap:
	pci_iounmap(pdev, ad->hw);
err_sw:
	rce_sw_free(ad);
err_regions:
	pci_release_mem_regions(pdev);
err_disable:
	pci_disable_device(pdev);
	return err;
}

static void rce_remove(struct pci_dev *pdev)
{
	struct net_device *netdev = pci_get_drvdata(pdev);
	struct rce_adapter *ad = netdev_priv(netdev);
	struct ringcap_dev *rd;

	/*
	 * RX threads read ad->rd under RCU; ringcap_unregister_dev() waits
	 * for a grace period before it frees rd, so no call is left in
	 * flight once the pointer is cleared.
	 */
	rtnl_lock();
	rd = rtnl_dereference(ad->rd);
	RCU_INIT_POINTER(ad->rd, NULL);
	ringcap_unregister_dev(rd);
	rtnl_unlock();

	unregister_netdev(netdev);
	rce_irq_free_vectors(ad);
	/* Quiet and DMA-free before the mapping and the memory go. */
	rce_hw_reset(ad);
	pci_iounmap(pdev, ad->hw);
	rce_sw_free(ad);
	pci_release_mem_regions(pdev);
	pci_disable_device(pdev);
}

static const struct pci_device_id rce_pci_ids[] = {
	{ PCI_VDEVICE(INTEL, 0x10d3) },	/* 82574L */
	{ }
};
/* No MODULE_DEVICE_TABLE on purpose: see the comment at the top. */

static struct pci_driver rce_pci_driver = {
	.name		= RCE_DRV_NAME,
	.id_table	= rce_pci_ids,
	.probe		= rce_probe,
	.remove		= rce_remove,
};

static int __init rce_init(void)
{
	return pci_register_driver(&rce_pci_driver);
}

static void __exit rce_exit(void)
{
	pci_unregister_driver(&rce_pci_driver);
}

module_init(rce_init);
module_exit(rce_exit);

MODULE_DESCRIPTION("ringcap driver for the Intel 82574L with per-queue RX threads");
MODULE_LICENSE("GPL");
MODULE_VERSION(RINGCAP_VERSION);
