// SPDX-License-Identifier: GPL-2.0
/*
 * rc_ifaddr: a libpcap application that, like argus, opens a capture on
 * the name it was given and then asks the kernel about that same name
 * (SIOCGIFFLAGS, SIOCGIFADDR), giving up if the kernel does not know it.
 * libpcap-ring's name forms ("ringcap:eth0", "eth0@1") are no interface
 * names, so such a tool fails on them; the environment variables
 * (RINGCAP_REQUIRE, RINGCAP_QUEUE) keep the name plain. libpcap.sh runs it
 * through ringcap-run both ways.
 *
 *   rc_ifaddr DEV COUNT FILE   capture COUNT frames from DEV into the
 *                              pcap FILE; "ready" on stdout once the
 *                              ioctls passed. Exit 0, 1 (libpcap error),
 *                              3 (an ioctl failed on DEV)
 *
 * libpcap is loaded with dlopen() by its soname, so the selftests build
 * needs no libpcap headers or library, and ringcap-run's LD_LIBRARY_PATH
 * picks the drop-in exactly as for a distribution binary.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#define PCAP_ERRBUF_SIZE	256

/* The few calls used, with libpcap's signatures (pcap/pcap.h). */
struct lib {
	void *(*create)(const char *, char *);
	int (*set_snaplen)(void *, int);
	int (*set_timeout)(void *, int);
	int (*activate)(void *);
	char *(*geterr)(void *);
	void *(*dump_open)(void *, const char *);
	void (*dump)(unsigned char *, const void *, const unsigned char *);
	void (*dump_close)(void *);
	int (*loop)(void *, int, void (*)(unsigned char *, const void *,
					 const unsigned char *),
		    unsigned char *);
	void (*close)(void *);
};

static int load(struct lib *l)
{
	void *h = dlopen("libpcap.so.0.8", RTLD_NOW);

	if (!h) {
		fprintf(stderr, "rc_ifaddr: %s\n", dlerror());
		return -1;
	}
#define SYM(f) if (!(*(void **)&l->f = dlsym(h, "pcap_" #f))) return -1
	SYM(create);
	SYM(set_snaplen);
	SYM(set_timeout);
	SYM(activate);
	SYM(geterr);
	SYM(dump_open);
	SYM(dump);
	SYM(dump_close);
	SYM(loop);
	SYM(close);
#undef SYM
	return 0;
}

/* What argus does with its interface name once the capture is open. */
static int ask_kernel(const char *dev)
{
	struct ifreq ifr;
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("rc_ifaddr: socket");
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, dev, IFNAMSIZ - 1);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		fprintf(stderr, "rc_ifaddr: SIOCGIFFLAGS %s: %s\n", dev,
			strerror(errno));
		ret = -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, dev, IFNAMSIZ - 1);
	if (ioctl(fd, SIOCGIFADDR, &ifr)) {
		fprintf(stderr, "rc_ifaddr: SIOCGIFADDR %s: %s\n", dev,
			strerror(errno));
		ret = -1;
	} else {
		printf("addr %s\n", inet_ntoa(((struct sockaddr_in *)
					       &ifr.ifr_addr)->sin_addr));
	}
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	struct lib l;
	void *p, *d;
	int count;

	if (argc != 4) {
		fprintf(stderr, "usage: rc_ifaddr DEV COUNT FILE\n");
		return 2;
	}
	count = atoi(argv[2]);
	if (load(&l))
		return 1;
	p = l.create(argv[1], ebuf);
	if (!p) {
		fprintf(stderr, "rc_ifaddr: %s\n", ebuf);
		return 1;
	}
	l.set_snaplen(p, 65535);
	l.set_timeout(p, 100);
	if (l.activate(p) < 0) {
		fprintf(stderr, "rc_ifaddr: %s: %s\n", argv[1], l.geterr(p));
		return 1;
	}
	if (ask_kernel(argv[1]))
		return 3;
	d = l.dump_open(p, argv[3]);
	if (!d) {
		fprintf(stderr, "rc_ifaddr: %s\n", l.geterr(p));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	if (l.loop(p, count, l.dump, d) < 0) {
		fprintf(stderr, "rc_ifaddr: %s\n", l.geterr(p));
		return 1;
	}
	l.dump_close(d);
	l.close(p);
	return 0;
}
