/* role.c - the names of screen roles (roles.def), for theme files and golden dumps.
 * Must not: know colours or curses; this is only the name table. Threads: any (static). */
#include "tui/role.h"

#include <string.h>

static const char *const role_names[ROLE_COUNT] = {
#define ROLE(id, name) [id] = name,
#include "tui/roles.def"
#undef ROLE
};

const char *role_name(enum role r)
{
	if ((int)r < 0 || r >= ROLE_COUNT)
		return "?";
	return role_names[r];
}

int role_by_name(const char *name)
{
	if (!name)
		return -1;
	for (int r = 0; r < ROLE_COUNT; r++)
		if (strcmp(role_names[r], name) == 0)
			return r;
	return -1;
}
