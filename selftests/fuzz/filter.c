// SPDX-License-Identifier: GPL-2.0
/*
 * rcfuzz: classic BPF filters on ringcap sockets. Random programs that are
 * mostly well formed (forward jumps inside the program, a return at the
 * end) so that the kernel's checker lets many through and they run on real
 * frames in every transparent mode, with a bias to the ancillary loads
 * (payload offset, netlink attributes, VLAN, hash...) that look at more
 * than the frame bytes; and garbage: random instructions, empty and
 * oversized programs, bad pointers. SO_LOCK_FILTER and SO_GET_FILTER too.
 *
 * Errnos: the socket core's (sk_attach_filter, sk_detach_filter): EINVAL
 * for a program the checker refuses or a bad length, EFAULT for a bad
 * pointer, ENOMEM, EPERM once locked, ENOENT when detaching nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/filter.h>
#include "fuzz.h"

#define MAX_PROG	64

static const uint32_t anc[] = {
	SKF_AD_PROTOCOL, SKF_AD_PKTTYPE, SKF_AD_IFINDEX, SKF_AD_NLATTR,
	SKF_AD_NLATTR_NEST, SKF_AD_MARK, SKF_AD_QUEUE, SKF_AD_HATYPE,
	SKF_AD_RXHASH, SKF_AD_CPU, SKF_AD_ALU_XOR_X, SKF_AD_VLAN_TAG,
	SKF_AD_VLAN_TAG_PRESENT, SKF_AD_PAY_OFFSET, SKF_AD_RANDOM,
	SKF_AD_VLAN_TPID,
};

static uint32_t load_k(struct fz_worker *w)
{
	switch (fz_rnd(w, 8)) {
	case 0: case 1:
		return SKF_AD_OFF + anc[fz_rnd(w, 16)];
	case 2:
		return SKF_AD_OFF + SKF_AD_PAY_OFFSET;
	case 3:
		return SKF_NET_OFF + fz_rnd(w, 64);
	case 4:
		return SKF_LL_OFF + fz_rnd(w, 32);
	case 5:
		return fz_rnd(w, 2000);
	case 6:
		return fz_rand(&w->rng);
	default:
		return fz_rnd(w, 64);
	}
}

static struct sock_filter insn(struct fz_worker *w, int i, int n)
{
	static const uint16_t sizes[] = { BPF_W, BPF_H, BPF_B };
	static const uint16_t alu[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV,
		BPF_OR, BPF_AND, BPF_LSH, BPF_RSH, BPF_NEG, BPF_MOD, BPF_XOR };
	static const uint16_t jmp[] = { BPF_JA, BPF_JEQ, BPF_JGT, BPF_JGE,
					BPF_JSET };
	int left = n - i - 2;	/* instructions a jump may skip */
	uint16_t op;

	switch (fz_rnd(w, 12)) {
	case 0: case 1: case 2:
		op = BPF_LD | sizes[fz_rnd(w, 3)] | BPF_ABS;
		if (fz_chance(w, 40))
			op = BPF_LD | BPF_W | BPF_ABS;
		return (struct sock_filter)BPF_STMT(op, load_k(w));
	case 3:
		return (struct sock_filter)BPF_STMT(BPF_LD | sizes[fz_rnd(w, 3)] |
						    BPF_IND, fz_rnd(w, 100));
	case 4:
		return (struct sock_filter)BPF_STMT(BPF_LDX | BPF_B | BPF_MSH,
						    fz_rnd(w, 64));
	case 5:
		return (struct sock_filter)BPF_STMT(fz_chance(w, 50) ?
			BPF_LD | BPF_IMM : BPF_LDX | BPF_IMM, fz_rand(&w->rng));
	case 6:
		return (struct sock_filter)BPF_STMT(fz_chance(w, 50) ?
			BPF_LD | BPF_W | BPF_LEN : BPF_LDX | BPF_W | BPF_LEN, 0);
	case 7:
		op = fz_rnd(w, 3);
		op = op == 0 ? BPF_ST : op == 1 ? BPF_STX :
		     fz_chance(w, 50) ? BPF_LD | BPF_MEM : BPF_LDX | BPF_MEM;
		return (struct sock_filter)BPF_STMT(op, fz_rnd(w, 17));
	case 8: case 9:
		op = BPF_ALU | alu[fz_rnd(w, 11)] |
		     (fz_chance(w, 30) ? BPF_X : BPF_K);
		return (struct sock_filter)BPF_STMT(op, fz_chance(w, 80) ?
			fz_rnd(w, 40) : fz_rand(&w->rng));
	case 10:
		if (left <= 0)
			break;
		op = BPF_JMP | jmp[fz_rnd(w, 5)] |
		     (fz_chance(w, 20) ? BPF_X : BPF_K);
		return (struct sock_filter)BPF_JUMP(op, fz_rnd(w, 256),
						    fz_rnd(w, left + 1),
						    fz_rnd(w, left + 1));
	default:
		return (struct sock_filter)BPF_STMT(BPF_MISC | (fz_chance(w, 50) ?
						    BPF_TAX : BPF_TXA), 0);
	}
	return (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, fz_rand(&w->rng));
}

