/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The XDP programs' ELF objects, built by clang from bpf/ringcap_xdp.bpf.c
 * (redirect) and bpf/ringcap_xdp_copy.bpf.c (copy), as read-only data of
 * the library (the Makefile passes their paths).
 */
	.macro rc_obj name, path
	.section .rodata
	.balign 8
	.globl \name
	.hidden \name
\name:
	.incbin "\path"
	.globl \name\()_end
	.hidden \name\()_end
\name\()_end:
	.endm

	rc_obj rc_xdp_obj, RC_XDP_OBJ
	rc_obj rc_xdp_copy_obj, RC_XDP_COPY_OBJ

	.section .note.GNU-stack, "", @progbits
