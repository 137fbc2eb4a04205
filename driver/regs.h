/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 82574L registers used by ringcap_e1000e: offsets into BAR0 and the bits
 * we touch, as the 82574 datasheet names them. Only what the driver uses.
 */
#ifndef _RCE_REGS_H
#define _RCE_REGS_H

#include <linux/bits.h>

/* General control and status */
#define RCE_CTRL		0x0000
#define   RCE_CTRL_GIO_MD	BIT(2)	/* GIO master disable */
#define   RCE_CTRL_ASDE		BIT(5)	/* auto speed detection */
#define   RCE_CTRL_SLU		BIT(6)	/* set link up */
#define   RCE_CTRL_FRCSPD	BIT(11)
#define   RCE_CTRL_FRCDPX	BIT(12)
#define   RCE_CTRL_RST		BIT(26)	/* device reset, self-clearing */
#define   RCE_CTRL_VME		BIT(30)	/* VLAN mode (tag stripping) */
#define   RCE_CTRL_PHY_RST	BIT(31)
#define RCE_STATUS		0x0008
#define   RCE_STATUS_FD		BIT(0)
#define   RCE_STATUS_LU		BIT(1)	/* link up */
#define   RCE_STATUS_SPEED_SHIFT 6	/* 2 bits: 0 = 10, 1 = 100, 2/3 = 1000 */
#define   RCE_STATUS_SPEED_MASK	(3 << RCE_STATUS_SPEED_SHIFT)
#define   RCE_STATUS_GIO_ME	BIT(19)	/* GIO master enable status */
#define RCE_EERD		0x0014	/* NVM read */
#define   RCE_EERD_START	BIT(0)
#define   RCE_EERD_DONE		BIT(1)
#define   RCE_EERD_ADDR_SHIFT	2
#define   RCE_EERD_DATA_SHIFT	16
#define RCE_CTRL_EXT		0x0018
#define   RCE_CTRL_EXT_PBA	BIT(31)	/* PBA support, set with MSI-X */
#define RCE_VET			0x0038	/* the ethertype CTRL.VME strips */

/* Interrupts */
#define RCE_ICR			0x00C0	/* cause, read to clear */
#define RCE_ITR			0x00C4	/* throttling, 256 ns units */
#define RCE_IMS			0x00D0	/* mask set = enable */
#define RCE_IMC			0x00D8	/* mask clear = disable */
#define RCE_EIAC		0x00DC	/* MSI-X: causes auto-cleared on notify */
#define RCE_IVAR		0x00E4	/* MSI-X: cause -> vector */
#define   RCE_IVAR_VALID	0x8	/* per 4-bit entry: vector in bits 0-2 */
#define   RCE_IVAR_RXQ0_SHIFT	0
#define   RCE_IVAR_RXQ1_SHIFT	4
#define   RCE_IVAR_TXQ0_SHIFT	8
#define   RCE_IVAR_OTHER_SHIFT	16
#define   RCE_IVAR_TX_EVERY_WB	BIT(31)	/* TX cause on every write-back */
#define RCE_EITR(v)		(0x00E8 + 4 * (v))	/* per MSI-X vector */

#define RCE_ICR_TXDW		BIT(0)	/* TX descriptor written back */
#define RCE_ICR_LSC		BIT(2)	/* link status change */
#define RCE_ICR_RXDMT0		BIT(4)	/* RX descriptors below threshold */
#define RCE_ICR_RXO		BIT(6)	/* receiver overrun */
#define RCE_ICR_RXT0		BIT(7)	/* receiver timer: frames received */
#define RCE_ICR_RXQ(q)		BIT(20 + (q))
#define RCE_ICR_TXQ(q)		BIT(22 + (q))
#define RCE_ICR_OTHER		BIT(24)
#define RCE_ICR_ASSERTED	BIT(31)	/* legacy/MSI: this device asserted */

