// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The XDP program of ringcap's mode 2 on devices without an aware driver
 * (see RINGCAP_PATH in <linux/ringcap.h>). The module steers it through
 * ringcap_cfg: frames of a queue some bound socket wants are redirected
 * into the namespace's ringcapxdpN device with their device and RX queue
 * in the metadata (struct ringcap_xdp_meta); all others, and every frame while the module says
 * "pass", go on to the stack untouched. Where the driver cannot carry
 * metadata the frame goes to the stack too, where the mode 0 hook
 * captures it with its right queue.
 */
#include <linux/bpf.h>
#include <linux/ringcap.h>
#include <ringcap/xdp.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RINGCAP_XDP_CFG_ENTRIES);
	__type(key, __u32);
	__type(value, __u32);
} ringcap_cfg SEC(".maps");

static __always_inline __u32 cfg(__u32 key)
{
	__u32 *v = bpf_map_lookup_elem(&ringcap_cfg, &key);

	return v ? *v : 0;
}

SEC("xdp")
int ringcap_xdp(struct xdp_md *ctx)
{
	__u32 queue = ctx->rx_queue_index;
	__u32 target = cfg(RINGCAP_XDP_CFG_TARGET);
	struct ringcap_xdp_meta *meta;

	/* The module writes the ifindex of the device it holds the link of. */
	if (!target || cfg(RINGCAP_XDP_CFG_DEV) != ctx->ingress_ifindex)
		return XDP_PASS;
	if (!cfg(RINGCAP_XDP_CFG_ANY) &&
	    (queue >= RINGCAP_XDP_QUEUES ||
	     !cfg(RINGCAP_XDP_CFG_QUEUE0 + queue)))
		return XDP_PASS;
	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(*meta)))
		return XDP_PASS;
	meta = (void *)(long)ctx->data_meta;
	if ((void *)(meta + 1) > (void *)(long)ctx->data)
		return XDP_PASS;
	meta->ifindex = ctx->ingress_ifindex;
	meta->queue = queue;
	return bpf_redirect(target, 0);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
