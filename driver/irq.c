// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupts: vector allocation, the handlers and the masks.
 *
 * With MSI-X each RX queue, TX queue 0 and "other" (link, overrun) have a
 * vector of their own (IVAR maps the causes). With MSI or legacy INTx one
 * handler reads ICR and serves every cause; the two RX queues then share
 * RXT0, so its mask is held until both queues' threads have drained.
 *
 * An RX handler never touches descriptors: it masks its queue's cause
 * (IMC) and wakes the queue's thread, which unmasks (IMS) once the queue
 * is empty (rce_rx_irq_arm). Bit 0 of rx->irq_held says the mask is held,
 * so a spurious or late message (QEMU sends some after EITR expiry) is
 * counted in rx_irqs but not as a second mask.
 */
#include <linux/interrupt.h>
#include <linux/sched.h>
#include "rce.h"
#include "trace.h"

#define RCE_IRQ_HELD	0

/* The causes an MSI-X RX/TX vector carries; everything else is "other". */
#define RCE_ICR_QUEUES	(RCE_ICR_RXQ(0) | RCE_ICR_RXQ(1) | \
			 RCE_ICR_TXQ(0) | RCE_ICR_TXQ(1))

/**
 * rce_irq_mode_name - an interrupt mode as the log and ethtool name it
 * @mode: the mode, or RCE_IRQ_AUTO
 *
 * Return: a static string.
 */
const char *rce_irq_mode_name(enum rce_irq_mode mode)
{
	switch (mode) {
	case RCE_IRQ_MSIX:
		return "MSI-X";
	case RCE_IRQ_MSI:
		return "MSI";
	case RCE_IRQ_LEGACY:
		return "legacy INTx";
	default:
		return "MSI-X, MSI or legacy INTx";
	}
}

/**
 * rce_irq_alloc_vectors - choose MSI-X, MSI or INTx and allocate vectors
 * @ad: the adapter
 * @want: one kind, or RCE_IRQ_AUTO for MSI-X, then MSI, then INTx
 *
 * MSI-X needs all four vectors; anything less falls back to one vector.
 *
 * Return: 0, or the error of the last kind tried.
 */
int rce_irq_alloc_vectors(struct rce_adapter *ad, enum rce_irq_mode want)
{
	bool any = want == RCE_IRQ_AUTO;
	struct pci_dev *pdev = ad->pdev;
	int n = -ENODEV, q;

	if (any || want == RCE_IRQ_MSIX) {
		n = pci_alloc_irq_vectors(pdev, RCE_NUM_VEC, RCE_NUM_VEC,
					  PCI_IRQ_MSIX);
		ad->irq_mode = RCE_IRQ_MSIX;
	}
	if (n < 0 && (any || want == RCE_IRQ_MSI)) {
		n = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSI);
		ad->irq_mode = RCE_IRQ_MSI;
	}
	if (n < 0 && (any || want == RCE_IRQ_LEGACY)) {
		n = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_INTX);
		ad->irq_mode = RCE_IRQ_LEGACY;
	}
	if (n < 0) {
		dev_err(&pdev->dev, "no %s interrupt available: %d\n",
			rce_irq_mode_name(want), n);
		return n;
	}
	ad->nvec = n;
	spin_lock_init(&ad->rx_irq_lock);

	if (ad->irq_mode == RCE_IRQ_MSIX) {
		for (q = 0; q < RCE_NUM_VEC; q++)
			ad->irq_vec[q] = pci_irq_vector(pdev, q);
		for (q = 0; q < RCE_NUM_RXQ; q++)
			ad->rx[q].irq_bit = RCE_ICR_RXQ(q);
		ad->rx_irq_bits = RCE_ICR_RXQ(0) | RCE_ICR_RXQ(1);
		ad->tx.irq_bit = RCE_ICR_TXQ(0);
	} else {
		for (q = 0; q < RCE_NUM_VEC; q++)
			ad->irq_vec[q] = pci_irq_vector(pdev, 0);
		/* RXO and RXDMT0 too: they would refire while a thread drains. */
		ad->rx_irq_bits = RCE_ICR_RXT0 | RCE_ICR_RXO | RCE_ICR_RXDMT0;
		for (q = 0; q < RCE_NUM_RXQ; q++)
			ad->rx[q].irq_bit = ad->rx_irq_bits;
		ad->tx.irq_bit = RCE_ICR_TXDW;
	}
	dev_info(&pdev->dev, "using %s interrupts\n",
		 rce_irq_mode_name(ad->irq_mode));
	return 0;
}

/**
 * rce_irq_free_vectors - undo rce_irq_alloc_vectors()
 * @ad: the adapter, its handlers released
 */
void rce_irq_free_vectors(struct rce_adapter *ad)
{
	pci_free_irq_vectors(ad->pdev);
}

