/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ringcap.ko and libringcap's XDP programs (userland/lib/bpf/) share,
 * and nothing else does: not user ABI, so not in <linux/ringcap.h>. Both
 * are built from this tree, together, so they always agree.
 */
#ifndef _RINGCAP_XDP_H
#define _RINGCAP_XDP_H

#include <linux/types.h>

/*
 * What the XDP program and the module share: an ARRAY map named
 * ringcap_cfg of __u32 keys and values, written by the module only, and
 * struct ringcap_xdp_meta as the metadata right before each redirected
 * frame (a redirected frame does not say where it came from).
 */
#define RINGCAP_XDP_CFG_TARGET	0	/* ifindex to redirect to; 0: pass all */
#define RINGCAP_XDP_CFG_DEV	1	/* ifindex of the device the link is on */
#define RINGCAP_XDP_CFG_ANY	2	/* nonzero: a socket wants every queue */
#define RINGCAP_XDP_CFG_QUEUE0	3	/* + q: nonzero, a socket wants queue q */
#define RINGCAP_XDP_QUEUES	256	/* frames of later queues pass unless ANY */
#define RINGCAP_XDP_CFG_ENTRIES	(RINGCAP_XDP_CFG_QUEUE0 + RINGCAP_XDP_QUEUES)

struct ringcap_xdp_meta {
	__u32	ifindex;	/* the receiving device */
	__u32	queue;		/* its RX queue */
};

/*
 * The copy program reserves this much metadata (bpf_xdp_adjust_meta())
 * before it calls bpf_ringcap_xdp_capture(), which writes it when the
 * frame goes on to the stack after its copies: the version of the
 * device's socket set that had it, for the mode 0 hook. Where the driver
 * carries no metadata the kfunc copies nothing and the hook captures.
 */
struct ringcap_xdp_mark {
	__u32	magic;
	__u32	version;
	__u32	ifindex;	/* the device, within */
	__u32	netns;		/* its network namespace's inode number */
};

#endif /* _RINGCAP_XDP_H */
