// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for the bench's cost guest (scripts/cost.sh): it
 * counts the guest instructions executed in user space and in the kernel,
 * and writes both counters to a file whenever the guest executes the mark
 * (scripts/insn-mark.c). Under -icount the guest's clock already gives
 * every task's exact instruction count; what it cannot give is how a
 * task's count splits into kernel and user, which the scheduler only
 * samples, once a tick (4M instructions). This plugin makes that split
 * exact for the one-vCPU guest: user instructions are those at addresses
 * of the lower canonical half.
 *
 * Built against include/qemu/qemu-plugin.h of Debian's qemu source (the
 * bench fetches it with scripts/get-source.sh). Counting is per
 * translation block, added when the block starts: a block left early by a
 * fault counts whole, an error of a few instructions per fault.
 *
 *   -plugin insn-split.so,out=FILE
 *   each mark appends "mark SEQ user N kernel N" to FILE, flushed
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/*
 * The mark: nopl 0x4b524343(%rax), a 7-byte NOP whose displacement spells
 * "CCRK". No compiler emits a NOP with that displacement.
 */
static const uint8_t mark[] = { 0x0f, 0x1f, 0x80, 0x43, 0x43, 0x52, 0x4b };

/* One vCPU, single-threaded TCG (the cost guest): plain counters do. */
static uint64_t user_insns, kernel_insns, marks;
static FILE *out;

static void on_mark(unsigned int vcpu, void *udata)
{
	fprintf(out, "mark %llu user %llu kernel %llu\n",
		(unsigned long long)++marks, (unsigned long long)user_insns,
		(unsigned long long)kernel_insns);
	fflush(out);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	/* x86-64: the kernel lives in the upper half, user space below. */
	int user = !(qemu_plugin_tb_vaddr(tb) >> 63);

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 user ? &user_insns : &kernel_insns, n);
	if (!user)
		return;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(mark) &&
		    !memcmp(qemu_plugin_insn_data(insn), mark, sizeof(mark)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void on_exit(qemu_plugin_id_t id, void *udata)
{
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	if (!path || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insn-split: needs out=FILE and an x86_64 guest\n");
		return -1;
	}
	if (info->system.smp_vcpus != 1) {
		fprintf(stderr, "insn-split: one vCPU only (its counters are not per vCPU)\n");
		return -1;
	}
	out = fopen(path, "a");
	if (!out) {
		perror(path);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit, NULL);
	return 0;
}
