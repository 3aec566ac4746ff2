/* hook_tamper.c - the protected set checked after every call. See hook_tamper.h. */
#include "hook/hook_tamper.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "hook/hook_cfgkeys.h"

#define CONTENT_MAX ((size_t)4 << 20) /* a configuration larger than this is hashed as unreadable */
#define RECORD_FORMAT 2 /* 2: configurations by their hook keys, numbers as decimal strings */

static char *file_of(const char *state_dir, const char *key, const char *ext)
{
	uint8_t h[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1];
	sha256(key, strlen(key), h);
	hex_encode(h, 8, hex);
	hex[16] = '\0';
	return xasprintf("%s/protect/%s.%s", state_dir, hex, ext);
}

/* A number of struct stat, exactly: as a decimal string, since a double (cJSON's number)
 * holds integers only up to 2^53 and cJSON prints 15 digits when they read back "close
 * enough" (an mtime in nanoseconds, some inode and device numbers are larger). */
static void add_u64(cJSON *o, const char *k, unsigned long long v)
{
	char s[24];
	snprintf(s, sizeof s, "%llu", v);
	cJSON_AddStringToObject(o, k, s);
}

/* The digest of what decides the hooks in a configuration (hook_cfgkeys.h): of its
 * content when it can be read (through a symbolic link too), of nothing when it is absent. */
static void observe_config(cJSON *o, const char *path, const struct stat *st)
{
	char h[72];
	const char *what;
	if (!st) {
		what = hook_cfgkeys_digest(path, NULL, 0, h);
	} else {
		struct buf b = {0};
		struct err e = {0};
		struct stat tgt;
		if (stat(path, &tgt) != 0 || !S_ISREG(tgt.st_mode)) {
			snprintf(h, sizeof h, "not a regular file");
			what = "whole file";
		} else if (fs_read_file(path, CONTENT_MAX, &b, &e) == 0) {
			what = hook_cfgkeys_digest(path, b.p ? b.p : "", b.len, h);
		} else {
			snprintf(h, sizeof h, "unreadable");
			what = "whole file";
		}
		buf_free(&b);
	}
	cJSON_AddStringToObject(o, "hook_part", h);
	cJSON_AddStringToObject(o, "compared", what);
}

/* What a protected file is now. A configuration is compared by what decides its hooks (the
 * agent rewrites the rest, often by replacing the file); a program and the state directory
 * by identity. */
static cJSON *observe(const struct hook_protect_file *f)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", f->path);
	cJSON_AddStringToObject(o, "role", hook_protect_role_name(f->role));
	struct stat st;
	if (lstat(f->path, &st) != 0) {
		cJSON_AddBoolToObject(o, "exists", 0);
		if (f->role == HP_CONFIG)
			observe_config(o, f->path, NULL);
		return o;
	}
	cJSON_AddBoolToObject(o, "exists", 1);
	cJSON_AddBoolToObject(o, "symlink", S_ISLNK(st.st_mode));
	add_u64(o, "nlink", S_ISDIR(st.st_mode) ? 1 : (unsigned long long)st.st_nlink);
	if (f->role == HP_CONFIG) {
		observe_config(o, f->path, &st);
		return o;
	}
	add_u64(o, "dev", (unsigned long long)st.st_dev);
	add_u64(o, "ino", (unsigned long long)st.st_ino);
	if (f->role == HP_PROGRAM) {
		add_u64(o, "size", (unsigned long long)st.st_size);
		char m[48];
		snprintf(m, sizeof m, "%lld.%09ld", (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
		cJSON_AddStringToObject(o, "mtime", m);
	}
	return o;
}

static cJSON *observe_all(const struct hook_protect *p)
{
	cJSON *files = cJSON_CreateArray();
	for (size_t i = 0; i < p->n; i++)
		cJSON_AddItemToArray(files, observe(&p->v[i]));
	return files;
}

static int write_json(const char *path, const cJSON *j, struct err *e)
{
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	int rc = fs_mkdir_p(dir, 0700, e);
	free(dir);
	if (rc)
		return rc;
	char *s = jx_print(j);
	rc = fs_write_file_atomic(path, s, strlen(s), 0600, e);
	free(s);
	return rc;
}

static cJSON *read_json(const char *path)
{
	struct buf b = {0};
	struct err e = {0};
	cJSON *j = NULL;
	if (fs_read_file(path, 16u << 20, &b, &e) == 0)
		j = cJSON_ParseWithLength(b.p ? b.p : "", b.len);
	buf_free(&b);
	return j;
}

int hook_tamper_record(const struct hook_protect *p, const char *state_dir, const char *key, cJSON **recorded,
		       struct err *e)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "key", key);
	cJSON_AddNumberToObject(r, "format", RECORD_FORMAT);
	cJSON_AddItemToObject(r, "files", observe_all(p));
	char *path = file_of(state_dir, key, "json");
	int rc = write_json(path, r, e);
	free(path);
	if (recorded && rc == 0)
		*recorded = r;
	else
		cJSON_Delete(r);
	return rc;
}

