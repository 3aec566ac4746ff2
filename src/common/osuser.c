/* osuser.c - see osuser.h. */
#include "common/osuser.h"

#include <pwd.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/xalloc.h"

char *os_user_name(void)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	uid_t uid = geteuid();
	if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res && res->pw_name && *res->pw_name)
		return xstrdup(res->pw_name);
	return xasprintf("uid:%u", (unsigned)uid);
}
