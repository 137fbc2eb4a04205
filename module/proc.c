// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/ringcap: the module's settings, then one line per socket of the
 * reader's network namespace. ringstat(8) formats it for people; the
 * column names are part of the interface for scripts.
 */
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include "ringcap.h"

/*
 * ringcap_socks_lock is held: rs->dev and rs->devname change only under
 * it, so the name is whole even while the device is being renamed. The pid
 * is the creator's as the reader's pid namespace numbers it (0: not
 * visible there).
 */
static void ringcap_proc_sock(struct seq_file *seq, struct ringcap_sock *rs,
			      struct pid_namespace *pid_ns)
{
	struct ringcap_ring *ring = READ_ONCE(rs->ring);
	const char *name = "-";
	char queue[8] = "all";
	char cluster[11] = "-";
	struct ringcap_path path;
	char pathname[40];

	if (rs->gone)
		name = "gone";
	else if (rs->dev)
		name = rs->devname;
	if (rs->queue != RINGCAP_QUEUE_ANY)
		snprintf(queue, sizeof(queue), "%u", rs->queue);
	if (rs->cluster.id)
		snprintf(cluster, sizeof(cluster), "%u", rs->cluster.id);
	rcu_read_lock();
	ringcap_sock_path(rs, &path);
	snprintf(pathname, sizeof(pathname), "%s%s", ringcap_path_name(&path),
		 path.flags & RINGCAP_PATH_PASS ? ":pass" : "");
	/* Counters are read without the producer lock: a snapshot. */
	seq_printf(seq, "%-7d %-9lu %-15s %-5s %-10u %-10llu %-10llu %-10llu %-10llu %-12llu %-6s %-10s %-6s %-14s %s\n",
		   pid_nr_ns(rs->pid, pid_ns),
		   (unsigned long)ringcap_sock_ino(rs),
		   name, queue, ring ? ring->data_size : 0,
		   rs->st.received, rs->st.dropped, rs->st.filtered,
		   rs->st.wakeups, rs->st.bad_consumer,
		   rcu_access_pointer(rs->sk.sk_filter) ? "yes" : "no",
		   cluster, rs->cluster.id ?
		   ringcap_cluster_policy_name(rs->cluster.policy) : "-",
		   pathname, rs->dev && rs->persist[0] ? rs->persist : "-");
	rcu_read_unlock();
}

static int ringcap_proc_show(struct seq_file *seq, void *v)
{
	struct pid_namespace *pid_ns = proc_pid_ns(file_inode(seq->file)->i_sb);
	struct net *net = seq_file_single_net(seq);
	struct ringcap_sock *rs;

	seq_printf(seq, "ringcap %s abi %d family %u transparent_mode %d ring_size %u max_ring_mem %u watermark %u timeout_us %u\n",
		   RINGCAP_VERSION, RINGCAP_ABI_VERSION, ringcap_family_nr,
		   ringcap_mode(), READ_ONCE(ringcap_default_ring_size),
		   READ_ONCE(ringcap_max_ring_mem),
		   READ_ONCE(ringcap_default_watermark),
		   READ_ONCE(ringcap_default_timeout_us));
	seq_puts(seq, "pid     inode     device          queue ring_bytes received   dropped    filtered   wakeups    bad_consumer filter cluster    policy path           persist\n");
	mutex_lock(&ringcap_socks_lock);
	list_for_each_entry(rs, &ringcap_socks, all_node)
		if (net_eq(sock_net(&rs->sk), net))
			ringcap_proc_sock(seq, rs, pid_ns);
	mutex_unlock(&ringcap_socks_lock);
	return 0;
}

static int __net_init ringcap_proc_net_init(struct net *net)
{
	if (!proc_create_net_single("ringcap", 0444, net->proc_net,
				    ringcap_proc_show, NULL))
		return -ENOMEM;
	return 0;
}

static void __net_exit ringcap_proc_net_exit(struct net *net)
{
	remove_proc_entry("ringcap", net->proc_net);
}

static struct pernet_operations ringcap_proc_ops = {
	.init = ringcap_proc_net_init,
	.exit = ringcap_proc_net_exit,
};

/**
 * ringcap_proc_init - /proc/net/ringcap in every network namespace
 *
 * Return: 0 or register_pernet_subsys()'s error.
 */
int ringcap_proc_init(void)
{
	return register_pernet_subsys(&ringcap_proc_ops);
}

/**
 * ringcap_proc_exit - undo ringcap_proc_init()
 */
void ringcap_proc_exit(void)
{
	unregister_pernet_subsys(&ringcap_proc_ops);
}
