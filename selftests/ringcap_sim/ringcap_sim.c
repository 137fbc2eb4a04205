// SPDX-License-Identifier: GPL-2.0
/*
 * ringcap_sim: a test-only ringcap-aware network device, in the spirit of
 * netdevsim. It has no hardware: frames "received" on one of its two RX
 * queues are written by a test into debugfs, and go through the same
 * aware-driver API a real NIC driver uses. That makes transparent modes 1
 * and 2, per-queue binding and high injection rates testable without
 * emulated hardware.
 *
 *   ip link add rcsim0 type ringcap_sim
 *   ip link set rcsim0 up
 *   write records [__le16 queue][__le16 len][len bytes] to
 *       /sys/kernel/debug/ringcap_sim/rcsim0/inject
 *
 * Knobs beside it, for the races and faults a real driver meets rarely:
 *   hold        as inject, but the skbs built for the stack wait until a
 *               write to release (so a test can act between the driver's
 *               ringcap_rx() and the stack seeing the frame)
 *   release     pass the held skbs up
 *   aware       0 or 1: unregister from or register with ringcap, as a
 *               driver does on teardown and setup
 *   rx_missed   the device's rx_missed_errors (a driver resetting its
 *               counters writes a smaller value); a rise is reported to
 *               ringcap as frames the NIC lost (ringcap_nic_lost())
 *   rtnl_hold_ms  hold rtnl_lock this long, as a slow configuration path
 *   tx_room     N >= 0: the device takes N more frames, then stops its
 *               queues as a NIC with a full TX ring does (a write wakes
 *               them); -1 (the default): no limit. For a transmit path
 *               that meets a full device on demand.
 *
 * Not installed by DKMS; the selftests build and load it.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/rtnetlink.h>
#include <ringcap/driver.h>

#define RCSIM_RXQ		2
#define RCSIM_MAX_WRITE		(4 << 20)
#define RCSIM_MAX_FRAME		9018

struct rcsim {
	struct net_device *dev;
	struct ringcap_dev *rd;
	struct dentry *dir;
	/* ringcap_rx() wants one caller per queue: one writer at a time. */
	struct mutex inject_lock;
	struct sk_buff_head held;	/* under inject_lock */
	atomic_t tx_room;		/* frames to take before stopping, or -1 */
};

static struct dentry *rcsim_root;

static u16 rcsim_le16(const u8 *p)
{
	return p[0] | p[1] << 8;
}

static void rcsim_rx(struct rcsim *sim, u16 queue, const u8 *data, u16 len,
		     bool hold)
{
	struct net_device *dev = sim->dev;
	struct ringcap_dev *rd = READ_ONCE(sim->rd);
	struct sk_buff *skb;
	unsigned int where = RINGCAP_RX_STACK;

	if (!netif_running(dev)) {
		dev->stats.rx_dropped++;
		return;
	}
	if (rd)
		where = ringcap_rx(rd, queue, data, len, NULL);
	if (!(where & RINGCAP_RX_STACK))
		return;		/* mode 2: the rings had it, the stack not */

	skb = netdev_alloc_skb(dev, len);
	if (!skb) {
		dev->stats.rx_dropped++;
		return;
	}
	skb_put_data(skb, data, len);
	skb->protocol = eth_type_trans(skb, dev);
	skb_record_rx_queue(skb, queue);
	ringcap_rx_skb(skb, where);
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += len;
	if (hold) {
		__skb_queue_tail(&sim->held, skb);
		return;
	}
	/* As a threaded NAPI poller does: process context, BH disabled. */
	local_bh_disable();
	netif_receive_skb(skb);
	local_bh_enable();
}

/* Every record must be well formed before any frame is injected. */
static int rcsim_check(const u8 *buf, size_t count)
{
	size_t off = 0;
	u16 queue, len;

	while (off < count) {
		if (count - off < 4)
			return -EINVAL;
		queue = rcsim_le16(buf + off);
		len = rcsim_le16(buf + off + 2);
		off += 4;
		if (queue >= RCSIM_RXQ || len < ETH_HLEN ||
		    len > RCSIM_MAX_FRAME || count - off < len)
			return -EINVAL;
		off += len;
	}
	return 0;
}

