/* envvar.h - what a variable means to the programs that read it: whether setting NAME to a
 * value can make some program run code, load a library, read a configuration that runs
 * code, or write a file (internal to src/gate).
 *
 * The gate cannot know which programs, or their children, consult a variable, so a
 * variable that names code is judged when it is set (inline, through env(1), by export,
 * declare or a plain assignment of a variable the environment may already export), not
 * when a particular program reads it. Values are the gate's marker strings: a value that
 * holds a marker (unknown text) is never benign. Pure table lookups; thread-safe. */
#ifndef BELAY_GATE_ENVVAR_H
#define BELAY_GATE_ENVVAR_H

enum envvar_risk {
	ENVV_PLAIN,    /* data: no program is known to run or load anything it names */
	ENVV_CODE,     /* names a program, library, option string or configuration that runs code */
	ENVV_WRITE,    /* names a file or directory that programs write (a trace, a key log) */
	ENVV_PATHLIST, /* a search path for programs or code: each entry is judged (envvar_pathlist) */
};

enum envvar_pathlist {
	ENVP_NONE,
	ENVP_EXEC, /* PATH: command names resolve through it */
	ENVP_CODE, /* PYTHONPATH, NODE_PATH, PERL5LIB...: modules are loaded from it */
	ENVP_CD,   /* CDPATH: cd resolves relative directories through it */
};

/* Classifies setting `name` to `value` (a marker string; NULL when nothing is known of it).
 * *why (may be NULL) gets a static sentence for ENVV_CODE and ENVV_WRITE. An empty known
 * value is always plain: it switches the feature off. */
enum envvar_risk envvar_classify(const char *name, const char *value, const char **why);

/* For ENVV_PATHLIST names: which kind of search path it is. */
enum envvar_pathlist envvar_pathlist(const char *name);

/* 1 when v (known text) is a pager that only shows text: cat, less, more, with flags only
 * (never +cmd), optionally from a system directory. */
int envvar_benign_pager(const char *v);

#endif
