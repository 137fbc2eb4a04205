// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The XDP program of ringcap's copy path (RINGCAP_PATH_XDP_COPY in
 * <linux/ringcap.h>): the module's kfunc copies the frame into the rings
 * of the sockets that want it and gives the verdict, drop (mode 2, a
 * socket bound with CAP_NET_ADMIN wanted it) or pass. The metadata
 * reserved first is where the kfunc marks a frame passed on after its
 * copies, for the module's mode 0 hook; a driver that carries none makes
 * the kfunc copy nothing, and the hook captures the frame.
 *
 * GPL: kfuncs are for GPL-compatible programs only.
 */
#include <linux/bpf.h>
#include <linux/ringcap.h>
#include <ringcap/xdp.h>
#include <bpf/bpf_helpers.h>

extern int bpf_ringcap_xdp_capture(struct xdp_md *ctx) __ksym;

SEC("xdp")
int ringcap_xdp_copy(struct xdp_md *ctx)
{
	bpf_xdp_adjust_meta(ctx, -(int)sizeof(struct ringcap_xdp_mark));
	return bpf_ringcap_xdp_capture(ctx);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