/* Receive */
#define RCE_RCTL		0x0100
#define   RCE_RCTL_EN		BIT(1)
#define   RCE_RCTL_UPE		BIT(3)	/* unicast promiscuous */
#define   RCE_RCTL_MPE		BIT(4)	/* multicast promiscuous */
#define   RCE_RCTL_RDMTS_HALF	(0 << 8)
#define   RCE_RCTL_BAM		BIT(15)	/* accept broadcast */
#define   RCE_RCTL_BSIZE_2048	(0 << 16)
#define   RCE_RCTL_SECRC	BIT(26)	/* strip the Ethernet CRC */
#define RCE_RFCTL		0x5008
#define   RCE_RFCTL_ACK_DIS	BIT(12)	/* no ACK interrupt per TCP ACK */
#define   RCE_RFCTL_EXSTEN	BIT(15)	/* extended RX descriptors */
#define RCE_RXCSUM		0x5000
#define   RCE_RXCSUM_PCSD	BIT(13)	/* write RSS hash, not checksum */
#define RCE_RDTR		0x2820	/* RX delay timer */
#define RCE_RADV		0x282C	/* RX absolute delay */
#define RCE_RDBAL(q)		(0x2800 + 0x100 * (q))
#define RCE_RDBAH(q)		(0x2804 + 0x100 * (q))
#define RCE_RDLEN(q)		(0x2808 + 0x100 * (q))
#define RCE_RDH(q)		(0x2810 + 0x100 * (q))
#define RCE_RDT(q)		(0x2818 + 0x100 * (q))

/* Receive-side scaling */
#define RCE_MRQC		0x5818
#define   RCE_MRQC_RSS_EN	0x1
/* RSS field enables, one per hash function. "Ex": IPv6 extension headers
 * (home address option, type 2 routing header) are parsed for the
 * addresses; without them the fixed header's are used. */
#define   RCE_MRQC_TCP_IPV4	BIT(16)
#define   RCE_MRQC_IPV4		BIT(17)
#define   RCE_MRQC_TCP_IPV6_EX	BIT(18)
#define   RCE_MRQC_IPV6_EX	BIT(19)
#define   RCE_MRQC_IPV6		BIT(20)
#define   RCE_MRQC_TCP_IPV6	BIT(21)
#define RCE_RETA(i)		(0x5C00 + 4 * (i))	/* 32 regs, 128 bytes */
#define   RCE_RETA_ENTRIES	128
#define   RCE_RETA_QUEUE1	0x80	/* per byte: bit 7 selects queue 1 */
#define RCE_RSSRK(i)		(0x5C80 + 4 * (i))	/* 10 regs, 40 bytes */
#define   RCE_RSSRK_WORDS	10

/* Address filters */
#define RCE_MTA(i)		(0x5200 + 4 * (i))
#define   RCE_MTA_WORDS		128
#define RCE_RAL(i)		(0x5400 + 8 * (i))
#define RCE_RAH(i)		(0x5404 + 8 * (i))
#define   RCE_RAH_AV		BIT(31)	/* address valid */
#define   RCE_RAR_ENTRIES	16

/* Transmit */
#define RCE_TCTL		0x0400
#define   RCE_TCTL_EN		BIT(1)
#define   RCE_TCTL_PSP		BIT(3)	/* pad short packets */
#define   RCE_TCTL_CT_SHIFT	4
#define   RCE_TCTL_COLD_SHIFT	12
#define   RCE_TCTL_RTLC		BIT(24)
#define RCE_TIPG		0x0410
#define RCE_TDBAL(q)		(0x3800 + 0x100 * (q))
#define RCE_TDBAH(q)		(0x3804 + 0x100 * (q))
#define RCE_TDLEN(q)		(0x3808 + 0x100 * (q))
#define RCE_TDH(q)		(0x3810 + 0x100 * (q))
#define RCE_TDT(q)		(0x3818 + 0x100 * (q))
#define RCE_TXDCTL(q)		(0x3828 + 0x100 * (q))
#define   RCE_TXDCTL_GRAN	BIT(24)	/* thresholds count descriptors */

/* Statistics: 32-bit, clear on read */
#define RCE_CRCERRS		0x4000
#define RCE_RXERRC		0x400C
#define RCE_MPC			0x4010	/* missed: no room in the RX FIFO */
#define RCE_COLC		0x4028
#define RCE_GPRC		0x4074
#define RCE_MPRC		0x407C
#define RCE_GPTC		0x4080
#define RCE_RNBC		0x40A0	/* no RX descriptor available */
#define RCE_RUC			0x40A4	/* undersize */
#define RCE_ROC			0x40AC	/* oversize */

#endif /* _RCE_REGS_H */
