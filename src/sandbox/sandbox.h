/* sandbox.h - containment of an MCP server (Landlock + namespaces + seccomp), see
 * docs/THREAT_MODEL.md. The launcher stage runs between fork and exec by re-executing
 * belay itself ("belay __launch ..."), because libuv cannot run code in the child. */
#ifndef BELAY_SANDBOX_SANDBOX_H
#define BELAY_SANDBOX_SANDBOX_H
#include <cjson/cJSON.h>

#include "common/err.h"

/* What uv_spawn runs for a server: the server itself, or belay's launcher in front of it.
 * Filled by the caller (uncontained) or by sandbox_prepare_spawn; freed by its owner. */
struct spawn_plan {
	char *file;
	char **args;
	char **env;   /* NULL: inherit */
	int extra_fd; /* inherited by the child as fd 3 (-1: none) */
	int connector_fd; /* with sandbox_spec.connector: inherited by the child as fd 4 (-1, or
			   * 0 when the plan was zeroed: none); the caller must place it there */
	void *priv;   /* sandbox launcher state (owned) */
};

enum sandbox_network { SANDBOX_NET_DENY = 0, SANDBOX_NET_ALLOW = 1 };

struct sandbox_spec {
	char *scope;      /* realpath of the workspace (writable, snapshotted) */
	char *tmpdir;     /* private temp dir (writable, not snapshotted) */
	enum sandbox_network network;
	char *hide;       /* a directory the server must not see (belay's state: traces, keys), or NULL */
	int tmp_lock;     /* 1 + an fd holding a shared flock on a temp dir sandbox_spec_init made or
			   * adopted (the last user removes it when empty); 0: none */
	char **expose;    /* realpaths kept in view although hidden by default (--expose), NULL-terminated, or NULL */
	char *cache;      /* the writable per-user cache (sandbox_cache.h), or NULL for none */
	/* Paths inside the scope that stay read-only to the kernel (sandbox_spec_pin): each is
	 * bind-mounted onto itself read-only (EROFS; a rename or removal of the mount point is
	 * EBUSY) and is a read-only zone of the supervisor's view (writes beneath it are refused
	 * and named). NULL-terminated realpaths, or NULL. */
	char **pin;
	/* A trial's mirror (src/trial): when overlay_upper is set, an overlay of overlay_lower
	 * (NULL: the scope itself) with this private upper layer and overlay_work (an empty
	 * directory on the upper's filesystem) is mounted at the scope's own path before any
	 * other mount of the view, so every write to the scope lands in the upper layer and the
	 * real tree is never written. NULL: no overlay (the scope is the real tree). */
	char *overlay_lower, *overlay_upper, *overlay_work;
	/* A server that listens on the sandbox's own loopback (docs/HTTP.md, "Contained local
	 * servers"): under deny only, `lo` is brought up in its network namespace, and the
	 * server may make TCP sockets and bind this one port (Landlock and the supervisor) and
	 * connect nowhere. 0: none. */
	unsigned loopback_port;
	/* With loopback_port: a connector (sandbox_loopback.c) is started in that namespace, and
	 * sandbox_spawn_take_connector gives its socket: each byte written on it is answered by
	 * a socket connected to the port inside the sandbox (SCM_RIGHTS; the message carries an
	 * int32 errno, 0 with a descriptor). The spawn plan's connector_fd must be the child's
	 * fd 4. */
	int connector;
};

/* Builds a spec for scope (must be an existing directory): resolves it, creates/adopts the
 * private temp dir (0700, owned by us, not a symlink). sandbox_spec_done removes that temp
 * dir when it is empty and no other spec (of any process) holds it. */
int sandbox_spec_init(struct sandbox_spec *sp, const char *scope, enum sandbox_network net, struct err *e);
/* Same with an explicit private temp dir (which must exist, be ours and 0700): for
 * ephemeral scopes such as replay scratch directories, whose temp dir goes with them. */
int sandbox_spec_init_tmp(struct sandbox_spec *sp, const char *scope, const char *tmpdir, enum sandbox_network net,
			  struct err *e);
void sandbox_spec_done(struct sandbox_spec *sp);
/* Keeps `path` (which must exist) in the server's view although it is hidden by default (a
 * credential store, a socket directory; sandbox_conceal.h): read-only, like the rest of
 * the host outside the scope. */
int sandbox_spec_expose(struct sandbox_spec *sp, const char *path, struct err *e);
/* Keeps `path` (an existing file or directory inside the scope) read-only to the contained
 * process although the scope is writable: belay's own protected files under `belay init
 * --contain` (hook_exec.c). A path outside the scope is read-only anyway and is ignored
 * (0). A path that does not exist is BELAY_ENOTFOUND (nothing to mount over). */
int sandbox_spec_pin(struct sandbox_spec *sp, const char *path, struct err *e);
/* Presents the scope as an overlay (see overlay_upper above): upper and work must be
 * existing directories outside the scope, on one filesystem; lower NULL: the scope. */
int sandbox_spec_overlay(struct sandbox_spec *sp, const char *lower, const char *upper, const char *work, struct err *e);
/* Parses "deny"/"deny-all"/"allow"/"allow-all". */
int sandbox_parse_network(const char *s, enum sandbox_network *out, struct err *e);

/* Fills sp so that uv_spawn runs `launcher __launch ... -- exe argv...`. The launcher runs
 * with the environment the caller puts in sp->env (NULL: the caller's own); `env` (NAME=VALUE, NULL-terminated;
 * NULL: the launcher's own) is the server's, handed to the launcher on the supervisor
 * channel (a sealed memfd) and applied only by the pid namespace's init just before it
 * starts the server, every layer in place: a recorded environment never reaches a process
 * outside the sandbox (LD_PRELOAD, GCONV_PATH, ... of a trace from elsewhere). */
int sandbox_prepare_spawn(const struct sandbox_spec *spec, const char *launcher, const char *exe,
			  char *const *argv, char *const *env, struct spawn_plan *sp, struct err *e);
void sandbox_describe(const void *priv, cJSON *record);
void sandbox_spawn_free(void *priv);
/* After a successful spawn: closes the child's end of the supervisor channel and hands our
 * end to the caller (who starts the supervisor with it). */
int sandbox_spawn_take_channel(void *priv);
const char *sandbox_spawn_scope(const void *priv); /* borrowed */
const char *sandbox_spawn_tmp(const void *priv);   /* borrowed */
const char *sandbox_spawn_cache(const void *priv); /* borrowed; NULL without a cache */
int sandbox_spawn_denies_network(const void *priv);
unsigned sandbox_spawn_loopback_port(const void *priv); /* 0: none */
/* After a successful spawn with spec.connector: our end of the connector socket (the
 * caller's to close), -1 without one. Closes the child's end. */
int sandbox_spawn_take_connector(void *priv);
/* Through the connector (blocking, one request at a time): what = 'c', a socket connected
 * to the contained server's loopback port; '4' or '6', an inet or inet6 stream socket made
 * in the sandbox's network namespace, not connected (its connect reaches that namespace's
 * loopback only). The fd, or -errno (-EPIPE once the sandbox is gone). */
int sandbox_connector_socket(int connector, char what);

/* The launcher stage: called by main() for "belay __launch"; never returns on success
 * (execs the server); on any failure prints "belay: refusing to run unsandboxed: ..."
 * and returns 2. */
int sandbox_launch_main(int argc, char **argv);

#endif
