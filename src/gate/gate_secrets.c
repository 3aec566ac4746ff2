/* gate_secrets.c - the gate's secret patterns. See gate_secrets.h. */
#include "gate/gate_secrets.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

int gate_secret_header(const char *h)
{
	static const char *const names[] = {"authorization",
					    "proxy-authorization",
					    "x-api-key",
					    "api-key",
					    "x-auth-token",
					    "x-token",
					    "token",
					    "cookie",
					    "x-csrf-token",
					    "private-token",
					    "x-goog-api-key",
					    "x-amz-security-token",
					    NULL};
	size_t n = strcspn(h, ":;");
	while (n && isspace((unsigned char)h[n - 1]))
		n--;
	for (int i = 0; names[i]; i++)
		if (strlen(names[i]) == n && !strncasecmp(h, names[i], n))
			return 1;
	return 0;
}

int gate_secret_text(const char *s)
{
	static const char *const words[] = {"secret", "credential",  ".env",	  "id_rsa",  "id_ed25519",
					    ".pem",   "private_key", "password=", "passwd=", NULL};
	for (int i = 0; words[i]; i++)
		if (strcasestr(s, words[i]))
			return 1;
	return 0;
}