void hook_tamper_forget(const char *state_dir, const char *key)
{
	char *a = file_of(state_dir, key, "json"), *b = file_of(state_dir, key, "tripped");
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

static void alert(cJSON **alerts, const char *path, const char *role, const char *what)
{
	if (!*alerts)
		*alerts = cJSON_CreateArray();
	cJSON *a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "path", path);
	cJSON_AddStringToObject(a, "role", role);
	cJSON_AddStringToObject(a, "what", what);
	cJSON_AddItemToArray(*alerts, a);
}

/* The same value of field k in both, or absent from both (a record of another shape, a
 * number where a string is kept, differs). */
static int same_field(const cJSON *a, const cJSON *b, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, k), *y = cJSON_GetObjectItemCaseSensitive(b, k);
	if (!x && !y)
		return 1;
	return cJSON_IsString(x) && cJSON_IsString(y) && !strcmp(x->valuestring, y->valuestring);
}

static void alert_links(cJSON **alerts, const char *p, const char *role, const cJSON *now)
{
	const char *ns = jx_str(now, "nlink");
	unsigned long long nl = ns ? strtoull(ns, NULL, 10) : 0;
	if (nl > 1) {
		char *w = xasprintf("has %llu links: a hard link to it elsewhere writes it", nl);
		alert(alerts, p, role, w);
		free(w);
	}
}

/* A configuration: its hook part, whether it is a symbolic link, its links. Created,
 * removed or replaced by the agent's own rewrite, it is an alert only when what decides
 * the hooks differs. */
static void compare_config(cJSON **alerts, const char *p, const char *role, const cJSON *was, const cJSON *now)
{
	int existed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(was, "exists"));
	int exists = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(now, "exists"));
	if (!same_field(was, now, "hook_part")) {
		const char *compared = jx_str(now, "compared");
		int whole = compared && !strcmp(compared, "whole file");
		alert(alerts, p, role,
		      existed && !exists ? "removed"
		      : !existed       ? (whole ? "created" : "created with hook settings")
		      : whole          ? "changed"
				       : "its hook settings changed");
	} else if (existed && exists && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(now, "symlink")) !=
						cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(was, "symlink"))) {
		alert(alerts, p, role, "replaced by a symbolic link or by a file in its place");
	}
	if (exists)
		alert_links(alerts, p, role, now);
}

void hook_tamper_verify(const char *state_dir, const char *key, cJSON **alerts)
{
	*alerts = NULL;
	char *path = file_of(state_dir, key, "json");
	struct stat st;
	if (stat(path, &st) != 0) {
		free(path);
		return; /* never recorded (an install of an older belay, `belay hook` run by hand) */
	}
	cJSON *r = read_json(path);
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(r, "files");
	if (!cJSON_IsArray(files)) {
		alert(alerts, path, "belay's record of its protected files", "cannot be read");
		cJSON_Delete(r);
		free(path);
		return;
	}
	long long format = 0;
	if (!jx_int(r, "format", 0, 1 << 20, &format) || format != RECORD_FORMAT) {
		alert(alerts, path, "belay's record of its protected files",
		      "was written by another version of belay (a person rearms to record the files anew)");
		cJSON_Delete(r);
		free(path);
		return;
	}
	for (const cJSON *was = files->child; was; was = was->next) {
		const char *p = jx_str(was, "path"), *role = jx_str(was, "role");
		if (!p || !role)
			continue;
		struct hook_protect_file f = {(char *)p, HP_CONFIG};
		if (!strcmp(role, hook_protect_role_name(HP_PROGRAM)))
			f.role = HP_PROGRAM;
		else if (!strcmp(role, hook_protect_role_name(HP_STATE)))
			f.role = HP_STATE;
		cJSON *now = observe(&f);
		if (f.role == HP_CONFIG) {
			compare_config(alerts, p, role, was, now);
			cJSON_Delete(now);
			continue;
		}
		int existed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(was, "exists"));
		int exists = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(now, "exists"));
		if (existed && !exists)
			alert(alerts, p, role, "removed");
		else if (!existed && exists)
			alert(alerts, p, role, "created");
		else if (exists) {
			if (!same_field(was, now, "dev") || !same_field(was, now, "ino") ||
			    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(now, "symlink")) !=
				cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(was, "symlink")))
				alert(alerts, p, role, "replaced by another file");
			else if (!same_field(was, now, "size") || !same_field(was, now, "mtime"))
				alert(alerts, p, role, "changed");
			alert_links(alerts, p, role, now);
		}
		cJSON_Delete(now);
	}
	cJSON_Delete(r);
	free(path);
}

