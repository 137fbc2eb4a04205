/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 82574L descriptor layouts: the legacy TX descriptor and the extended RX
 * descriptor (needed for RSS: the hash is written back in place of the
 * packet checksum). All fields little-endian, 16 bytes each.
 */
#ifndef _RCE_DESC_H
#define _RCE_DESC_H

#include <linux/types.h>

struct rce_tx_desc {
	__le64	addr;
	__le16	len;
	u8	cso;
	u8	cmd;
	u8	status;
	u8	css;
	__le16	special;
};

#define RCE_TXD_CMD_EOP		BIT(0)	/* last descriptor of the frame */
#define RCE_TXD_CMD_IFCS	BIT(1)	/* NIC appends the CRC */
#define RCE_TXD_CMD_RS		BIT(3)	/* report status: set DD when done */
#define RCE_TXD_STAT_DD		BIT(0)

/* What the driver writes: one buffer address. */
struct rce_rx_desc_read {
	__le64	addr;
	__le64	reserved;
};

/* What the NIC writes back over it when a frame has landed. */
struct rce_rx_desc_wb {
	__le32	mrq;		/* bits 0-3 RSS type, 8-12 queue */
	__le32	rss_hash;
	__le32	status_error;	/* status 0-19, errors 20-31 */
	__le16	len;
	__le16	vlan;		/* the stripped tag's TCI, if VP */
};

union rce_rx_desc {
	struct rce_rx_desc_read	read;
	struct rce_rx_desc_wb	wb;
};

#define RCE_RXD_STAT_DD		BIT(0)	/* descriptor done */
#define RCE_RXD_STAT_EOP	BIT(1)	/* last buffer of the frame */
#define RCE_RXD_STAT_VP		BIT(3)	/* tag stripped (CTRL.VME), TCI in vlan */
#define RCE_RXD_MRQ_RSS_TYPE	0xf	/* 0 none, 1/3 TCP v4/v6, 2/4/5 IP */
/* CRC/alignment, symbol, sequence, carrier extension, RX data errors */
#define RCE_RXD_ERR_FRAME	(BIT(24) | BIT(25) | BIT(26) | BIT(28) | BIT(31))

#endif /* _RCE_DESC_H */
