/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels ringcap_e1000e supports
 * (Debian 12's 6.1 and 6.12), kept out of the driver's core files.
 */
#ifndef _RCE_COMPAT_H
#define _RCE_COMPAT_H

#include <linux/pci.h>

/* 6.8 renamed PCI_IRQ_LEGACY to PCI_IRQ_INTX; 6.1 has only the old name. */
#ifndef PCI_IRQ_INTX
#define PCI_IRQ_INTX	PCI_IRQ_LEGACY
#endif

#endif /* _RCE_COMPAT_H */
