// SPDX-License-Identifier: GPL-2.0
/*
 * Write a pcapng file of known content through the tools' writer
 * (tools/pcapng.c, tools/zsink.c), for test_pcapng.sh to read back with
 * tshark and capinfos:
 *
 *   pcapng_write FILE N
 *
 * FILE's suffix picks the compression (.gz, .zst, else none). Two
 * interfaces, "rc0" (all queues) and "rc1@1"; N frames alternate between
 * them, frame i (from 0) is 60 + i % 100 bytes of which at most 96 are
 * captured, stamped 1700000000 s + i * 1001 ns, on queue i % 4 (rc0) or 1
 * (rc1), each byte (i + j) & 0xff, with i % 7 frames lost before it.
 * Each interface ends with an Interface Statistics Block: ifrecv 1000 +
 * id, ifdrop 10 + id, filteraccept 900 + id, osdrop 20 + id, usrdeliv
 * its frame count. Exit 0, or 1 with a message.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pcapng.h"
#include "zsink.h"

#define T0	1700000000000000000ULL

int main(int argc, char **argv)
{
	struct pcapng_stats st = { 0 };
	unsigned char frame[160];
	struct zsink out;
	struct pcapng ng;
	unsigned long n, i, count[2] = { 0, 0 };
	unsigned int j, len, cap, id;
	int fd, err;

	if (argc != 3)
		return fprintf(stderr, "usage: pcapng_write FILE N\n"), 2;
	n = strtoul(argv[2], NULL, 0);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return perror(argv[1]), 1;
	err = zsink_open(&out, zsink_kind_of(argv[1]), 3, fd);
	if (!err)
		err = pcapng_start(&ng, &out, "pcapng_write");
	if (!err && pcapng_interface(&ng, "rc0", "all queues", 96, NULL) != 0)
		err = -1;
	if (!err && pcapng_interface(&ng, "rc1@1", NULL, 96, "udp") != 1)
		err = -1;
	for (i = 0; !err && i < n; i++) {
		id = i % 2;
		len = 60 + i % 100;
		cap = len < 96 ? len : 96;
		for (j = 0; j < len; j++)
			frame[j] = (unsigned char)(i + j);
		err = pcapng_packet(&ng, id, T0 + i * 1001, frame, cap, len,
				    i % 7, PCAPNG_FLAG_INBOUND,
				    id ? 1 : i % 4);
		count[id]++;
	}
	for (id = 0; !err && id < 2; id++) {
		st.have = PCAPNG_ISB_IFRECV | PCAPNG_ISB_IFDROP |
			  PCAPNG_ISB_FILTERACCEPT | PCAPNG_ISB_OSDROP |
			  PCAPNG_ISB_USRDELIV;
		st.start_ns = T0;
		st.end_ns = T0 + n * 1001;
		st.ifrecv = 1000 + id;
		st.ifdrop = 10 + id;
		st.filteraccept = 900 + id;
		st.osdrop = 20 + id;
		st.usrdeliv = count[id];
		err = pcapng_stats(&ng, id, st.end_ns, &st);
	}
	if (!err)
		err = zsink_finish(&out);
	pcapng_free(&ng);
	zsink_free(&out);
	if (err || close(fd)) {
		fprintf(stderr, "pcapng_write: %s: failed (%d)\n", argv[1], err);
		return 1;
	}
	return 0;
}
