/* role.h - screen roles (see roles.def) and their names. */
#ifndef BELAY_TUI_ROLE_H
#define BELAY_TUI_ROLE_H

enum role {
#define ROLE(id, name) id,
#include "tui/roles.def"
#undef ROLE
	ROLE_COUNT
};

/* "verdict.fail" for ROLE_V_FAIL. */
const char *role_name(enum role r);
/* The role called `name`, or -1. */
int role_by_name(const char *name);

#endif
