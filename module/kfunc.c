// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP copy path: a kfunc that XDP programs call to put the frame they
 * run on into the rings of its device's sockets, there and then. Nothing
 * is converted, redirected or flushed, so the driver recycles its buffer
 * as after XDP_DROP or XDP_PASS; that is what makes it cheaper than the
 * redirect path (xdp.c), which keeps the buffer until the flush. It needs
 * the module's BTF (kbuild/btf.sh); without it registration fails, the
 * program does not load, and libringcap falls back to the redirect.
 *
 * The program, libringcap's bpf/ringcap_xdp_copy.bpf.c, reserves struct
 * ringcap_xdp_mark in the frame's metadata first. A frame that goes on
 * to the stack after its copies carries the version of the socket set
 * that had it there, as an aware driver's skb carries it in skb->cb, so
 * that the device's mode 0 hook offers it to the other sockets only:
 * none twice, none missed, whatever changes in between (dev.c).
 */
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/filter.h>
#include <net/xdp.h>
#include "ringcap.h"

/* Set at init: programs can call the kfunc (the module has BTF). */
static bool ringcap_kfunc_ok;

/**
 * ringcap_kfunc_available - may XDP programs call the kfunc?
 *
 * Return: whether it was registered at load (the module has BTF).
 */
bool ringcap_kfunc_available(void)
{
	return READ_ONCE(ringcap_kfunc_ok);
}

/* The mark's room, right before the frame, or NULL. */
static struct ringcap_xdp_mark *ringcap_xdp_mark_room(struct xdp_buff *xdp)
{
	/* A driver without metadata puts data_meta after data. */
	if (xdp->data_meta > xdp->data ||
	    xdp->data - xdp->data_meta < sizeof(struct ringcap_xdp_mark))
		return NULL;
	return xdp->data - sizeof(struct ringcap_xdp_mark);
}

/**
 * ringcap_xdp_marked - the set version whose sockets had @skb's frame already
 * @skb: a frame the mode 0 hook sees on @rd
 * @rd: the device
 *
 * The mark the kfunc left in the frame's metadata speaks for @rd's
 * sockets only (ifindex and namespace, as the skb->cb mark's device does).
 *
 * Return: the version in the mark, or NULL if there is none for @rd.
 */
const u32 *ringcap_xdp_marked(const struct sk_buff *skb,
			      const struct ringcap_dev *rd)
{
	const struct ringcap_xdp_mark *m;

	if (skb_metadata_len(skb) < sizeof(*m) || !skb_mac_header_was_set(skb))
		return NULL;
	m = (const void *)skb_metadata_end(skb) - sizeof(*m);
	if (m->magic != RINGCAP_SKB_IN_RINGS ||
	    m->ifindex != rd->dev->ifindex ||
	    m->netns != dev_net(rd->dev)->ns.inum)
		return NULL;
	return &m->version;
}

__bpf_kfunc_start_defs();

/**
 * bpf_ringcap_xdp_capture - copy an XDP frame into ringcap's rings
 * @ctx: the program's context
 *
 * Offers the frame to the sockets bound to the receiving device and its
 * RX queue, as an aware driver's frame: filter, cluster member, copy,
 * counters and wake-up. Copies nothing in mode 0 (the hook captures), on
 * an aware device (its driver does), for a multi-buffer frame, or where
 * the driver gives no room for the mark.
 *
 * Return: XDP_DROP in mode 2 if a socket bound with CAP_NET_ADMIN wanted
 * the frame, else XDP_PASS: the program returns it as its verdict.
 */