/* Take the queue's mask for its thread and wake it; hard IRQ context. */
static void rce_rx_irq_hold(struct rce_rx_ring *rx)
{
	struct task_struct *t = READ_ONCE(rx->thread);
	bool mask;

	atomic_long_inc(&rx->irqs);
	mask = !test_and_set_bit(RCE_IRQ_HELD, &rx->irq_held);
	if (mask) {
		rce_wr(rx->ad, RCE_IMC, rx->irq_bit);
		atomic_long_inc(&rx->masks);
	}
	trace_rce_rx_irq(rx, mask);
	if (t)
		wake_up_process(t);
}

/**
 * rce_rx_irq_arm - give the queue's interrupt back to the hardware
 * @rx: a ring whose thread found it empty
 *
 * Called by the queue's thread only. A no-op unless the handler masked
 * the queue for it. With a shared vector the RX causes are unmasked when
 * the last woken queue arms.
 */
void rce_rx_irq_arm(struct rce_rx_ring *rx)
{
	struct rce_adapter *ad = rx->ad;
	unsigned long flags;

	/* Under the lock the handlers take too: see rce_msix_rx(). */
	spin_lock_irqsave(&ad->rx_irq_lock, flags);
	if (test_and_clear_bit(RCE_IRQ_HELD, &rx->irq_held)) {
		u64_stats_update_begin(&rx->stats.syncp);
		u64_stats_inc(&rx->stats.unmasks);
		u64_stats_update_end(&rx->stats.syncp);
		if (ad->irq_mode == RCE_IRQ_MSIX)
			rce_wr(ad, RCE_IMS, rx->irq_bit);
		else if (--ad->rx_active == 0)
			rce_wr(ad, RCE_IMS, ad->rx_irq_bits);
	}
	spin_unlock_irqrestore(&ad->rx_irq_lock, flags);
}

/*
 * The hold and the thread's arm take rx_irq_lock, as with a shared vector:
 * a handler that set the bit but had not yet written IMC when the thread
 * cleared it and wrote IMS would otherwise leave the queue masked with the
 * bit clear, and no arm would ever unmask it again (the queue stalls).
 */
static irqreturn_t rce_msix_rx(int irq, void *data)
{
	struct rce_rx_ring *rx = data;

	spin_lock(&rx->ad->rx_irq_lock);
	rce_rx_irq_hold(rx);
	spin_unlock(&rx->ad->rx_irq_lock);
	return IRQ_HANDLED;
}

static irqreturn_t rce_msix_tx(int irq, void *data)
{
	struct rce_tx_ring *tx = data;

	rce_wr(tx->ad, RCE_IMC, tx->irq_bit);
	napi_schedule_irqoff(&tx->napi);
	return IRQ_HANDLED;
}

/*
 * Link and overrun. Reading ICR does not clear it under MSI-X: write back.
 * Clearing OTHER clears every cause behind it, so one that arrives between
 * the read and the write goes unseen: an RXO is then not counted, and a
 * link change waits for the watchdog's poll (at most a second).
 */
static void rce_other_causes(struct rce_adapter *ad, u32 icr)
{
	if (icr & RCE_ICR_RXO)
		atomic_long_inc(&ad->rx_overruns);
	if (icr & RCE_ICR_LSC)
		rce_link_update(ad);
}

static irqreturn_t rce_msix_other(int irq, void *data)
{
	struct rce_adapter *ad = data;
	u32 icr = rce_rd(ad, RCE_ICR);

	atomic_long_inc(&ad->irq_other);
	rce_wr(ad, RCE_ICR, icr & ~RCE_ICR_QUEUES);
	rce_other_causes(ad, icr);
	return IRQ_HANDLED;
}

/* MSI and INTx: one handler for everything; reading ICR clears it. */
static irqreturn_t rce_intr(int irq, void *data)
{
	struct rce_adapter *ad = data;
	u32 icr = rce_rd(ad, RCE_ICR);
	int q;

	if (!icr || (ad->irq_mode == RCE_IRQ_LEGACY &&
		     !(icr & RCE_ICR_ASSERTED)))
		return ad->irq_mode == RCE_IRQ_LEGACY ? IRQ_NONE : IRQ_HANDLED;

	if (icr & (RCE_ICR_LSC | RCE_ICR_RXO)) {
		atomic_long_inc(&ad->irq_other);
		rce_other_causes(ad, icr);
	}
	if (icr & ad->rx_irq_bits) {
		spin_lock(&ad->rx_irq_lock);
		for (q = 0; q < RCE_NUM_RXQ; q++) {
			/* Count the queue's hold before the thread can arm. */
			if (!test_bit(RCE_IRQ_HELD, &ad->rx[q].irq_held))
				ad->rx_active++;
			rce_rx_irq_hold(&ad->rx[q]);
		}
		spin_unlock(&ad->rx_irq_lock);
	}
	if (icr & RCE_ICR_TXDW) {
		rce_wr(ad, RCE_IMC, RCE_ICR_TXDW);
		napi_schedule_irqoff(&ad->tx.napi);
	}
	return IRQ_HANDLED;
}

/**
 * rce_irq_request - install the handlers
 * @ad: the adapter, with rings set up
 *
 * The hardware keeps every cause masked until rce_irq_enable().
 *
 * Return: 0 or the request_irq() error.
 */
