/* env_filter.c - the loader and interpreter-injection variables. See env_filter.h. */
#include "proxy/env_filter.h"

#include <string.h>

#include "common/buf.h"
#include "common/jsonx.h"

/* Whole names. */
static const char *const refused_names[] = {
	/* glibc: the loader's tunables, iconv modules, locale data, getconf's helpers */
	"GLIBC_TUNABLES", "GCONV_PATH", "LOCPATH", "NLSPATH", "GETCONF_DIR",
	/* shells' start-up files */
	"BASH_ENV", "ENV", "ZDOTDIR",
	/* Node */
	"NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE", "BUN_CONFIG_PRELOAD",
	/* Python */
	"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONEXECUTABLE", "PYTHONWARNINGS",
	"PYTHONBREAKPOINT", "PYTHONPLATLIBDIR",
	/* Perl, Ruby, the JVM, .NET, Lua, Tcl, PHP, Erlang, R, Julia */
	"PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
	"JDK_JAVA_OPTIONS", "CLASSPATH", "DOTNET_STARTUP_HOOKS", "CORECLR_PROFILER_PATH", "CORECLR_ENABLE_PROFILING",
	"LUA_INIT", "LUA_PATH", "LUA_CPATH", "TCLLIBPATH", "PHPRC", "PHP_INI_SCAN_DIR", "ERL_AFLAGS", "ERL_ZFLAGS",
	"ERL_LIBS", "R_PROFILE", "R_PROFILE_USER", "R_ENVIRON", "R_ENVIRON_USER", "JULIA_LOAD_PATH",
	/* programs a tool runs by itself: git's helpers and configuration, OpenSSL's engines,
	 * GTK/Qt/GIO modules */
	"GIT_EXEC_PATH", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "OPENSSL_CONF", "OPENSSL_ENGINES",
	"GTK_MODULES", "GTK_PATH", "QT_PLUGIN_PATH", "GIO_EXTRA_MODULES", "GST_PLUGIN_PATH", "SASL_PATH",
	NULL};

/* Families, matched as prefixes. */
static const char *const refused_prefixes[] = {"LD_", "DYLD_", "BASH_FUNC_", "GIT_CONFIG_", NULL};

int env_filter_refused_name(const char *name, size_t len)
{
	for (const char *const *p = refused_names; *p; p++)
		if (strlen(*p) == len && !memcmp(*p, name, len))
			return 1;
	for (const char *const *p = refused_prefixes; *p; p++) {
		size_t n = strlen(*p);
		if (len >= n && !memcmp(*p, name, n))
			return 1;
	}
	return 0;
}

char *env_filter_refused(const cJSON *record)
{
	struct buf out = {0};
	for (const cJSON *o = cJSON_IsArray(record) ? record->child : NULL; o; o = o->next) {
		struct buf name = {0};
		/* A name no environment can hold as one name (NUL, '=': what follows it would be the
		 * value a loader reads) or that this list cannot name (','): unreadable, refused. */
		int ok = jx_bytes_decode(cJSON_GetObjectItemCaseSensitive(o, "name"), &name) == 0 && name.len &&
			 !memchr(name.p, '\0', name.len) && !memchr(name.p, '=', name.len) && !memchr(name.p, ',', name.len);
		const char *shown = ok ? NULL : "(unreadable name)";
		if (ok && !env_filter_refused_name(name.p, name.len)) {
			buf_free(&name);
			continue;
		}
		/* each once */
		struct buf item = {0};
		if (shown)
			buf_puts(&item, shown);
		else
			buf_append(&item, name.p, name.len);
		int seen = 0;
		for (const char *p = out.p; p && *p && !seen;) {
			size_t n = strcspn(p, ",");
			seen = n == item.len && !memcmp(p, item.p, n);
			p += n + (p[n] == ',');
		}
		if (!seen) {
			if (out.len)
				buf_putc(&out, ',');
			buf_append(&out, item.p, item.len);
		}
		buf_free(&item);
		buf_free(&name);
	}
	if (!out.len) {
		buf_free(&out);
		return NULL;
	}
	return buf_take(&out);
}
