/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels ringcap and ringcap_e1000e
 * support (Debian 12's 6.1 and 6.12) and newer ones. The top-level Kbuild
 * force-includes this file into every object, so the core files never
 * include it themselves. Where today's API is a function, an older kernel
 * gets it here under today's name, and the core files call it as they
 * would on a current kernel; where the difference is in a structure (a
 * field that moved or did not exist), a ringcap_ helper names the act.
 * Being read before any kernel header, it uses macros, which need no
 * declarations.
 */
#ifndef _RINGCAP_COMPAT_H
#define _RINGCAP_COMPAT_H

#include <linux/version.h>

/* 6.13 replaced hrtimer_init() + ->function with hrtimer_setup(). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define hrtimer_setup(t, fn, clock, mode)		\
	do {						\
		hrtimer_init((t), (clock), (mode));	\
		(t)->function = (fn);			\
	} while (0)
#endif

/* 6.3 made vma->vm_flags read-only behind vm_flags_set(). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
#define vm_flags_set(vma, flags)	((vma)->vm_flags |= (flags))
#define vm_flags_clear(vma, flags)	((vma)->vm_flags &= ~(flags))
#endif

/* 6.8 renamed PCI_IRQ_LEGACY to PCI_IRQ_INTX; 6.1 has only the old name. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 0)
#define PCI_IRQ_INTX	PCI_IRQ_LEGACY
#endif

/*
 * 6.3 made redirect targets declare ndo_xdp_xmit in dev->xdp_features;
 * 6.1 checks only for the method.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
#define ringcap_xdp_features_ndo_xmit(dev)	do { } while (0)
#else
#define ringcap_xdp_features_ndo_xmit(dev)	\
	((dev)->xdp_features = NETDEV_XDP_ACT_NDO_XMIT)
#endif

/*
 * A device that must stay in its network namespace: a feature bit up to
 * 6.11, a field of struct net_device since, renamed within 6.12.y; the
 * version does not tell which, so common.kbuild probes netdevice.h.
 */
#if defined(RINGCAP_HAVE_NETNS_IMMUTABLE)
#define ringcap_set_netns_local(dev)	((dev)->netns_immutable = true)
#elif defined(RINGCAP_HAVE_NETNS_LOCAL)
#define ringcap_set_netns_local(dev)	((dev)->netns_local = true)
#else
#define ringcap_set_netns_local(dev)	((dev)->features |= NETIF_F_NETNS_LOCAL)
#endif

/*
 * Kfuncs (kfunc.c): 6.3 added the __bpf_kfunc tag, 6.7 the start and end
 * of their definitions (which silence -Wmissing-prototypes), and 6.9
 * BTF_KFUNCS_START, a BTF_SET8 flagged as kfuncs that registration then
 * insists on; 6.1 has the plain set, and a kfunc is a function the
 * compiler must keep as it is.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
#define __bpf_kfunc	__used noinline
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0)
#define __bpf_kfunc_start_defs()					\
	__diag_push();							\
	__diag_ignore_all("-Wmissing-prototypes",			\
			  "kfuncs are declared by their BTF")
#define __bpf_kfunc_end_defs()	__diag_pop()
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
#define BTF_KFUNCS_START	BTF_SET8_START
#define BTF_KFUNCS_END		BTF_SET8_END
#endif

#endif /* _RINGCAP_COMPAT_H */
