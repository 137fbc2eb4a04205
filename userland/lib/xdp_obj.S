/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The XDP program's ELF object, built by clang from bpf/ringcap_xdp.bpf.c,
 * as read-only data of the library (the Makefile passes its path).
 */
	.section .rodata
	.balign 8
	.globl rc_xdp_obj
	.hidden rc_xdp_obj
rc_xdp_obj:
	.incbin RC_XDP_OBJ
	.globl rc_xdp_obj_end
	.hidden rc_xdp_obj_end
rc_xdp_obj_end:

	.section .note.GNU-stack, "", @progbits
