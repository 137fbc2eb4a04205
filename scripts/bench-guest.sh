#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make bench` (scripts/bench.sh boots a 2-vCPU guest
# with one emulated 82574L, nic0, whose wire is the host traffic
# generator). For every configuration of the matrix it starts the capture
# processes, has the host offer FRAMES frames at the generator's full
# rate, waits until the NIC is quiet, and writes one CSV row: what was
# offered, what the NIC delivered and missed, what each process captured,
# the drops per layer, wake-ups and poll-family syscalls per 1000 captured
# frames, and each CPU's user/sys/softirq split. Then the same on a
# virtio-net NIC (--nic virtio-dgram, the stock virtio_net: ringcap's
# standard hook in mode 0 and XDP in mode 2, against native XDP_DROP as
# the ceiling), three readers each copying everything against a ringcap
# cluster and netsniff-ng's AF_PACKET fanout, zero-copy receive against
# copy mode and AF_PACKET on the 82574L's two RX queues, the transmit
# rate the other way, out of the 82574L to the host (ringcap's TX ring,
# trafgen, sendmmsg() and pktgen; rows in OUT-tx.csv), and the sim-device
# micro-benchmark with 1 and 3 readers: the capture path without NIC
# emulation. Last, where the time goes: a profiled run of the main
# virtio-net set-ups and of the zero-copy pair (perf in the guest,
# drops.bt/afpacket-drops.bt), and a profiled send of pktgen, the TX ring
# and trafgen.
#
#   scripts/bench-guest.sh full|quick OUT.csv
#
#   RINGCAP_BENCH_FRAMES, RINGCAP_BENCH_REPS   override the matrix's
#   RINGCAP_BENCH_PARTS   which parts run (default all: "e1000e virtio
#                         multi zerocopy tx sim explain"; quick leaves
#                         explain out); the others are left out of the
#                         plan
#
# Set-ups: af_stock (the stock e1000e, the system libpcap: AF_PACKET,
# TPACKET_V3), af_rce0 (ringcap_e1000e in mode 0, the system libpcap),
# rc_m0/rc_m1/rc_m2 (ringcap_e1000e in transparent mode 0/1/2 with
# libpcap-ring), ringcount (mode 2, ringcap's own reader).
# On virtio-net (figure "virtio"): vio_af (tcpdump, AF_PACKET), vio_m0
# (ringcount, mode 0: the shared hook), vio_xdp (ringcount, mode 2:
# libringcap attaches ringcap's XDP program, the kfunc's copy where the
# module has BTF), vio_redir (the same on the redirect path,
# RINGCAP_XDP=redirect), vio_m1 (ringcount, mode 1: the copy, and the
# stack gets every frame too), vio_rc_m2 (tcpdump through
# libpcap-ring, mode 2), vio_xdpdump (xdp-tools' xdpdump, the XDP
# user's tcpdump), vio_afxdp (dpdk-testpmd rx-only on AF_XDP: it polls
# a CPU, so it is in the share table only, not the cost part), vio_drop
# (xdp-bench drop: native XDP_DROP), and in the cost part vio_pass
# (xdp-bench pass: an XDP program that passes every frame, no capture:
# what the stack costs with XDP on virtio_net, which mode 1 pays too).
# On a veth pair inside the guest (figure "veth", no NIC model; the peer
# sends through a ringcap transmit ring on VETH_CPU): veth_af, veth_xdp,
# veth_afxdp and veth_drop, as their vio_ namesakes.
# Three readers (figure "multi", 64 B; vio_ on virtio-net, e1k_ on the
# 82574L): _af (tcpdumps on AF_PACKET, each a copy), _m0td (tcpdumps
# through libpcap-ring in mode 0, each a copy; also with one reader),
# _cluster (three tcpdumps through libpcap-ring in mode 2 with
# RINGCAP_CLUSTER=1:flow: they share the frames), _rccl (the same with
# three ringcounts -C 1:flow: the cluster without libpcap-ring and
# tcpdump), _fanout (three netsniff-ng in AF_PACKET fanout group 1, hash:
# they share the frames). e1k_ uses the stock e1000e except for
# e1k_cluster and e1k_rccl (ringcap_e1000e).
# Zero-copy (figure "zerocopy", the 82574L, 64 flows that RSS spreads over
# its two RX queues; 64, 512 and 1500 B, quick 64 and 1500 B): zc_zc (two
# `ringcount -z` on ringcap_e1000e, process i on queue i: each reads its
# queue's frames in the NIC's own buffers), zc_copy (the same two
# ringcounts, queue i each, in copy mode: ringcap_e1000e in mode 2),
# zc_af (the stock e1000e, one netsniff-ng without fanout walking one
# TPACKET_V3 ring for all queues: AF_PACKET cannot bind to one queue).
# The cost part adds zc_zc4k and zc_zc256: zc_zc (1024 buffers a queue,
# the default) with 4096, a copy ring's 8 MiB, and with 256, the default
# before (see rce_ring()). Compare their total share, captured_sum / offered (the CSV's share
# column is per process, as for the cluster and fanout rows).
# Transmit (figure "tx", the 82574L, FRAMES frames of 64 B, full matrix
# also 1500 B, as fast as the sender goes, the host counting what
# arrives): tx_ceiling (the kernel's pktgen on ringcap_e1000e, one skb
# cloned, a doorbell per burst of 64: what the emulated NIC takes with no
# user space), tx_ring (rcgen --tx-ring: ringcap's TX ring, straight into
# ringcap_e1000e's descriptors), tx_trafgen (netsniff-ng's trafgen:
# AF_PACKET TX_RING with its default qdisc bypass), tx_sendmmsg
# (bench-sendmmsg: AF_PACKET SOCK_RAW, sendmmsg() of 64 frames, through
# the qdisc), all on ringcap_e1000e, and tx_trafgen_stock (trafgen on the
# stock e1000e). OUT-tx.csv (tx_run says what each column is).
# Cost (part "cost", alone, in a 1-vCPU guest booted with --icount: one
# virtual ns is one instruction): the one-reader set-ups of the 82574L
# and of virtio-net, and the zero-copy trio, offered COST_FRAMES frames at
# COST_RATE a second, below every set-up's loss point, COST_REPS times,
# set-ups interleaved; rows in OUT-cost.csv, guest instructions per frame
# the NIC received, split as scripts/cost.sh says. NAPI runs threaded
# there, so that a stock driver's receive work is a thread of its own.
#
# The rest is in scripts/bench-guest/, sourced in this order (each file
# says what it holds and what it expects):
#   config.sh    the matrices, the parts chosen, the checks, cleanup
#   measure.sh   poll-family syscalls, CPU time, capture sockets
#   apps.sh      the capture processes: start, ready, stop, counts
#   setups.sh    a set-up (driver, mode, library); the virtio-net NIC;
#                the veth pair
#   run.sh       one measured run and its row; a figure's runs; cost rows
#   tx.sh        the transmit figure
#   sim.sh       the sim micro-benchmark
#   explain.sh   where the time goes: the profiled runs
#   matrix.sh    runs the chosen parts, checks the rows against the plan
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/scripts/guest-nic.sh"
. "$top/scripts/cost.sh"

matrix=${1:?full or quick}
csv=${2:?output CSV}

. "$top/scripts/bench-guest/config.sh"
. "$top/scripts/bench-guest/measure.sh"
. "$top/scripts/bench-guest/apps.sh"
. "$top/scripts/bench-guest/setups.sh"
. "$top/scripts/bench-guest/run.sh"
. "$top/scripts/bench-guest/tx.sh"
. "$top/scripts/bench-guest/sim.sh"
. "$top/scripts/bench-guest/explain.sh"
. "$top/scripts/bench-guest/matrix.sh"
