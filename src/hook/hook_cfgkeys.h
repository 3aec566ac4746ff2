/* hook_cfgkeys.h - what of an agent's configuration file decides whether belay's hooks run:
 * the part the protected-file record (hook_tamper.h) compares, so that the agent's own
 * writes to the same files (Claude Code rewrites ~/.claude.json at every start and keeps
 * "don't ask again" answers in settings.local.json; Codex keeps trust decisions and notices
 * in config.toml) are not mistaken for tampering, while every key that can add, remove or
 * switch off a hook is compared.
 *
 *   Claude Code settings (settings.json, settings.local.json, ~/.claude.json): the members
 *     "hooks" and "disableAllHooks";
 *   Codex config.toml: the tables "hooks" and "features", "mcp_servers.belay", and the same
 *     keys under each of "profiles";
 *   Gemini CLI settings (a settings.json in a .gemini directory: decided by the path, not
 *     the name, which is Claude Code's too), read as JSON with comments: "hooks",
 *     "hooksConfig" and "security.folderTrust";
 *   a hooks.json (Cursor, Codex): the whole file, byte for byte.
 * A file of another name, or one that does not parse, is compared whole (byte for byte):
 * what cannot be read as a configuration is never assumed harmless.
 *
 * Must not: print, do I/O. Threads: any. */
#ifndef BELAY_HOOK_HOOK_CFGKEYS_H
#define BELAY_HOOK_HOOK_CFGKEYS_H
#include <stddef.h>

/* The digest ("sha256:HEX", 71 characters and a NUL) of the hook-deciding part of `text`
 * (len bytes; need not be NUL-terminated) of the configuration at `path` (its path decides
 * the format); text NULL is a file that does not exist, which has the digest of an empty
 * part. Returns what was compared: "hook keys" or "whole file". */
const char *hook_cfgkeys_digest(const char *path, const char *text, size_t len, char out[72]);

#endif
