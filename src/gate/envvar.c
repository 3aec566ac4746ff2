/* envvar.c - the table of variables that name code, programs, configuration or output
 * files (see envvar.h).
 *
 * Responsible for: exact names, name prefixes (LD_, DYLD_, npm_config_...) and name
 * suffixes (..._PAGER, ..._EDITOR, ..._COMMAND...) that make a variable one some program
 * runs or loads, and the few values that are known to be harmless for each family (a pager
 * that is cat or less, an editor that is true, NODE_OPTIONS that only size the heap).
 * Must not: look at the environment (it classifies the text of an assignment) or decide
 * anything about the command the variable is set for. Pure; any thread. */
#include "gate/envvar.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

/* Marker bytes (lower.h) are \x01..\x06: a value holding one is only known at run time. */
static int known(const char *v)
{
	if (!v)
		return 0;
	for (; *v; v++)
		if ((unsigned char)*v >= 1 && (unsigned char)*v <= 6)
			return 0;
	return 1;
}

static int in(const char *s, const char *const *list)
{
	for (; *list; list++)
		if ((*list)[0] == s[0] && strcmp(s, *list) == 0)
			return 1;
	return 0;
}

static int prefixed(const char *s, const char *pre)
{
	return strncmp(s, pre, strlen(pre)) == 0;
}

static int suffixed(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

/* Drops a leading system directory (/usr/bin/less -> less). */
static const char *basename_sys(const char *v)
{
	static const char *const dirs[] = {"/usr/local/bin/", "/usr/bin/", "/bin/", "/usr/local/sbin/", "/usr/sbin/",
					   "/sbin/", NULL};
	for (int i = 0; dirs[i]; i++)
		if (prefixed(v, dirs[i]))
			return v + strlen(dirs[i]);
	return v;
}

/* The words of v (spaces and tabs); calls f on each; 0 as soon as f says no. */
static int every_word(const char *v, int (*f)(const char *w, size_t n))
{
	const char *p = v;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		const char *e = p;
		while (*e && *e != ' ' && *e != '\t')
			e++;
		if (!f(p, (size_t)(e - p)))
			return 0;
		p = e;
	}
	return 1;
}

static int word_is_flag(const char *w, size_t n)
{
	/* -R, -FRX, --quit-if-one-screen: letters, digits and dashes only (never +cmd) */
	if (n < 2 || w[0] != '-')
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)w[i]) && w[i] != '-' && w[i] != '~' && w[i] != '#')
			return 0;
	return 1;
}

/* "cat", "less -R", "/usr/bin/more": a program from `progs`, then only flags. */
static int benign_program(const char *v, const char *const *progs, int flags_ok)
{
	v = basename_sys(v);
	size_t n = strcspn(v, " \t");
	int ok = 0;
	for (int i = 0; progs[i]; i++)
		if (strlen(progs[i]) == n && strncmp(v, progs[i], n) == 0)
			ok = 1;
	if (!ok)
		return 0;
	if (!v[n])
		return 1;
	return flags_ok && every_word(v + n, word_is_flag);
}

