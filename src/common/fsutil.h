/* fsutil.h - small filesystem helpers shared by every layer. */
#ifndef BELAY_COMMON_FSUTIL_H
#define BELAY_COMMON_FSUTIL_H
#include <stddef.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/err.h"

/* mkdir -p; directories it creates get `mode` (existing ones are left alone). */
int fs_mkdir_p(const char *path, mode_t mode, struct err *e);
/* write(2) until done, retrying EINTR and short writes. Returns 0 or -errno. */
int fs_write_all(int fd, const void *data, size_t n);
/* Reads a whole file (at most max bytes, else BELAY_EINVAL) into out. */
int fs_read_file(const char *path, size_t max, struct buf *out, struct err *e);
/* Reads an open descriptor to its end (at most max bytes, else BELAY_EINVAL) into out. */
int fs_read_fd(int fd, size_t max, struct buf *out, struct err *e);
/* Writes a file atomically (tmp + rename) with mode. */
int fs_write_file_atomic(const char *path, const void *data, size_t n, mode_t mode, struct err *e);
/* Returns a new string "a/b" (caller frees). */
char *fs_join(const char *a, const char *b);
/* Lexical normalisation of an absolute or relative path: collapses //, ., and .. (never
 * above the root for absolute paths). Returns a new string. */
char *fs_normalize(const char *path);
/* 1 if `path` equals `root` or lies beneath it (lexically, component-aligned). */
int fs_is_under(const char *path, const char *root);
/* rm -rf that never follows symlinks; returns 0 or -errno of the first failure. */
int fs_remove_tree(const char *path);
/* Removes everything inside the directory `path` (as fs_remove_tree does), keeping the
 * directory itself - a process whose cwd it is keeps a valid cwd. */
int fs_empty_dir(const char *path);
/* The same for the entry `name` of the open directory dirfd (AT_FDCWD: name is a path). A
 * directory of ours that is read-only or unreadable (a restored tree keeps its modes) is
 * made accessible first. An entry already gone is no failure. */
int fs_remove_at(int dirfd, const char *name);
/* Finds an executable on PATH like execvp would; returns a new string or NULL. */
char *fs_which(const char *name);
/* Creates a fresh private (0700) directory from a template under base ("belay-XXXXXX"). */
char *fs_mkdtemp_in(const char *base, const char *prefix, struct err *e);
/* The best scratch base: /dev/shm when writable, else $TMPDIR, else /tmp. */
const char *fs_scratch_base(void);

#endif
