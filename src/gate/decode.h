/* decode.h - the grammar decoders: what known commands do, from their arguments
 * (internal to src/gate). A decoder is selected by the command's name, but a name never
 * decides on its own: every decoder reads the options, operands and environment and emits
 * effects for them; arguments it does not understand make the result indeterminate.
 * Commands without a decoder are indeterminate. Must not: allow a command because of its
 * name alone. Pure; caller's thread. */
#ifndef BELAY_GATE_DECODE_H
#define BELAY_GATE_DECODE_H
#include "gate/lower.h"

typedef void (*decode_fn)(struct cmd *c, const char *name);

/* decode.c */
/* 1 when a patch applied by c (its stdin, or a file when from_file) may create symbolic
 * links (a git-style mode 120000 entry). */
int decode_patch_may_link(const struct cmd *c, int from_file);
/* 1 when argv is exactly NAME --version or NAME --help. */
int decode_is_version(const struct cmd *c);
/* Emits an indeterminate effect naming an option the decoder does not know. */
void decode_unknown_option(struct cmd *c, const char *name, const struct opt *o);
/* Emits an indeterminate effect for a word that is only known at run time where an option
 * could change what the command does. */
void decode_dynamic_arg(struct cmd *c, const char *name, const struct xword *w);
/* 1 when s is one of the NULL-terminated list. */
int decode_in(const char *s, const char *const *list);
/* Text of several words joined with spaces, or NULL when any is not fully known. */
char *decode_join(struct cmd *c, size_t from);

/* decode_vars.c: builtins that set, read or rebind variables and command names; NULL when
 * `name` is not one of them. */
decode_fn decode_vars_find(const char *name);

/* decode_wrap.c: wrappers, shells, interpreters, find, xargs */
void decode_sudo(struct cmd *c, const char *name);
void decode_doas(struct cmd *c, const char *name);
void decode_su(struct cmd *c, const char *name);
void decode_env(struct cmd *c, const char *name);
void decode_nice(struct cmd *c, const char *name);
void decode_nohup(struct cmd *c, const char *name);
void decode_timeout(struct cmd *c, const char *name);
void decode_time(struct cmd *c, const char *name);
void decode_command_builtin(struct cmd *c, const char *name);
void decode_exec(struct cmd *c, const char *name);
void decode_stdbuf(struct cmd *c, const char *name);
void decode_ionice(struct cmd *c, const char *name);
void decode_setsid(struct cmd *c, const char *name);
void decode_watch(struct cmd *c, const char *name);
void decode_flock(struct cmd *c, const char *name);
void decode_strace(struct cmd *c, const char *name);
void decode_xargs(struct cmd *c, const char *name);
void decode_find(struct cmd *c, const char *name);
void decode_shell(struct cmd *c, const char *name);
void decode_eval(struct cmd *c, const char *name);
void decode_source(struct cmd *c, const char *name);
void decode_trap(struct cmd *c, const char *name);
void decode_interp(struct cmd *c, const char *name);
void decode_chroot(struct cmd *c, const char *name);
void decode_busybox(struct cmd *c, const char *name);

/* decode_git.c */
void decode_git(struct cmd *c, const char *name);

/* decode_net.c: network clients */
void decode_curl(struct cmd *c, const char *name);
void decode_wget(struct cmd *c, const char *name);
void decode_ssh(struct cmd *c, const char *name);
void decode_scp(struct cmd *c, const char *name);
void decode_rsync(struct cmd *c, const char *name);
void decode_nc(struct cmd *c, const char *name);
void decode_netprobe(struct cmd *c, const char *name);
void decode_gh(struct cmd *c, const char *name);
void decode_httpie(struct cmd *c, const char *name);
/* The clients decode_net_url knows the protocols of. */
enum net_client { NC_CURL, NC_WGET, NC_HTTPIE };
/* What a request does besides naming its URL. */
struct net_req {
	enum net_client client;
	int mutate, payload, secret;
	int upload;                /* an upload (curl -T): sent to a host, written to a file:// path */
	const char *upload_name;   /* its local file's last component ("*" when unknown), for a URL ending in '/' */
	const char *proto_default; /* curl --proto-default (NULL: curl's guess from the host, else http) */
	int proto_default_unknown; /* --proto-default only known at run time */
};
/* Emits the effects of a URL-ish word: by its scheme (or, schemeless, the client's default),
 * the protocol and which way data goes: a request (read unless a method, data or an upload
 * sends), a protocol that sends whatever the URL or stdin holds (telnet, dict, gopher, smtp,
 * WebSocket, ssh-authenticated scp/sftp), or file:// (a read of the path, a write when
 * uploaded to). A scheme the client does not speak, or that is only known at run time, is
 * indeterminate. Hosts: extracted, loopback known. */
void decode_net_url(struct cmd *c, const struct xword *url, const struct net_req *rq);
/* The same model for a URL given to a tool (which may speak any protocol of the table):
 * NET_DIR_NONE when it has no scheme, else the protocol's direction (*why: what a sending
 * protocol sends), NET_DIR_UNKNOWN for a scheme the gate does not model; *after: what
 * follows the scheme's ':'. */
enum net_dir { NET_DIR_NONE, NET_DIR_REQUEST, NET_DIR_SENDS, NET_DIR_FILE, NET_DIR_UNKNOWN };
enum net_dir decode_net_scheme(const char *url, const char **why, const char **after);
/* The local path of a file: URL (after: what follows "file:"), as curl reads it; NULL when
 * it names another host or decodes to a NUL. */
const char *decode_net_file_path(struct lower *L, const char *after);

/* decode_dev.c: build tools, package managers, containers */
void decode_docker(struct cmd *c, const char *name);
void decode_pkgmgr(struct cmd *c, const char *name);
void decode_npx(struct cmd *c, const char *name);
void decode_pip(struct cmd *c, const char *name);
void decode_go(struct cmd *c, const char *name);
void decode_cargo(struct cmd *c, const char *name);
void decode_make(struct cmd *c, const char *name);
void decode_tsc(struct cmd *c, const char *name);
void decode_testrunner(struct cmd *c, const char *name);
void decode_formatter(struct cmd *c, const char *name);
void decode_prisma(struct cmd *c, const char *name);
void decode_terraform(struct cmd *c, const char *name);
void decode_sysdpkg(struct cmd *c, const char *name);
void decode_belay(struct cmd *c, const char *name);
void decode_toolversion(struct cmd *c, const char *name);

#endif