static const char *const PAGERS[] = {"cat", "less", "more", "most", "pg", NULL};
static const char *const NOOP_EDITORS[] = {"true", "false", ":", "cat", NULL};
static const char *const SHELLS[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", NULL};
static const char *const COMPILERS[] = {"cc",	   "c++",      "gcc",	 "g++",	   "clang", "clang++", "tcc",
					"cpp",	   "ld",       "ld.bfd", "ld.gold", "ld.lld", "lld",	 "ar",
					"llvm-ar", "gcc-ar",   "as",	 "nm",	    "ranlib", "strip",	 "gfortran",
					"f77",	   "objcopy",  "objdump", NULL};

static int node_option_ok(const char *w, size_t n)
{
	static const char *const ok[] = {"--max-old-space-size=",
					 "--max-semi-space-size=",
					 "--stack-size=",
					 "--enable-source-maps",
					 "--no-warnings",
					 "--trace-warnings",
					 "--trace-deprecation",
					 "--throw-deprecation",
					 "--no-deprecation",
					 "--trace-uncaught",
					 "--unhandled-rejections=",
					 "--experimental-vm-modules",
					 "--openssl-legacy-provider",
					 "--no-experimental-fetch",
					 "--dns-result-order=",
					 "--use-openssl-ca",
					 "--max-http-header-size=",
					 "--disable-warning=",
					 "--no-addons",
					 NULL};
	for (int i = 0; ok[i]; i++) {
		size_t l = strlen(ok[i]);
		if (ok[i][l - 1] == '=' ? (n > l && strncmp(w, ok[i], l) == 0) : (n == l && strncmp(w, ok[i], l) == 0))
			return 1;
	}
	return 0;
}

static int java_option_ok(const char *w, size_t n)
{
	/* heap and stack sizes, -XX:+Flag / -XX:Name=number, a few -D properties */
	if (n > 4 && (strncmp(w, "-Xmx", 4) == 0 || strncmp(w, "-Xms", 4) == 0 || strncmp(w, "-Xss", 4) == 0))
		return 1;
	if (n > 5 && strncmp(w, "-XX:", 4) == 0) {
		if (w[4] == '+' || w[4] == '-')
			return 1;
		const char *eq = memchr(w, '=', n);
		if (!eq)
			return 0;
		/* -XX:OnError=cmd and -XX:OnOutOfMemoryError=cmd run commands */
		if ((size_t)(eq - w) >= 6 && strncmp(w + 4, "On", 2) == 0)
			return 0;
		for (const char *q = eq + 1; q < w + n; q++)
			if (!isdigit((unsigned char)*q) && !strchr("kKmMgG", *q))
				return 0;
		return 1;
	}
	static const char *const props[] = {"-Dfile.encoding=", "-Duser.timezone=", "-Djava.awt.headless=",
					    "-Duser.language=", "-Duser.country=",  NULL};
	for (int i = 0; props[i]; i++)
		if (n > strlen(props[i]) && strncmp(w, props[i], strlen(props[i])) == 0)
			return 1;
	return (n == 3 && (!strncmp(w, "-ea", 3) || !strncmp(w, "-da", 3))) || (n == 7 && !strncmp(w, "-server", 7));
}

static int cflag_ok(const char *w, size_t n)
{
	/* compiler flags that load code or run programs: plugins, other tool dirs, specs,
	 * wrappers, response files */
	static const char *const bad[] = {"-fplugin", "-fpass-plugin", "-B",	    "-wrapper", "-specs", "--specs",
					  "@",	      "-Xclang",       "-Wl,-plugin", "-Wl,--plugin", "-load", "-fuse-ld=/",
					  "--ld-path", NULL};
	for (int i = 0; bad[i]; i++)
		if (n >= strlen(bad[i]) && strncmp(w, bad[i], strlen(bad[i])) == 0)
			return 0;
	return 1;
}

static int makeflag_ok(const char *w, size_t n)
{
	/* -j4, -s, -k, --no-print-directory, -Otarget, w (the letters make puts in MAKEFLAGS) */
	static const char *const ok[] = {"--no-print-directory", "--silent", "--keep-going", "--print-directory",
					 "--output-sync",	 NULL};
	for (int i = 0; ok[i]; i++)
		if (n >= strlen(ok[i]) && strncmp(w, ok[i], strlen(ok[i])) == 0)
			return 1;
	size_t i = w[0] == '-' ? 1 : 0;
	if (i >= n)
		return 0;
	for (; i < n; i++)
		if (!strchr("jklswiOBSrRnq0123456789", w[i]))
			return 0;
	return 1;
}

static int rustflag_ok(const char *w, size_t n)
{
	static const char *const bad[] = {"linker", "link-arg", "-Z", "plugin", "-L", "--extern", NULL};
	for (int i = 0; bad[i]; i++) {
		size_t l = strlen(bad[i]);
		for (size_t k = 0; k + l <= n; k++)
			if (strncmp(w + k, bad[i], l) == 0)
				return 0;
	}
	return 1;
}

static int goflag_ok(const char *w, size_t n)
{
	static const char *const bad[] = {"-toolexec", "--toolexec", "-exec", "--exec", "-overlay", "-modfile",
					  "-pgo",      "-ldflags",   "-gcflags", "-asmflags", NULL};
	for (int i = 0; bad[i]; i++)
		if (n >= strlen(bad[i]) && strncmp(w, bad[i], strlen(bad[i])) == 0)
			return 0;
	return 1;
}

/* Names whose value is a program, library, option string or configuration location. */
static const char *const CODE_NAMES[] = {
    /* the shell and its start-up */
    "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND", "BASH_CMDS", "BASH_ALIASES", "BASH_LOADABLES_PATH",
    "ZDOTDIR", "INPUTRC", "FPATH", "TAPE",
    /* configuration locations: the files there can name programs (core.pager, credential
     * helpers, exec plugins, init scripts) */
    "HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS", "GNUPGHOME", "DOCKER_CONFIG",
    "DOCKER_HOST", "DOCKER_CONTEXT", "KUBECONFIG", "AWS_CONFIG_FILE", "CLOUDSDK_CONFIG", "AZURE_CONFIG_DIR",
    "TF_CLI_CONFIG_FILE", "CURL_HOME", "WGETRC", "PIP_CONFIG_FILE", "GRADLE_USER_HOME", "CARGO_HOME", "RUSTUP_HOME",
    "GOENV", "GOROOT", "JAVA_HOME", "BUNDLE_GEMFILE", "GEM_HOME", "CONFIG_SITE", "CMAKE_TOOLCHAIN_FILE",
    "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES", "GCONV_PATH", "GTK_MODULES", "GTK_PATH", "GIO_EXTRA_MODULES",
    "QT_PLUGIN_PATH", "LIBGL_DRIVERS_PATH", "PHPRC", "PHP_INI_SCAN_DIR", "R_PROFILE", "R_PROFILE_USER", "R_ENVIRON",
    "R_ENVIRON_USER", "R_LIBS", "R_LIBS_USER", "JULIA_LOAD_PATH", "TCLLIBPATH", "LUA_INIT", "LUA_PATH", "LUA_CPATH",
    "MANOPT", "MANROFFOPT", "RIPGREP_CONFIG_PATH", "FZF_DEFAULT_OPTS", "SYSTEMWGETRC",
    /* option strings other programs prepend to their command line */
    "TAR_OPTIONS", "ZIPOPT", "UNZIP", "UNZIPOPT", "RSYNC_RSH", "RSYNC_CONNECT_PROG",
    /* git */
    "GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS",
    "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_CONFIG", "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    /* interpreters and runtimes */
    "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONBREAKPOINT", "PYTHONEXECUTABLE", "PERL5OPT", "PERL5DB",
    "PERL_MB_OPT", "PERL_MM_OPT", "RUBYOPT", "NODE_REPL_EXTERNAL_MODULE", "VIRTUAL_ENV", "CONDA_PREFIX",
    /* build tools */
    "MAKEFILES", "MAKE", "CONFIG_SHELL", "CROSS_COMPILE", "PKG_CONFIG", "RUSTC", "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC", "RUSTUP_TOOLCHAIN", "GOTOOLCHAIN",
    /* programs other programs start */
    "BROWSER", "TERMINAL", NULL};

/* Names whose value is checked against the harmless values of its family. */
enum family {
	FAM_NONE,
	FAM_PAGER,
	FAM_EDITOR,
	FAM_LESSOPTS,
	FAM_NODE,
	FAM_JAVA,
	FAM_CC,
	FAM_CFLAGS,
	FAM_MAKEFLAGS,
	FAM_RUSTFLAGS,
	FAM_GOFLAGS,
	FAM_SHELL,
	FAM_PROMPT,
	FAM_PYWARN,
};

struct famname {
	const char *name;
	enum family fam;
};

static const struct famname FAMILIES[] = {
    {"LESS", FAM_LESSOPTS},	     {"MORE", FAM_LESSOPTS},	     {"SYSTEMD_LESS", FAM_LESSOPTS},	     {"NODE_OPTIONS", FAM_NODE},
    {"JAVA_TOOL_OPTIONS", FAM_JAVA}, {"_JAVA_OPTIONS", FAM_JAVA},    {"JDK_JAVA_OPTIONS", FAM_JAVA},
    {"JAVA_OPTS", FAM_JAVA},	     {"MAVEN_OPTS", FAM_JAVA},	     {"GRADLE_OPTS", FAM_JAVA},
    {"SBT_OPTS", FAM_JAVA},	     {"ANT_OPTS", FAM_JAVA},	     {"CC", FAM_CC},
    {"CXX", FAM_CC},		     {"CPP", FAM_CC},		     {"LD", FAM_CC},
    {"AR", FAM_CC},		     {"AS", FAM_CC},		     {"NM", FAM_CC},
    {"RANLIB", FAM_CC},		     {"STRIP", FAM_CC},		     {"OBJCOPY", FAM_CC},
    {"OBJDUMP", FAM_CC},	     {"FC", FAM_CC},		     {"F77", FAM_CC},
    {"HOSTCC", FAM_CC},		     {"HOSTCXX", FAM_CC},	     {"CFLAGS", FAM_CFLAGS},
    {"CXXFLAGS", FAM_CFLAGS},	     {"CPPFLAGS", FAM_CFLAGS},	     {"LDFLAGS", FAM_CFLAGS},
    {"LDLIBS", FAM_CFLAGS},	     {"CGO_CFLAGS", FAM_CFLAGS},     {"CGO_CPPFLAGS", FAM_CFLAGS},
    {"CGO_CXXFLAGS", FAM_CFLAGS},    {"CGO_LDFLAGS", FAM_CFLAGS},    {"MAKEFLAGS", FAM_MAKEFLAGS},
    {"MFLAGS", FAM_MAKEFLAGS},	     {"GNUMAKEFLAGS", FAM_MAKEFLAGS}, {"RUSTFLAGS", FAM_RUSTFLAGS},
    {"RUSTDOCFLAGS", FAM_RUSTFLAGS}, {"CARGO_ENCODED_RUSTFLAGS", FAM_RUSTFLAGS}, {"GOFLAGS", FAM_GOFLAGS},
    {"SHELL", FAM_SHELL},	     {"PS0", FAM_PROMPT},	     {"PS1", FAM_PROMPT},
    {"PS2", FAM_PROMPT},	     {"PS4", FAM_PROMPT},	     {"PYTHONWARNINGS", FAM_PYWARN},
    {NULL, FAM_NONE},
};

static enum family family_of(const char *name)
{
	for (int i = 0; FAMILIES[i].name; i++)
		if (FAMILIES[i].name[0] == name[0] && strcmp(FAMILIES[i].name, name) == 0)
			return FAMILIES[i].fam;
	if (suffixed(name, "PAGER"))
		return FAM_PAGER;
	if (suffixed(name, "EDITOR") || !strcmp(name, "VISUAL") || !strcmp(name, "FCEDIT"))
		return FAM_EDITOR;
	return FAM_NONE;
}

static int family_benign(enum family f, const char *v)
{
	switch (f) {
	case FAM_PAGER:
		return benign_program(v, PAGERS, 1);
	case FAM_EDITOR:
		return benign_program(v, NOOP_EDITORS, 0);
	case FAM_LESSOPTS:
		return every_word(v, word_is_flag);
	case FAM_NODE:
		return every_word(v, node_option_ok);
	case FAM_JAVA:
		return every_word(v, java_option_ok);
	case FAM_CC:
		return benign_program(v, COMPILERS, 0);
	case FAM_CFLAGS:
		return every_word(v, cflag_ok);
	case FAM_MAKEFLAGS:
		return every_word(v, makeflag_ok);
	case FAM_RUSTFLAGS:
		return every_word(v, rustflag_ok);
	case FAM_GOFLAGS:
		return every_word(v, goflag_ok);
	case FAM_SHELL:
		return benign_program(v, SHELLS, 0);
	case FAM_PROMPT:
		/* prompt strings are expanded (PS4 under set -x, the others in interactive shells):
		 * command substitutions in them run */
		return !strchr(v, '$') && !strchr(v, '`');
	case FAM_PYWARN:
		/* a warning category with a module path imports that module */
		return !strchr(v, '.');
	case FAM_NONE:
		break;
	}
	return 0;
}

static const char *family_why(enum family f)
{
	switch (f) {
	case FAM_PAGER:
		return "names the pager programs run their output through";
	case FAM_EDITOR:
		return "names the editor programs start";
	case FAM_LESSOPTS:
		return "gives the pager options, which can hold commands (+cmd)";
	case FAM_NODE:
	case FAM_JAVA:
		return "gives a runtime options that can load code (--require, -javaagent, OnError)";
	case FAM_CC:
		return "names the compiler or tool build systems run";
	case FAM_CFLAGS:
	case FAM_RUSTFLAGS:
	case FAM_GOFLAGS:
		return "gives build flags that can load plugins or run other programs";
	case FAM_MAKEFLAGS:
		return "gives make options and variable definitions for every make it reaches";
	case FAM_SHELL:
		return "names the shell programs start for commands";
	case FAM_PROMPT:
		return "is a prompt string the shell expands, running its command substitutions";
	case FAM_PYWARN:
		return "names a warning category Python imports from a module";
	case FAM_NONE:
		break;
	}
	return "names code another program runs";
}

/* npm reads every npm_config_* variable as configuration (script-shell, node-options,
 * onload-script, userconfig...); these few only change output or prompts. */
static const char *const NPM_OK[] = {"loglevel", "yes",	     "fund",   "audit",	      "update_notifier",
				     "update-notifier", "progress", "color", "production", "omit",
				     "legacy_peer_deps", "legacy-peer-deps", NULL};
static const char *const YARN_OK[] = {"YARN_ENABLE_TELEMETRY", "YARN_ENABLE_PROGRESS_BARS", "YARN_SILENT",
				      "YARN_ENABLE_COLORS", "YARN_ENABLE_INLINE_BUILDS", NULL};

static int npm_config(const char *name)
{
	const char *k = NULL;
	if (prefixed(name, "npm_config_"))
		k = name + 11;
	else if (prefixed(name, "NPM_CONFIG_"))
		k = name + 11;
	if (!k)
		return 0;
	for (int i = 0; NPM_OK[i]; i++) {
		const char *a = NPM_OK[i], *b = k;
		while (*a && *b && tolower((unsigned char)*a) == tolower((unsigned char)*b))
			a++, b++;
		if (!*a && !*b)
			return 0;
	}
	return 1;
}

static const char *const WRITE_NAMES[] = {"SSLKEYLOGFILE",	 "MALLOC_TRACE",	"NODE_V8_COVERAGE",
					  "LLVM_PROFILE_FILE",	 "GCOV_PREFIX",		"GOCOVERDIR",
					  "PYTHONPYCACHEPREFIX", "LESSHISTFILE",	"CARGO_TARGET_DIR",
					  "GIT_INDEX_FILE",	 "GIT_OBJECT_DIRECTORY", "HISTFILE",
					  "PYTHON_HISTORY",	 "NODE_REPL_HISTORY",	"SQLITE_HISTORY",
					  "MYSQL_HISTFILE",	 "PSQL_HISTORY",	NULL};

int envvar_benign_pager(const char *v)
{
	return known(v) && benign_program(v, PAGERS, 1);
}

enum envvar_pathlist envvar_pathlist(const char *name)
{
	if (!strcmp(name, "PATH"))
		return ENVP_EXEC;
	if (!strcmp(name, "CDPATH"))
		return ENVP_CD;
	static const char *const code[] = {"PYTHONPATH", "NODE_PATH", "PERL5LIB", "PERLLIB", "RUBYLIB",
					   "CLASSPATH",	 "GEM_PATH",  NULL};
	return in(name, code) ? ENVP_CODE : ENVP_NONE;
}

enum envvar_risk envvar_classify(const char *name, const char *value, const char **why)
{
	const char *w = NULL;
	enum envvar_risk r = ENVV_PLAIN;
	/* every name in the tables is upper case (npm_config_* aside): the script's own
	 * variables (i, line, files) are decided without a search */
	if (strncmp(name, "npm_config_", 11))
		for (const char *q = name; *q; q++)
			if (*q >= 'a' && *q <= 'z')
				return ENVV_PLAIN;
	if (value && known(value) && !value[0] && strcmp(name, "HOME") && strcmp(name, "PATH"))
		return ENVV_PLAIN; /* empty: the feature is off (PATH= searches the current directory) */
	if (envvar_pathlist(name) != ENVP_NONE) {
		r = ENVV_PATHLIST;
	} else if (prefixed(name, "GIT_TRACE")) {
		/* 0/1/2/true/false go to stderr; an absolute path is a file written */
		if (value && known(value) &&
		    (!strcmp(value, "0") || !strcmp(value, "1") || !strcmp(value, "2") || !strcasecmp(value, "true") ||
		     !strcasecmp(value, "false")))
			return ENVV_PLAIN;
		r = ENVV_WRITE;
		w = "names a file git writes its trace to";
	} else if (in(name, WRITE_NAMES)) {
		if (!strcmp(name, "LESSHISTFILE") && value && !strcmp(value, "-"))
			return ENVV_PLAIN;
		r = ENVV_WRITE;
		w = "names a file or directory programs write to";
	} else if (in(name, CODE_NAMES) || prefixed(name, "LD_") || prefixed(name, "DYLD_") ||
		   prefixed(name, "BASH_FUNC_") || prefixed(name, "GIT_CONFIG_KEY_") ||
		   prefixed(name, "GIT_CONFIG_VALUE_") || prefixed(name, "CARGO_TARGET_") ||
		   (prefixed(name, "CARGO_BUILD_") && strcmp(name, "CARGO_BUILD_JOBS")) || npm_config(name) ||
		   (prefixed(name, "YARN_") && !in(name, YARN_OK)) ||
		   (prefixed(name, "LESS") && strcmp(name, "LESS") && strcmp(name, "LESSCHARSET") &&
		    strcmp(name, "LESSSECURE")) ||
		   suffixed(name, "ASKPASS") || suffixed(name, "_COMMAND") || suffixed(name, "_CMD") ||
		   suffixed(name, "_PROGRAM") || suffixed(name, "_WRAPPER") || suffixed(name, "_RUNNER") ||
		   suffixed(name, "_LAUNCHER") || suffixed(name, "_LINKER") || suffixed(name, "_PROG") ||
		   suffixed(name, "BROWSER")) {
		r = ENVV_CODE;
		w = prefixed(name, "LD_") || prefixed(name, "DYLD_")
			? "tells the dynamic loader which libraries to load into every program"
		    : !strcmp(name, "HOME") || strstr(name, "CONFIG") || suffixed(name, "_HOME") || suffixed(name, "DIR") ||
			    suffixed(name, "_DIRS")
			? "moves the configuration programs read, which can name programs to run"
			: "names a program, script or option string that other programs run";
	} else {
		enum family f = family_of(name);
		if (f == FAM_NONE)
			return ENVV_PLAIN;
		if (value && known(value) && family_benign(f, value))
			return ENVV_PLAIN;
		r = ENVV_CODE;
		w = family_why(f);
	}
	if (why)
		*why = w;
	return r;
}