static ssize_t rcsim_write(struct file *file, const char __user *ubuf,
			   size_t count, bool hold)
{
	struct rcsim *sim = file->private_data;
	size_t off = 0;
	u16 queue, len;
	u8 *buf;
	int err;

	if (!count || count > RCSIM_MAX_WRITE)
		return -EINVAL;
	buf = kvmalloc(count, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = -EFAULT;
	if (copy_from_user(buf, ubuf, count))
		goto out_free;
	err = rcsim_check(buf, count);
	if (err)
		goto out_free;

	mutex_lock(&sim->inject_lock);
	while (off < count) {
		queue = rcsim_le16(buf + off);
		len = rcsim_le16(buf + off + 2);
		rcsim_rx(sim, queue, buf + off + 4, len, hold);
		off += 4 + len;
		cond_resched();
	}
	mutex_unlock(&sim->inject_lock);
	err = count;
out_free:
	kvfree(buf);
	return err;
}

static ssize_t rcsim_inject_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	return rcsim_write(file, ubuf, count, false);
}

static ssize_t rcsim_hold_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	return rcsim_write(file, ubuf, count, true);
}

static void rcsim_release_held(struct rcsim *sim)
{
	struct sk_buff *skb;

	mutex_lock(&sim->inject_lock);
	while ((skb = __skb_dequeue(&sim->held))) {
		local_bh_disable();
		netif_receive_skb(skb);
		local_bh_enable();
	}
	mutex_unlock(&sim->inject_lock);
}

static ssize_t rcsim_release_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	rcsim_release_held(file->private_data);
	return count;
}

static int rcsim_set_aware(struct rcsim *sim, bool on)
{
	struct ringcap_dev *rd;
	int err = 0;

	/*
	 * inject_lock: no ringcap_rx() runs while the handle changes. A
	 * trylock, since dellink holds rtnl while it waits for this writer.
	 */
	mutex_lock(&sim->inject_lock);
	if (!rtnl_trylock()) {
		mutex_unlock(&sim->inject_lock);
		return restart_syscall();
	}
	if (on && !sim->rd) {
		rd = ringcap_register_dev(sim->dev, RCSIM_RXQ, NULL);
		if (IS_ERR(rd))
			err = PTR_ERR(rd);
		else
			WRITE_ONCE(sim->rd, rd);
	} else if (!on && sim->rd) {
		ringcap_unregister_dev(sim->rd);
		WRITE_ONCE(sim->rd, NULL);
	}
	rtnl_unlock();
	mutex_unlock(&sim->inject_lock);
	return err;
}

static ssize_t rcsim_aware_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	bool on;
	int err;

	err = kstrtobool_from_user(ubuf, count, &on);
	if (!err)
		err = rcsim_set_aware(file->private_data, on);
	return err ? err : count;
}

static ssize_t rcsim_rx_missed_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct rcsim *sim = file->private_data;
	unsigned long v;
	int err;

	struct ringcap_dev *rd;
	unsigned long old;

	err = kstrtoul_from_user(ubuf, count, 0, &v);
	if (err)
		return err;
	old = xchg(&sim->dev->stats.rx_missed_errors, v);
	/* A rise is reported as ringcap_e1000e reports its MPC. */
	rcu_read_lock();
	rd = READ_ONCE(sim->rd);
	if (rd && v > old)
		ringcap_nic_lost(rd, v - old);
	rcu_read_unlock();
	return count;
}

static ssize_t rcsim_rtnl_hold_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	unsigned int ms;
	int err;

	err = kstrtouint_from_user(ubuf, count, 0, &ms);
	if (err)
		return err;
	if (ms > 60000)
		return -EINVAL;
	/* As in rcsim_set_aware(): dellink may hold rtnl, waiting for us. */
	if (!rtnl_trylock())
		return restart_syscall();
	msleep(ms);
	rtnl_unlock();
	return count;
}

static ssize_t rcsim_tx_room_write(struct file *file,
				   const char __user *ubuf, size_t count,
				   loff_t *ppos)
{
	struct rcsim *sim = file->private_data;
	int room, err;

	err = kstrtoint_from_user(ubuf, count, 0, &room);
	if (err)
		return err;
	if (room < -1)
		return -EINVAL;
	atomic_set(&sim->tx_room, room);
	if (room)
		netif_tx_wake_all_queues(sim->dev);
	return count;
}

#define RCSIM_FOPS(name, writer)				\
	static const struct file_operations name = {		\
		.owner = THIS_MODULE,				\
		.open = simple_open,				\
		.write = writer,				\
		.llseek = noop_llseek,				\
	}

