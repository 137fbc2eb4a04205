// SPDX-License-Identifier: GPL-2.0
/*
 * ringcap: packet capture into memory-mapped rings.
 *
 * Module init and exit. Each step's undo sits at the matching label, in
 * reverse order.
 */
#include <linux/module.h>
#include "ringcap.h"

static int __init ringcap_init(void)
{
	int err;

	ringcap_cluster_init();
	err = ringcap_capture_init();
	if (err)
		return err;
	err = ringcap_netdev_init();
	if (err)
		goto err_capture;
	err = ringcap_proc_init();
	if (err)
		goto err_netdev;
	err = ringcap_xdp_init();
	if (err)
		goto err_proc;
	/* Nothing to undo: the kfuncs go with the module's BTF. */
	ringcap_kfunc_init();
	err = ringcap_sock_init();
	if (err)
		goto err_xdp;
	pr_info("version %s, family %u, transparent_mode %d, XDP %s\n",
		RINGCAP_VERSION, ringcap_family_nr, ringcap_mode(),
		ringcap_kfunc_available() ? "copy" : "redirect");
	return 0;

err_xdp:
	ringcap_xdp_exit();
err_proc:
	ringcap_proc_exit();
err_netdev:
	ringcap_netdev_exit();
err_capture:
	ringcap_capture_exit();
	return err;
}

static void __exit ringcap_exit(void)
{
	ringcap_sock_exit();
	ringcap_persist_exit();
	ringcap_xdp_exit();
	ringcap_proc_exit();
	ringcap_netdev_exit();
	ringcap_capture_exit();
}

module_init(ringcap_init);
module_exit(ringcap_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(RINGCAP_VERSION);
MODULE_DESCRIPTION("Packet capture into memory-mapped rings, fed by aware NIC drivers");
MODULE_AUTHOR("The ringcap developers");
