/* cmd_snapshot.c - `belay snapshot capture|restore|hash|show|diff`: workspace pre-states
 * from the command line (tests, `sandbox check`, inspection). Usage errors exit 2 with one
 * "belay: ..." line; a failed operation exits 1; an unrestorable capture prints its handle
 * and exits 1. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/termsafe.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"

static const struct cli_opt snapshot_opts[] = {
	{"state", 's', 0, "DIR", "belay's state directory, where snapshots are stored (default $XDG_STATE_HOME/belay)"},
	{"allow-name-hazards", 'H', 0, NULL,
	 "restore: also materialise names only a byte-transparent, case-sensitive, non-normalizing destination "
	 "holds (invalid UTF-8, case or normalization twins), which are refused by default"},
	CLI_OPT_END,
};

#define SNAP_SUB(id, sub, syn, what) \
	static const struct cli_cmd id = {.name = "snapshot " sub, .summary = what, .synopsis = syn}
SNAP_SUB(spec_snap_capture, "capture", "WORKSPACE [--state DIR]", "snapshot WORKSPACE now; prints the state handle (JSON)");
SNAP_SUB(spec_snap_restore, "restore", "HANDLE DIR [--state DIR] [--allow-name-hazards]",
	 "materialise a snapshot into DIR (absent or empty)");
SNAP_SUB(spec_snap_hash, "hash", "DIR", "print the BTH-2 tree hash of DIR");
SNAP_SUB(spec_snap_show, "show", "HANDLE [--state DIR]", "list a snapshot's entries");
SNAP_SUB(spec_snap_diff, "diff", "HANDLE (DIR | HANDLE2) [--state DIR]",
	 "what differs between a snapshot and a directory or another snapshot");

const struct cli_cmd cli_snapshot = {
	.name = "snapshot",
	.summary = "capture, restore, hash, show or diff workspace pre-states",
	.about = "The content-addressed pre-state store that belay fills before each tools/call of a contained "
		 "run (docs/SNAPSHOTS.md).",
	.opts = snapshot_opts,
	.subs = (const struct cli_cmd *const[]){&spec_snap_capture, &spec_snap_restore, &spec_snap_hash, &spec_snap_show, &spec_snap_diff, NULL},
};

static int fail(const struct err *e)
{
	fprintf(stderr, "belay: %s\n", e->msg);
	return 1;
}

/* Prints raw path bytes with non-printable bytes as \xNN. */
/* A name from the tree, escaped (common/termsafe.h; a backslash too: "\x5c", so that a
 * listing reads back unambiguously). */
static void print_bytes(const char *p, size_t n)
{
	struct buf b = {0};
	termsafe_append(&b, p, n, TERMSAFE_BACKSLASH);
	fwrite(b.p ? b.p : "", 1, b.len, stdout);
	buf_free(&b);
}

static int show_entry(void *ctx, const struct snap_entry *en)
{
	(void)ctx;
	static const char kinds[] = "?dfl";
	printf("%c %05o %u:%u %10llu %lld ", kinds[en->kind], en->mode, en->uid, en->gid, (unsigned long long)en->size,
	       (long long)en->mtime_ns);
	print_bytes(en->path, en->path_len);
	if (en->target) {
		printf(" -> ");
		print_bytes(en->target, en->target_len);
	}
	if (en->link_group && !(en->link_group_len == en->path_len && !memcmp(en->link_group, en->path, en->path_len))) {
		printf(" => ");
		print_bytes(en->link_group, en->link_group_len);
	}
	if (en->nxattrs)
		printf(" (%zu xattrs)", en->nxattrs);
	putchar('\n');
	return 0;
}

static int open_store(const char *state_opt, const char *refuse, struct snap_store **st, struct err *e)
{
	char *state = paths_state_dir(state_opt);
	int rc = snap_store_open(state, refuse, st, e);
	free(state);
	return rc;
}