__bpf_kfunc int bpf_ringcap_xdp_capture(struct xdp_md *ctx)
{
	struct xdp_buff *xdp = (struct xdp_buff *)ctx;
	struct net_device *dev = xdp->rxq->dev;
	struct ringcap_xdp_mark *mark;
	struct ringcap_frame f = {};
	struct ringcap_dev_set *set;
	struct ringcap_dev *rd;
	unsigned int wanted;
	enum ringcap_mode mode = ringcap_mode();

	mark = ringcap_xdp_mark_room(xdp);
	if (!mark)
		return XDP_PASS;
	/* A recycled buffer may hold an old frame's mark there. */
	mark->magic = 0;
	f.len = xdp->data_end - xdp->data;
	/*
	 * A multi-buffer frame (a program of its own, loaded with frags) is
	 * longer than its first buffer: the hook captures it whole.
	 */
	if (mode == RINGCAP_MODE_HOOK || f.len < ETH_HLEN || xdp_buff_has_frags(xdp))
		return XDP_PASS;
	/* XDP runs in NAPI (softirq) under RCU, as ringcap_deliver() wants. */
	rd = ringcap_dev_find_rcu(dev);
	if (!rd || READ_ONCE(rd->nr_rxq))
		return XDP_PASS;
	f.data = xdp->data;
	f.dev = dev;
	f.ifindex = dev->ifindex;
	f.queue = min_t(u32, xdp->rxq->queue_index, RINGCAP_QUEUE_ANY - 1);
	f.tstamp_ns = ktime_get_real_ns();
	ringcap_frame_untag(&f);
	set = rcu_dereference(rd->set);
	wanted = ringcap_set_deliver(set, &f, NULL);
	if (mode == RINGCAP_MODE_STEAL && (wanted & RINGCAP_SET_STEAL))
		return XDP_DROP;
	if (!wanted)
		return XDP_PASS;
	mark->magic = RINGCAP_SKB_IN_RINGS;
	mark->version = set->version;
	mark->ifindex = dev->ifindex;
	mark->netns = dev_net(dev)->ns.inum;
	return XDP_PASS;
}

__bpf_kfunc_end_defs();

/**
 * ringcap_kfunc_called_by - does a verified program call the kfunc?
 * @prog: the program
 *
 * Once verified, a kfunc call's imm is the
 * function's offset from __bpf_call_base, as a helper call's (x86-64's
 * JIT takes no far kfunc calls), so the call is found by its address. A
 * program handed over as the copy program that does not call it would
 * capture nothing while its sockets' path said xdp-copy.
 *
 * Return: whether it does.
 */
bool ringcap_kfunc_called_by(const struct bpf_prog *prog)
{
	const struct bpf_insn *insn = prog->insnsi;
	u32 i;

	if (!ringcap_kfunc_available())
		return false;
	for (i = 0; i < prog->len; i++, insn++)
		if (insn->code == (BPF_JMP | BPF_CALL) &&
		    insn->src_reg == BPF_PSEUDO_KFUNC_CALL &&
		    insn->imm == BPF_CALL_IMM(bpf_ringcap_xdp_capture))
			return true;
	return false;
}

BTF_KFUNCS_START(ringcap_kfunc_ids)
BTF_ID_FLAGS(func, bpf_ringcap_xdp_capture)
BTF_KFUNCS_END(ringcap_kfunc_ids)

static const struct btf_kfunc_id_set ringcap_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &ringcap_kfunc_ids,
};

/* Whether the module was loaded with its BTF, which the kfunc needs. */
static int ringcap_kfunc_btf(void)
{
#ifdef CONFIG_DEBUG_INFO_BTF_MODULES
	return THIS_MODULE->btf_data_size ? 0 : -ENOENT;
#else
	return -EOPNOTSUPP;	/* the kernel keeps no module's BTF */
#endif
}

/**
 * ringcap_kfunc_init - register the kfunc for XDP programs
 *
 * Never fails the module: without BTF (the kernel's message says
 * "missing module BTF") XDP capture takes the redirect path. Some
 * kernels register nothing then and still return 0, hence the check
 * first.
 */
void __init ringcap_kfunc_init(void)
{
	int err = ringcap_kfunc_btf();

	if (!err)
		err = register_btf_kfunc_id_set(BPF_PROG_TYPE_XDP,
						&ringcap_kfunc_set);
	if (err) {
		pr_info("no XDP kfunc (%pe): XDP capture redirects\n",
			ERR_PTR(err));
		return;
	}
	WRITE_ONCE(ringcap_kfunc_ok, true);
}