int rce_irq_request(struct rce_adapter *ad)
{
	struct net_device *netdev = ad->netdev;
	int q, err;

	/*
	 * No thread runs and the hardware is masked: forget holds a thread
	 * kept when it stopped in the middle of draining.
	 */
	ad->rx_active = 0;
	for (q = 0; q < RCE_NUM_RXQ; q++)
		clear_bit(RCE_IRQ_HELD, &ad->rx[q].irq_held);

	if (ad->irq_mode != RCE_IRQ_MSIX)
		return request_irq(ad->irq_vec[0], rce_intr,
				   ad->irq_mode == RCE_IRQ_LEGACY ? IRQF_SHARED : 0,
				   netdev->name, ad);

	for (q = 0; q < RCE_NUM_RXQ; q++) {
		struct rce_rx_ring *rx = &ad->rx[q];

		snprintf(rx->irq_name, sizeof(rx->irq_name), "%s-rx%d",
			 netdev->name, q);
		err = request_irq(ad->irq_vec[RCE_VEC_RX0 + q], rce_msix_rx, 0,
				  rx->irq_name, rx);
		if (err)
			goto err_rx;
	}
	snprintf(ad->tx.irq_name, sizeof(ad->tx.irq_name), "%s-tx0",
		 netdev->name);
	err = request_irq(ad->irq_vec[RCE_VEC_TX], rce_msix_tx, 0,
			  ad->tx.irq_name, &ad->tx);
	if (err)
		goto err_rx;
	err = request_irq(ad->irq_vec[RCE_VEC_OTHER], rce_msix_other, 0,
			  netdev->name, ad);
	if (err)
		goto err_tx;
	return 0;

err_tx:
	free_irq(ad->irq_vec[RCE_VEC_TX], &ad->tx);
err_rx:
	while (q--)
		free_irq(ad->irq_vec[RCE_VEC_RX0 + q], &ad->rx[q]);
	netdev_err(netdev, "request_irq failed: %d\n", err);
	return err;
}

/**
 * rce_irq_release - undo rce_irq_request(), in reverse order
 * @ad: the adapter, its causes masked
 */
void rce_irq_release(struct rce_adapter *ad)
{
	int q;

	if (ad->irq_mode != RCE_IRQ_MSIX) {
		free_irq(ad->irq_vec[0], ad);
		return;
	}
	free_irq(ad->irq_vec[RCE_VEC_OTHER], ad);
	free_irq(ad->irq_vec[RCE_VEC_TX], &ad->tx);
	for (q = RCE_NUM_RXQ - 1; q >= 0; q--)
		free_irq(ad->irq_vec[RCE_VEC_RX0 + q], &ad->rx[q]);
}

/**
 * rce_irq_enable - route the causes to their vectors and unmask them
 * @ad: the adapter, its handlers requested; the rings are live from here on
 */
void rce_irq_enable(struct rce_adapter *ad)
{
	u32 ivar, ims = RCE_ICR_LSC | RCE_ICR_RXO;

	if (ad->irq_mode == RCE_IRQ_MSIX) {
		ivar = (RCE_IVAR_VALID | RCE_VEC_RX0) << RCE_IVAR_RXQ0_SHIFT |
		       (RCE_IVAR_VALID | RCE_VEC_RX1) << RCE_IVAR_RXQ1_SHIFT |
		       (RCE_IVAR_VALID | RCE_VEC_TX) << RCE_IVAR_TXQ0_SHIFT |
		       (RCE_IVAR_VALID | RCE_VEC_OTHER) << RCE_IVAR_OTHER_SHIFT |
		       RCE_IVAR_TX_EVERY_WB;
		rce_wr(ad, RCE_CTRL_EXT,
		       rce_rd(ad, RCE_CTRL_EXT) | RCE_CTRL_EXT_PBA);
		rce_wr(ad, RCE_IVAR, ivar);
		/* Queue causes clear themselves when their message is sent. */
		rce_wr(ad, RCE_EIAC, ad->rx_irq_bits | ad->tx.irq_bit);
		ims |= RCE_ICR_OTHER;
	}
	rce_wr(ad, RCE_IMS, ims | ad->rx_irq_bits | ad->tx.irq_bit);
	rce_flush(ad);
}

/**
 * rce_irq_sync - wait for every handler that may still be running
 * @ad: the adapter; may sleep
 */
void rce_irq_sync(struct rce_adapter *ad)
{
	int v;

	for (v = 0; v < (ad->irq_mode == RCE_IRQ_MSIX ? RCE_NUM_VEC : 1); v++)
		synchronize_irq(ad->irq_vec[v]);
}

/**
 * rce_irq_disable - mask every cause and wait for the handlers
 * @ad: the adapter; may sleep
 */
void rce_irq_disable(struct rce_adapter *ad)
{
	rce_wr(ad, RCE_IMC, ~0u);
	if (ad->irq_mode == RCE_IRQ_MSIX)
		rce_wr(ad, RCE_EIAC, 0);
	rce_flush(ad);
	rce_irq_sync(ad);
}
