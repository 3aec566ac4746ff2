/* embedded.h - data files compiled into the binary (themes, keymaps, SQL schema).
 * The table is generated at build time by cmake/embed_gen.cmake. */
#ifndef BELAY_COMMON_EMBEDDED_H
#define BELAY_COMMON_EMBEDDED_H
#include <stddef.h>

struct embedded_file {
	const char *name; /* "themes/dark.theme", "store/schema.sql", ... */
	const char *data; /* NUL-terminated; borrowed, static */
	size_t len;
};

extern const struct embedded_file embedded_files[];

/* Returns the embedded file called `name`, or NULL. */
const struct embedded_file *embedded_find(const char *name);

#endif