int hook_tamper_trip(const char *state_dir, const char *key, const cJSON *alerts)
{
	char *path = file_of(state_dir, key, "tripped");
	struct stat st;
	int fresh = stat(path, &st) != 0;
	if (fresh) {
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "key", key);
		cJSON_AddItemToObject(t, "alerts", cJSON_Duplicate(alerts, 1));
		struct err e = {0};
		write_json(path, t, &e); /* a trip that cannot be kept still refuses this call */
		cJSON_Delete(t);
	}
	free(path);
	return fresh;
}

cJSON *hook_tamper_tripped(const char *state_dir, const char *key)
{
	char *path = file_of(state_dir, key, "tripped");
	struct stat st;
	cJSON *out = NULL;
	if (lstat(path, &st) == 0) {
		cJSON *t = read_json(path);
		out = cJSON_DetachItemFromObjectCaseSensitive(t, "alerts");
		if (!cJSON_IsArray(out)) {
			cJSON_Delete(out);
			out = NULL;
			alert(&out, path, "belay's record of a tripped session", "cannot be read");
		}
		cJSON_Delete(t);
	}
	free(path);
	return out;
}

char *hook_tamper_describe(const cJSON *alerts)
{
	struct buf b = {0};
	for (const cJSON *a = alerts ? alerts->child : NULL; a; a = a->next)
		buf_printf(&b, "%s%s (%s) %s", b.len ? "; " : "", jx_str(a, "path") ? jx_str(a, "path") : "?",
			   jx_str(a, "role") ? jx_str(a, "role") : "?", jx_str(a, "what") ? jx_str(a, "what") : "?");
	char *s = xstrdup(buf_cstr(&b));
	buf_free(&b);
	return s;
}

int hook_tamper_rearm(const struct hook_protect *p, const char *state_dir, const char *key, cJSON **recorded,
		      struct err *e)
{
	int rc = hook_tamper_record(p, state_dir, key, recorded, e);
	if (rc)
		return rc;
	char *path = file_of(state_dir, key, "tripped");
	if (unlink(path) != 0 && errno != ENOENT) {
		rc = -errno;
		err_set(e, rc, "cannot remove %s: %s", path, strerror(-rc));
	}
	free(path);
	return rc;
}

int hook_tamper_rearm_project(const char *root, const char *home, const char *state_dir, cJSON **was,
			      cJSON **recorded, struct err *e)
{
	if (!root && !(home && *home))
		return err_set(e, EINVAL, "the install into the home needs $HOME");
	char *key = root ? xstrdup(root) : xasprintf("global:%s", home);
	if (was)
		*was = hook_tamper_tripped(state_dir, key);
	struct hook_protect *p = hook_protect_new(root, home, state_dir, NULL);
	int rc = hook_tamper_rearm(p, state_dir, key, recorded, e);
	hook_protect_free(p);
	free(key);
	return rc;
}

char *hook_tamper_rearm_summary(const cJSON *was, const cJSON *recorded)
{
	int n = 0;
	const cJSON *files = recorded ? cJSON_GetObjectItemCaseSensitive(recorded, "files") : NULL;
	for (const cJSON *f = files ? files->child : NULL; f; f = f->next)
		n += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "exists"));
	if (!was)
		return xasprintf("not tripped; recorded %d protected file(s) anew", n);
	char *d = hook_tamper_describe(was);
	char *s = xasprintf("rearmed after the alert (%s); recorded %d protected file(s) as they are now", d, n);
	free(d);
	return s;
}
