/* err.c - filling and wrapping `struct err`. */
#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct err *e, int code, const char *fmt, ...)
{
	if (!e)
		return code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	e->code = code;
	return code;
}

int err_wrap(struct err *e, const char *fmt, ...)
{
	if (!e)
		return -1;
	char prefix[256], old[sizeof e->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof old);
	size_t pl = strlen(prefix);
	if (pl > sizeof e->msg - 3)
		pl = sizeof e->msg - 3;
	memcpy(e->msg, prefix, pl);
	memcpy(e->msg + pl, ": ", 2);
	size_t room = sizeof e->msg - pl - 3;
	size_t ol = strnlen(old, room);
	memcpy(e->msg + pl + 2, old, ol);
	e->msg[pl + 2 + ol] = '\0';
	return e->code;
}
