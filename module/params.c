// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters. Each one is range-checked when set, at load time and
 * through /sys/module/ringcap/parameters/, and a bad value is refused with
 * a log line that names the parameter and its valid range.
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/socket.h>
#include "ringcap.h"

static unsigned int transparent_mode;
unsigned int ringcap_family_nr = RINGCAP_FAMILY_DEFAULT;
unsigned int ringcap_default_ring_size = 1 << 20;
unsigned int ringcap_max_ring_mem = 64 << 20;
unsigned int ringcap_default_watermark = 64;
unsigned int ringcap_default_timeout_us = 1000;
unsigned int ringcap_max_persist = 4;
unsigned int ringcap_persist_timeout = 300;
unsigned int ringcap_cutoff_flows = 4096;
unsigned int ringcap_cutoff_idle = 60;

/**
 * ringcap_mode - the transparent mode now
 *
 * Return: the mode, which a write to transparent_mode may change at any
 * time.
 */
enum ringcap_mode ringcap_mode(void)
{
	return READ_ONCE(transparent_mode);
}

/*
 * Who follows a change of the mode at once: the XDP path, whose maps say
 * whether to redirect (xdp.c). Every source of frames reads the mode from
 * here, so params.c calls none of them; the one that must follow asks.
 */
static void (*ringcap_mode_follower)(void);

/**
 * ringcap_mode_follow - be called whenever the mode is set
 * @changed: called under the parameter lock after each write, or NULL
 */
void ringcap_mode_follow(void (*changed)(void))
{
	WRITE_ONCE(ringcap_mode_follower, changed);
}

static int ringcap_param_set(const char *val, const struct kernel_param *kp,
			     unsigned int min, unsigned int max, bool pow2)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < min || v > max ||
	    (pow2 && !is_power_of_2(v))) {
		/* Writes through sysfs end in a newline: not part of it. */
		pr_err("%s=%.*s is invalid: expected %s%u..%u\n",
		       kp->name, (int)strcspn(val, "\n"), val,
		       pow2 ? "a power of two in " : "", min, max);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static int set_mode(const char *val, const struct kernel_param *kp)
{
	int err = ringcap_param_set(val, kp, RINGCAP_MODE_HOOK,
				    RINGCAP_MODE_STEAL, false);
	void (*changed)(void) = READ_ONCE(ringcap_mode_follower);

	if (!err && changed)
		changed();
	return err;
}

static int set_family(const char *val, const struct kernel_param *kp)
{
	return ringcap_param_set(val, kp, 1, AF_MAX - 1, false);
}

static int set_ring_size(const char *val, const struct kernel_param *kp)
{
	return ringcap_param_set(val, kp, RINGCAP_RING_SIZE_FLOOR,
				 READ_ONCE(ringcap_max_ring_mem), true);
}

static int set_max_ring_mem(const char *val, const struct kernel_param *kp)
{
	return ringcap_param_set(val, kp, RINGCAP_RING_SIZE_FLOOR,
				 RINGCAP_RING_SIZE_MAX, true);
}

static int set_watermark(const char *val, const struct kernel_param *kp)
{
	return ringcap_param_set(val, kp, 1, RINGCAP_WATERMARK_MAX, false);
}

static int set_timeout(const char *val, const struct kernel_param *kp)
{
	return ringcap_param_set(val, kp, 0, RINGCAP_TIMEOUT_US_MAX, false);
}

static int set_max_persist(const char *val, const struct kernel_param *kp)
{
	return ringcap_param_set(val, kp, 0, 1024, false);
}

static int set_persist_timeout(const char *val, const struct kernel_param *kp)
{
	return ringcap_param_set(val, kp, 1, 86400, false);
}

/* Each flow costs its socket about 100 bytes (cutoff.c). */
static int set_cutoff_flows(const char *val, const struct kernel_param *kp)
{
	return ringcap_param_set(val, kp, 16, 1 << 20, false);
}

static int set_cutoff_idle(const char *val, const struct kernel_param *kp)
{
	return ringcap_param_set(val, kp, 1, 86400, false);
}

#define RINGCAP_PARAM_OPS(name, setter)				\
	static const struct kernel_param_ops name = {		\
		.set = setter,					\
		.get = param_get_uint,				\
	}

RINGCAP_PARAM_OPS(mode_ops, set_mode);
RINGCAP_PARAM_OPS(family_ops, set_family);
RINGCAP_PARAM_OPS(ring_size_ops, set_ring_size);
RINGCAP_PARAM_OPS(max_ring_mem_ops, set_max_ring_mem);
RINGCAP_PARAM_OPS(watermark_ops, set_watermark);
RINGCAP_PARAM_OPS(timeout_ops, set_timeout);
RINGCAP_PARAM_OPS(max_persist_ops, set_max_persist);
RINGCAP_PARAM_OPS(persist_timeout_ops, set_persist_timeout);
RINGCAP_PARAM_OPS(cutoff_flows_ops, set_cutoff_flows);
RINGCAP_PARAM_OPS(cutoff_idle_ops, set_cutoff_idle);

module_param_cb(transparent_mode, &mode_ops, &transparent_mode, 0644);
MODULE_PARM_DESC(transparent_mode,
		 "0: capture via the standard path; 1: aware drivers copy to rings and the stack; 2: aware drivers copy to rings only (default 0)");
module_param_cb(family, &family_ops, &ringcap_family_nr, 0444);
MODULE_PARM_DESC(family, "socket address family number (default 25)");
module_param_cb(ring_size, &ring_size_ops, &ringcap_default_ring_size, 0644);
MODULE_PARM_DESC(ring_size, "default ring data bytes per socket, a power of two (default 1 MiB)");
module_param_cb(max_ring_mem, &max_ring_mem_ops, &ringcap_max_ring_mem, 0644);
MODULE_PARM_DESC(max_ring_mem, "largest ring data bytes a socket may ask for (default 64 MiB)");
module_param_cb(watermark, &watermark_ops, &ringcap_default_watermark, 0644);
MODULE_PARM_DESC(watermark, "default N: wake the reader after N frames (default 64; 1 = immediate)");
module_param_cb(timeout_us, &timeout_ops, &ringcap_default_timeout_us, 0644);
MODULE_PARM_DESC(timeout_us, "default m: wake the reader m microseconds after the first unsignalled frame (default 1000; 0 = never)");
module_param_cb(max_persist, &max_persist_ops, &ringcap_max_persist, 0644);
MODULE_PARM_DESC(max_persist, "persistent rings each user may hold, 0..1024 (default 4)");
module_param_cb(persist_timeout, &persist_timeout_ops, &ringcap_persist_timeout, 0644);
MODULE_PARM_DESC(persist_timeout, "seconds an unclaimed persistent ring is kept, 1..86400 (default 300)");
module_param_cb(cutoff_flows, &cutoff_flows_ops, &ringcap_cutoff_flows, 0644);
MODULE_PARM_DESC(cutoff_flows, "flows a socket with RINGCAP_FLOW_CUTOFF tracks, 16..1048576 (default 4096)");
module_param_cb(cutoff_idle, &cutoff_idle_ops, &ringcap_cutoff_idle, 0644);
MODULE_PARM_DESC(cutoff_idle, "seconds after which a quiet flow starts afresh, 1..86400 (default 60)");