/* A random program; *valid says it is a plain "ret #k" the kernel must take. */
static int gen_prog(struct fz_worker *w, struct sock_filter *p, bool *valid)
{
	int n, i;

	*valid = false;
	if (fz_chance(w, 15)) {
		/* accept all, none or a few bytes */
		static const uint32_t k[] = { 0, 0xffffffff, 1, 14, 60, 65535 };

		p[0] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						    k[fz_rnd(w, 6)]);
		*valid = true;
		return 1;
	}
	n = 2 + fz_rnd(w, MAX_PROG - 1);
	if (fz_chance(w, 10)) {
		for (i = 0; i < n; i++) {
			uint64_t r = fz_rand(&w->rng);

			memcpy(&p[i], &r, sizeof(p[i]));
		}
		return n;
	}
	for (i = 0; i < n - 1; i++)
		p[i] = insn(w, i, n);
	p[n - 1] = (struct sock_filter)BPF_STMT(BPF_RET |
		(fz_chance(w, 50) ? BPF_A : BPF_K),
		fz_chance(w, 50) ? 0xffff : fz_rnd(w, 200));
	return n;
}

void fz_op_filter_attach(struct fz_worker *w)
{
	static struct sock_filter prog[BPF_MAXINSNS + 2];
	struct fz_sock *s = fz_pick_sock(w);
	struct sock_fprog fp = { 0, prog };
	bool valid;
	int err, len = sizeof(fp), r;

	if (!s)
		return;
	fp.len = gen_prog(w, prog, &valid);
	r = fz_rnd(w, 100);
	if (r < 3) {
		fp.len = 0;
	} else if (r < 5) {
		fp.len = BPF_MAXINSNS + 1;
		memset(prog, 0, sizeof(prog));
	} else if (r < 7) {
		fp.filter = fz_chance(w, 50) ? NULL : (void *)8;
	} else if (r < 9) {
		len = fz_rnd(w, sizeof(fp));
	}
	err = setsockopt(s->fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, len) ?
	      errno : 0;
	/* The core checks: optlen, the lock, the program's basics, the
	 * copy, then the checker.
	 */
	if (len != (int)sizeof(fp))
		FZ_EXPECT(OP_FILTER_ATTACH, err, ("attach(optlen %d)", len), EINVAL);
	else if (s->locked && !s->shared)
		FZ_EXPECT(OP_FILTER_ATTACH, err, ("attach when locked"), EPERM);
	else if (!fp.filter || !fp.len || fp.len > BPF_MAXINSNS)
		FZ_EXPECT(OP_FILTER_ATTACH, err, ("attach(%d insns at %p)", fp.len, (void *)fp.filter),
			  EINVAL, EPERM);
	else if (fp.filter != prog)
		FZ_EXPECT(OP_FILTER_ATTACH, err, ("attach(bad pointer)"), EFAULT,
			  EPERM);
	else if (valid)
		FZ_EXPECT(OP_FILTER_ATTACH, err, ("attach(ret #k)"), 0, ENOMEM,
			  EPERM);
	else
		FZ_EXPECT(OP_FILTER_ATTACH, err, ("attach(%d insns)", fp.len), 0, EINVAL,
			  ENOMEM, EPERM);
	if (!err) {
		s->filter = 1;
		s->filter_len = fp.len;
	}
}

void fz_op_filter_detach(struct fz_worker *w)
{
	struct fz_sock *s = fz_pick_sock(w);
	int err, v = 0;

	if (!s)
		return;
	err = setsockopt(s->fd, SOL_SOCKET, SO_DETACH_FILTER, &v, sizeof(v)) ?
	      errno : 0;
	if (s->shared)
		FZ_EXPECT(OP_FILTER_DETACH, err, ("detach"), 0, ENOENT, EPERM);
	else if (s->locked)
		FZ_EXPECT(OP_FILTER_DETACH, err, ("detach when locked"), EPERM);
	else if (s->filter)
		FZ_EXPECT(OP_FILTER_DETACH, err, ("detach"), 0);
	else
		FZ_EXPECT(OP_FILTER_DETACH, err, ("detach of nothing"), ENOENT);
	if (!err)
		s->filter = 0;
}

/* SO_LOCK_FILTER now and then, SO_GET_FILTER, SO_ATTACH_BPF with no fd. */
void fz_op_filter_other(struct fz_worker *w)
{
	struct fz_sock *s = fz_pick_sock(w);
	socklen_t len = 0;
	int err, v;

	if (!s)
		return;
	switch (fz_rnd(w, 10)) {
	case 0:
		v = fz_chance(w, 30);
		err = setsockopt(s->fd, SOL_SOCKET, SO_LOCK_FILTER, &v,
				 sizeof(v)) ? errno : 0;
		if (s->locked && !v && !s->shared)
			FZ_EXPECT(OP_FILTER_OTHER, err, ("unlock"), EPERM);
		else
			FZ_EXPECT(OP_FILTER_OTHER, err, ("SO_LOCK_FILTER %d", v), 0,
				  EPERM);
		if (!err && v)
			s->locked = true;
		break;
	case 1: case 2:
		v = fz_chance(w, 50) ? -1 : (int)fz_rnd(w, 64);
		err = setsockopt(s->fd, SOL_SOCKET, SO_ATTACH_BPF, &v,
				 sizeof(v)) ? errno : 0;
		FZ_EXPECT(OP_FILTER_OTHER, err, ("SO_ATTACH_BPF(fd %d)", v), EBADF,
			  EINVAL, EPERM);
		break;
	default:
		/* optlen 0 asks for the number of instructions */
		err = getsockopt(s->fd, SOL_SOCKET, SO_GET_FILTER, NULL,
				 &len) ? errno : 0;
		FZ_EXPECT(OP_FILTER_OTHER, err, ("SO_GET_FILTER"), 0);
		if (!err && !s->shared)
			fz_check(len == (s->filter ? s->filter_len : 0),
				 "SO_GET_FILTER says %u instructions, attached %u",
				 len, s->filter ? s->filter_len : 0);
	}
}
