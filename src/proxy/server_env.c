/* server_env.c - the recorded server environment. See server_env.h. */
#include "proxy/server_env.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/secret.h"
#include "common/xalloc.h"

cJSON *server_env_record(char *const *env)
{
	cJSON *a = cJSON_CreateArray();
	for (char *const *e = env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t nlen = eq ? (size_t)(eq - *e) : strlen(*e);
		const char *val = eq ? eq + 1 : "";
		size_t vlen = strlen(val);
		char *name = xstrndup(*e, nlen);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "name", jx_bytes(name, nlen));
		const char *why = secret_name_like(name) ? "secret-name" : secret_value_like(val, vlen) ? "secret-value" : NULL;
		if (why) {
			uint8_t d[SHA256_LEN];
			char hex[SHA256_HEX_LEN + 1];
			sha256(val, vlen, d);
			hex_encode(d, SHA256_LEN, hex);
			cJSON_AddStringToObject(o, "sha256", hex);
			cJSON_AddStringToObject(o, "withheld", why);
		} else {
			cJSON_AddItemToObject(o, "value", jx_bytes(val, vlen));
		}
		free(name);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* The value of name in host (borrowed), or NULL. */
static const char *host_value(char *const *host, const char *name, size_t nlen)
{
	for (char *const *e = host; e && *e; e++)
		if (!strncmp(*e, name, nlen) && (*e)[nlen] == '=')
			return *e + nlen + 1;
	return NULL;
}

void server_env_free(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

int server_env_replay(const cJSON *record, char *const *host, char ***out, char **missing)
{
	*out = NULL;
	*missing = NULL;
	if (!cJSON_IsArray(record))
		return BELAY_EINVAL;
	size_t n = (size_t)cJSON_GetArraySize(record), k = 0;
	char **env = xcalloc(n + 1, sizeof *env);
	struct buf miss = {0};
	for (const cJSON *o = record->child; o; o = o->next) {
		struct buf name = {0}, val = {0};
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "value");
		const char *hash = jx_str(o, "sha256");
		int bad = jx_bytes_decode(cJSON_GetObjectItemCaseSensitive(o, "name"), &name) != 0 || !name.len ||
			  memchr(name.p, '=', name.len) || memchr(name.p, '\0', name.len) ||
			  (v ? jx_bytes_decode(v, &val) != 0 || memchr(val.p ? val.p : "", '\0', val.len) : !hash);
		if (bad) {
			buf_free(&name);
			buf_free(&val);
			buf_free(&miss);
			env[k] = NULL;
			server_env_free(env);
			return BELAY_EINVAL;
		}
		if (!v) {
			const char *hv = host_value(host, name.p, name.len);
			char hex[SHA256_HEX_LEN + 1] = "";
			if (hv) {
				uint8_t d[SHA256_LEN];
				sha256(hv, strlen(hv), d);
				hex_encode(d, SHA256_LEN, hex);
			}
			if (!hv || strcmp(hex, hash)) {
				buf_printf(&miss, "%s%.*s", miss.len ? "," : "", (int)name.len, name.p);
				buf_free(&name);
				continue;
			}
			buf_puts(&val, hv);
		}
		env[k++] = xasprintf("%.*s=%.*s", (int)name.len, name.p, (int)val.len, val.p ? val.p : "");
		buf_free(&name);
		buf_free(&val);
	}
	env[k] = NULL;
	*out = env;
	*missing = miss.len ? buf_take(&miss) : NULL;
	buf_free(&miss);
	return 0;
}
