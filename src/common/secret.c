/* secret.c - credential-looking names and values. See secret.h. */
#include "common/secret.h"

#include <string.h>

int secret_name_like(const char *name)
{
	static const char *const words[] = {"TOKEN",	  "SECRET", "PASSWORD", "PASSWD",  "PASS", "KEY",
					    "CREDENTIAL", "AUTH",   "COOKIE",	"SESSION", NULL};
	for (int i = 0; words[i]; i++)
		if (strcasestr(name, words[i]))
			return 1;
	return 0;
}

static int starts(const char *v, size_t len, const char *p)
{
	size_t n = strlen(p);
	return len >= n && memcmp(v, p, n) == 0;
}

int secret_value_like(const char *v, size_t len)
{
	static const char *const prefixes[] = {"sk-",  "ghp_",	"gho_",	 "ghu_", "ghs_", "ghr_", "github_pat_",
					       "xoxa-", "xoxb-", "xoxp-", "xoxs-", "AKIA", "ASIA", "AIza",
					       "glpat-", "npm_", "eyJ",	 NULL};
	for (int i = 0; prefixes[i]; i++)
		if (starts(v, len, prefixes[i]) && len >= strlen(prefixes[i]) + 12)
			return 1;
	if (memmem(v, len, "-----BEGIN", 10))
		return 1;
	/* scheme://user:password@host */
	const char *sep = memmem(v, len, "://", 3);
	if (sep) {
		const char *auth = sep + 3, *end = v + len;
		const char *at = memchr(auth, '@', (size_t)(end - auth));
		const char *slash = memchr(auth, '/', (size_t)(end - auth));
		if (at && (!slash || at < slash) && memchr(auth, ':', (size_t)(at - auth)))
			return 1;
	}
	return 0;
}
