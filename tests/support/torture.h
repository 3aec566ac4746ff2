/* torture.h - the torture tree (sandbox-spec §5, extended): every property a faithful
 * snapshot/restore must keep, built deterministically (mtimes included) so two builds at
 * different roots hash identically. Needs user.* xattrs and sparse files (tmpfs >= 6.6,
 * ext4, xfs, btrfs). */
#ifndef BELAY_TESTS_TORTURE_H
#define BELAY_TESTS_TORTURE_H

#define TORTURE_MTIME_BASE 1700000000000000000LL

enum {
	TORTURE_NON_UTF8 = 1,      /* add "caf\xe9.bin" (a name that is not UTF-8) */
	TORTURE_FOREIGN_OWNER = 2, /* as root: "owned.txt" chowned to 4242:4243 */
};

/* Builds the tree under root (an existing empty directory). Aborts the test on failure. */
void torture_build(const char *root, unsigned flags);
/* The NFD name of the café file (bytes 63 61 66 65 CC 81). */
extern const char torture_cafe_nfd[];

#endif
