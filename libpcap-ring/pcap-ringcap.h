/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ringcap capture source for libpcap: the two entry points that
 * libpcap's table of capture sources (capture_source_types[] in pcap.c)
 * calls. Everything else in pcap-ringcap.c is static.
 */
#ifndef PCAP_RINGCAP_H
#define PCAP_RINGCAP_H

pcap_t *ringcap_pcap_create(const char *device, char *ebuf, int *is_ours);
int ringcap_pcap_findalldevs(pcap_if_list_t *devlistp, char *ebuf);

#endif /* PCAP_RINGCAP_H */