int cmd_snapshot(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&cli_snapshot, &P, 0);
	if (argc < 2)
		return cli_fail("snapshot: a subcommand is required (capture, restore, hash, show, diff)");
	const char *sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		cli_help(&cli_snapshot, stdout);
		return 0;
	}
	const char *state = NULL;
	int hazards = 0, c;
	optind = 1;
	opterr = 0;
	argc--;
	argv++;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 's': state = optarg; break;
		case 'H': hazards = 1; break;
		case 'h': cli_help(&cli_snapshot, stdout); return 0;
		default: return cli_fail("snapshot %s: unknown option '%s' (belay snapshot --help)", sub, argv[optind - 1]);
		}
	}
	char **pos = argv + optind;
	int npos = argc - optind;
	struct err e = {0};
	struct snap_store *st = NULL;
	int rc = 0;
	if (!strcmp(sub, "capture")) {
		if (npos != 1)
			return cli_fail("snapshot capture: expected WORKSPACE");
		if (open_store(state, pos[0], &st, &e))
			return fail(&e);
		struct snapshotter *s = NULL;
		if (snapshotter_open(st, pos[0], &s, &e)) {
			snap_store_close(st);
			return fail(&e);
		}
		cJSON *h = snapshotter_capture(s);
		char *txt = jx_print(h);
		printf("%s\n", txt);
		rc = strcmp(jx_str(h, "status"), "present") == 0 ? 0 : 1;
		free(txt);
		cJSON_Delete(h);
		snapshotter_free(s);
	} else if (!strcmp(sub, "restore")) {
		if (npos != 2)
			return cli_fail("snapshot restore: expected HANDLE DIR");
		if (open_store(state, NULL, &st, &e))
			return fail(&e);
		struct snap_restore_opts o = {.allow_name_hazards = hazards};
		if (snap_restore(st, pos[0], pos[1], &o, &e))
			rc = fail(&e);
	} else if (!strcmp(sub, "hash")) {
		if (npos != 1)
			return cli_fail("snapshot hash: expected DIR");
		char h[SNAP_TREE_HASH_LEN];
		if (snap_tree_hash_dir(pos[0], h, &e))
			return fail(&e);
		printf("%s\n", h);
		return 0;
	} else if (!strcmp(sub, "show")) {
		if (npos != 1)
			return cli_fail("snapshot show: expected HANDLE");
		if (open_store(state, NULL, &st, &e))
			return fail(&e);
		char h[SNAP_TREE_HASH_LEN];
		if (snap_tree_hash_handle(st, pos[0], h, &e) == 0) {
			printf("snapshot %s\ntree     %s\n", pos[0], h);
			if (snap_list(st, pos[0], show_entry, NULL, &e))
				rc = fail(&e);
		} else {
			rc = fail(&e);
		}
	} else if (!strcmp(sub, "diff")) {
		if (npos != 2)
			return cli_fail("snapshot diff: expected HANDLE (DIR | HANDLE2)");
		if (open_store(state, NULL, &st, &e))
			return fail(&e);
		struct snap_diff d = {0};
		int r = strchr(pos[1], '/') || !strcmp(pos[1], ".") ? snap_diff_handle_dir(st, pos[0], pos[1], &d, &e)
								       : snap_diff_handles(st, pos[0], pos[1], &d, &e);
		if (r) {
			rc = fail(&e);
		} else {
			for (size_t i = 0; i < d.n; i++) {
				const struct snap_diff_item *it = &d.items[i];
				putchar(it->kind == SNAP_DIFF_ADDED ? '+' : it->kind == SNAP_DIFF_REMOVED ? '-' : '~');
				putchar(' ');
				print_bytes(it->path, it->path_len);
				for (size_t k = 0; k < it->nfields; k++)
					printf("%s%s", k ? "," : " [", it->fields[k]);
				printf("%s\n", it->nfields ? "]" : "");
			}
			rc = d.n ? 1 : 0;
			snap_diff_free(&d);
		}
	} else {
		return cli_fail("snapshot: unknown subcommand '%s' (capture, restore, hash, show, diff)", sub);
	}
	snap_store_close(st);
	return rc;
}