RCSIM_FOPS(rcsim_inject_fops, rcsim_inject_write);
RCSIM_FOPS(rcsim_hold_fops, rcsim_hold_write);
RCSIM_FOPS(rcsim_release_fops, rcsim_release_write);
RCSIM_FOPS(rcsim_aware_fops, rcsim_aware_write);
RCSIM_FOPS(rcsim_rx_missed_fops, rcsim_rx_missed_write);
RCSIM_FOPS(rcsim_rtnl_hold_fops, rcsim_rtnl_hold_write);
RCSIM_FOPS(rcsim_tx_room_fops, rcsim_tx_room_write);

static netdev_tx_t rcsim_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct rcsim *sim = netdev_priv(dev);

	/* tx_room: take the frame that leaves no room, then stop. */
	if (atomic_read(&sim->tx_room) >= 0) {
		int left = atomic_dec_if_positive(&sim->tx_room);

		if (left < 0) {
			/* Another queue took the last room meanwhile. */
			netif_tx_stop_all_queues(dev);
			return NETDEV_TX_BUSY;
		}
		if (!left)
			netif_tx_stop_all_queues(dev);
	}
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += skb->len;
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops rcsim_netdev_ops = {
	.ndo_start_xmit = rcsim_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

static void rcsim_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &rcsim_netdev_ops;
	dev->needs_free_netdev = true;
	eth_hw_addr_random(dev);
}

static int rcsim_newlink(struct net *src_net, struct net_device *dev,
			 struct nlattr *tb[], struct nlattr *data[],
			 struct netlink_ext_ack *extack)
{
	struct rcsim *sim = netdev_priv(dev);
	int err;

	sim->dev = dev;
	mutex_init(&sim->inject_lock);
	skb_queue_head_init(&sim->held);
	atomic_set(&sim->tx_room, -1);
	err = register_netdevice(dev);
	if (err)
		return err;
	sim->rd = ringcap_register_dev(dev, RCSIM_RXQ, NULL);
	if (IS_ERR(sim->rd)) {
		err = PTR_ERR(sim->rd);
		goto err_unregister;
	}
	sim->dir = debugfs_create_dir(dev->name, rcsim_root);
	debugfs_create_file("inject", 0200, sim->dir, sim, &rcsim_inject_fops);
	debugfs_create_file("hold", 0200, sim->dir, sim, &rcsim_hold_fops);
	debugfs_create_file("release", 0200, sim->dir, sim,
			    &rcsim_release_fops);
	debugfs_create_file("aware", 0200, sim->dir, sim, &rcsim_aware_fops);
	debugfs_create_file("rx_missed", 0200, sim->dir, sim,
			    &rcsim_rx_missed_fops);
	debugfs_create_file("rtnl_hold_ms", 0200, sim->dir, sim,
			    &rcsim_rtnl_hold_fops);
	debugfs_create_file("tx_room", 0200, sim->dir, sim,
			    &rcsim_tx_room_fops);
	return 0;

err_unregister:
	unregister_netdevice(dev);
	return err;
}

static void rcsim_dellink(struct net_device *dev, struct list_head *head)
{
	struct rcsim *sim = netdev_priv(dev);

	/* Waits for writers in flight, so no ringcap_rx() follows. */
	debugfs_remove_recursive(sim->dir);
	if (sim->rd)
		ringcap_unregister_dev(sim->rd);
	__skb_queue_purge(&sim->held);
	unregister_netdevice_queue(dev, head);
}

static unsigned int rcsim_num_queues(void)
{
	return RCSIM_RXQ;
}

static struct rtnl_link_ops rcsim_link_ops = {
	.kind = "ringcap_sim",
	.priv_size = sizeof(struct rcsim),
	.setup = rcsim_setup,
	.newlink = rcsim_newlink,
	.dellink = rcsim_dellink,
	.get_num_rx_queues = rcsim_num_queues,
	.get_num_tx_queues = rcsim_num_queues,
};

static int __init rcsim_init(void)
{
	int err;

	rcsim_root = debugfs_create_dir("ringcap_sim", NULL);
	err = rtnl_link_register(&rcsim_link_ops);
	if (err)
		goto err_debugfs;
	return 0;

err_debugfs:
	debugfs_remove_recursive(rcsim_root);
	return err;
}

static void __exit rcsim_exit(void)
{
	rtnl_link_unregister(&rcsim_link_ops);
	debugfs_remove_recursive(rcsim_root);
}

module_init(rcsim_init);
module_exit(rcsim_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test-only ringcap-aware network device");
MODULE_ALIAS_RTNL_LINK("ringcap_sim");
