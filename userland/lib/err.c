// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The error reporting every call uses: errno plus a message kept in the
 * handle, so a caller can say what went wrong in the words of the layer
 * that knew.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include "internal.h"

int rc_fail(struct ringcap *rc, int err, const char *fmt, ...)
{
	va_list ap;

	if (rc) {
		va_start(ap, fmt);
		vsnprintf(rc->errmsg, sizeof(rc->errmsg), fmt, ap);
		va_end(ap);
	}
	errno = err;
	return -1;
}

const char *rcap_errmsg(const struct ringcap *rc)
{
	if (!rc)
		return "no ringcap handle";
	return rc->errmsg[0] ? rc->errmsg : "no error";
}

/* The names before libringcap 1.2 (libringcap.h). */
RC_OLD_NAME(errmsg);
