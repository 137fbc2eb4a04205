/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels ringcap supports (Debian 12's
 * 6.1 and 6.12) and newer ones, kept here so the core files read as
 * today's kernel API.
 */
#ifndef _RINGCAP_COMPAT_H
#define _RINGCAP_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/version.h>

/* 6.13 replaced hrtimer_init() + ->function with hrtimer_setup(). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
static inline void
ringcap_hrtimer_setup(struct hrtimer *t,
		      enum hrtimer_restart (*fn)(struct hrtimer *),
		      clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(t, clock, mode);
	t->function = fn;
}
#else
#define ringcap_hrtimer_setup hrtimer_setup
#endif

/* 6.3 made vma->vm_flags read-only behind vm_flags_set(). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void ringcap_vm_flags_set(struct vm_area_struct *vma,
					vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#else
#define ringcap_vm_flags_set vm_flags_set
#endif

#endif /* _RINGCAP_COMPAT_H */
