/* test_snapshot_incr.c - incremental capture: the stat cache re-reads only changed files,
 * inotify lets a small turn skip the walk, new directories are watched, the full walk is
 * the authority (overflow, tracking off, the periodic walk), what inotify cannot see
 * (shared mmap writes, writes through an outside hardlink) is still captured, and special
 * files are refused by name without being opened. Every capture is checked against a
 * fresh hash of the tree it claims to record. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"
#include "ts_snap.h"
#include "tsupport.h"

static char *base, *ws, *state;
static struct snap_store *st;
static struct snapshotter *sn;

static void setup(void)
{
	ts_snap_setup("snapinc", &base, &ws, &state, &st);
}

static void teardown(void)
{
	ts_snap_teardown(&sn, &st, base, ws, state);
}

TestSuite(incr, .init = setup, .fini = teardown, .timeout = 120);

static void put(const char *rel, const char *content)
{
	ts_put(ws, rel, content);
}

static void open_snapshotter(void)
{
	struct err e = {0};
	cr_assert_eq(snapshotter_open(st, ws, &sn, &e), 0, "%s", e.msg);
}

struct turn {
	char handle[40];
	char walk[16];
	long changed, files;
};

/* Captures; asserts present and that the recorded hash is the tree's hash right now. */
static struct turn turn(void)
{
	cJSON *h = snapshotter_capture(sn);
	char *txt = jx_print(h);
	cr_assert_str_eq(jx_str(h, "status"), "present", "%s", txt);
	char now[SNAP_TREE_HASH_LEN];
	struct err e = {0};
	cr_assert_eq(snap_tree_hash_dir(ws, now, &e), 0, "%s", e.msg);
	cr_assert_str_eq(jx_str(h, "tree_hash"), now, "capture does not match the tree: %s", txt);
	struct turn t;
	snprintf(t.handle, sizeof t.handle, "%s", jx_str(h, "handle"));
	snprintf(t.walk, sizeof t.walk, "%s", jx_str(h, "walk"));
	t.changed = (long)cJSON_GetObjectItem(h, "changed")->valuedouble;
	t.files = (long)cJSON_GetObjectItem(h, "files")->valuedouble;
	/* the stored manifest hashes the same */
	char stored[SNAP_TREE_HASH_LEN];
	cr_assert_eq(snap_tree_hash_handle(st, t.handle, stored, &e), 0, "%s", e.msg);
	cr_assert_str_eq(stored, now, "stored manifest differs: %s", txt);
	free(txt);
	cJSON_Delete(h);
	return t;
}

static void populate(int n)
{
	cr_assert_eq(ts_sh("mkdir -p '%s/d0' '%s/d1' '%s/d2'", ws, ws, ws), 0);
	for (int i = 0; i < n; i++) {
		char rel[64], body[64];
		snprintf(rel, sizeof rel, "d%d/f%03d.txt", i % 3, i);
		snprintf(body, sizeof body, "file %d\n", i);
		put(rel, body);
	}
}

Test(incr, unchanged_files_are_not_read_again_and_a_small_turn_does_not_walk)
{
	populate(60);
	open_snapshotter();
	struct turn t = turn();
	cr_assert_str_eq(t.walk, "full");
	cr_assert_eq(t.changed, 60);
	cr_assert_eq(t.files, 60);
	t = turn();
	cr_assert_str_eq(t.walk, "inotify");
	cr_assert_eq(t.changed, 0);
	put("d1/f001.txt", "changed one\n");
	t = turn();
	cr_assert_str_eq(t.walk, "inotify");
	cr_assert_eq(t.changed, 1, "re-read %ld files for one change", t.changed);
	put("d0/f000.txt", "x");
	put("d2/f002.txt", "y");
	put("d0/new.txt", "z");
	t = turn();
	cr_assert_str_eq(t.walk, "inotify");
	cr_assert_eq(t.changed, 3);
	cr_assert_eq(t.files, 61);
	/* metadata only: chmod is captured without re-reading anything else */
	cr_assert_eq(ts_sh("chmod 600 '%s/d1/f004.txt' && rm '%s/d2/f005.txt'", ws, ws), 0);
	t = turn();
	cr_assert_str_eq(t.walk, "inotify");
	cr_assert_leq(t.changed, 1);
	cr_assert_eq(t.files, 60);
	/* the pre-state of the earlier turn still holds the old content */
	struct buf b = {0};
	struct err e = {0};
	cr_assert_eq(snap_read_file(st, t.handle, "d0/f000.txt", &b, &e), 0, "%s", e.msg);
	cr_assert_str_eq(b.p, "x");
	buf_free(&b);
}

Test(incr, new_directories_are_watched_and_scanned)
{
	populate(3);
	open_snapshotter();
	turn();
	/* a new tree appears between two turns, files created before any watch could exist */
	cr_assert_eq(ts_sh("mkdir -p '%s/a/b/c' && echo deep > '%s/a/b/c/deep.txt' && echo top > '%s/a/top.txt'", ws,
			   ws, ws),
		     0);
	struct turn t = turn();
	cr_assert_str_eq(t.walk, "inotify");
	cr_assert_eq(t.changed, 2);
	/* the new directories are watched now */
	put("a/b/c/later.txt", "later\n");
	t = turn();
	cr_assert_str_eq(t.walk, "inotify");
	cr_assert_eq(t.changed, 1);
	/* move a watched directory: both ends are seen, and it stays watched */
	cr_assert_eq(ts_sh("mv '%s/a/b' '%s/d0/moved'", ws, ws), 0);
	t = turn();
	cr_assert_str_eq(t.walk, "inotify");
	put("d0/moved/c/after-move.txt", "after\n");
	t = turn();
	cr_assert_eq(t.changed, 1);
	/* replace a directory by a file of the same name, and a file by a directory */
	cr_assert_eq(ts_sh("rm -r '%s/d0/moved' && echo f > '%s/d0/moved' && rm '%s/d1/f001.txt' && mkdir "
			   "'%s/d1/f001.txt' && echo in > '%s/d1/f001.txt/in'",
			   ws, ws, ws, ws, ws),
		     0);
	t = turn();
	cr_assert_str_eq(t.walk, "inotify");
}

Test(incr, queue_overflow_falls_back_to_the_full_walk)
{
	populate(3);
	open_snapshotter();
	turn();
	/* far more events than fs.inotify.max_queued_events (16384 here), in a watched dir */
	cr_assert_eq(ts_sh("cd '%s/d1' && for i in $(seq 1 7000); do echo $i > f$i; done", ws), 0);
	struct turn t = turn();
	cr_assert_str_eq(t.walk, "full", "an overflowed queue must not be trusted");
	cr_assert_eq(t.files, 7003);
	put("d0/after.txt", "after\n");
	t = turn();
	cr_assert_str_eq(t.walk, "inotify", "tracking resumes after the authority walk");
	cr_assert_eq(t.changed, 1);
}

Test(incr, without_dirty_tracking_every_turn_walks_and_still_rereads_only_changes)
{
	populate(30);
	open_snapshotter();
	struct snapshotter_policy p;
	snapshotter_policy_default(&p);
	p.inotify = 0;
	snapshotter_set_policy(sn, &p);
	turn();
	put("d2/f002.txt", "changed\n");
	struct turn t = turn();
	cr_assert_str_eq(t.walk, "full");
	cr_assert_eq(t.changed, 1);
	cJSON *h = snapshotter_capture(sn);
	cr_assert_str_eq(jx_str(h, "untracked"), "dirty tracking is off by policy", "the capture says why it walks: %s",
			 jx_print(h));
	cJSON_Delete(h);
}

Test(incr, a_capture_with_dirty_tracking_on_names_no_reason_to_walk)
{
	populate(3);
	open_snapshotter();
	turn();
	cJSON *h = snapshotter_capture(sn);
	cr_assert_str_eq(jx_str(h, "walk"), "inotify");
	cr_assert_null(cJSON_GetObjectItemCaseSensitive(h, "untracked"), "%s", jx_print(h));
	cJSON_Delete(h);
}

Test(incr, the_periodic_authority_walk_runs_on_schedule)
{
	populate(6);
	open_snapshotter();
	struct snapshotter_policy p;
	snapshotter_policy_default(&p);
	p.full_every_turns = 3;
	snapshotter_set_policy(sn, &p);
	const char *want[] = {"full", "inotify", "inotify", "full", "inotify", "inotify", "full"};
	for (int i = 0; i < 7; i++) {
		struct turn t = turn();
		cr_assert_str_eq(t.walk, want[i], "turn %d", i);
	}
}

Test(incr, a_shared_mmap_write_is_captured)
{
	put("mapped.bin", "0123456789abcdef");
	put("kept-open.bin", "0123456789abcdef");
	open_snapshotter();
	struct snapshotter_policy p;
	snapshotter_policy_default(&p);
	p.full_every_turns = 3; /* the periodic authority walk: every third capture */
	p.full_every_ms = 0;
	snapshotter_set_policy(sn, &p);
	cr_assert_str_eq(turn().walk, "full");

	/* (1) written through a mapping that is gone by the next turn: the last reference to
	 * the file is dropped at munmap, which is when IN_CLOSE_WRITE fires */
	char *mp = fs_join(ws, "mapped.bin");
	int fd = open(mp, O_RDWR);
	cr_assert_geq(fd, 0);
	char *m = mmap(NULL, 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert_neq(m, MAP_FAILED);
	close(fd);
	memcpy(m, "MAPPED", 6);
	munmap(m, 16);
	struct turn t = turn();
	cr_assert_str_eq(t.walk, "inotify");
	cr_assert_eq(t.changed, 1);

	/* (2) a mapping that lives across turns raises no event for its writes: inotify cannot
	 * see them (documented in docs/SNAPSHOTS.md); the periodic authority walk does, since
	 * the write moved mtime/ctime */
	char *kp = fs_join(ws, "kept-open.bin");
	fd = open(kp, O_RDWR);
	m = mmap(NULL, 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert_neq(m, MAP_FAILED);
	memcpy(m, "KEPT", 4);
	cJSON *h = snapshotter_capture(sn); /* capture 3: inotify, blind to the mapping */
	cr_assert_str_eq(jx_str(h, "walk"), "inotify");
	cJSON_Delete(h);
	t = turn(); /* capture 4: the scheduled authority walk */
	cr_assert_str_eq(t.walk, "full");
	cr_assert_eq(t.changed, 1);
	struct buf b = {0};
	struct err e = {0};
	cr_assert_eq(snap_read_file(st, t.handle, "kept-open.bin", &b, &e), 0, "%s", e.msg);
	cr_assert_eq(memcmp(b.p, "KEPT", 4), 0, "the authority walk missed the mapped write");
	buf_free(&b);
	munmap(m, 16);
	close(fd);
	free(mp);
	free(kp);
}

Test(incr, a_write_through_a_hardlink_outside_the_tree_is_captured)
{
	put("inside.txt", "original\n");
	char *in = fs_join(ws, "inside.txt"), *out = fs_join(base, "outside-name.txt");
	cr_assert_eq(link(in, out), 0);
	open_snapshotter();
	turn();
	turn();
	usleep(2000);
	ts_write_file(out, "written from outside\n", 21); /* no event inside the workspace */
	struct turn t = turn();
	cr_assert_str_eq(t.walk, "inotify");
	cr_assert_eq(t.changed, 1);
	struct buf b = {0};
	struct err e = {0};
	cr_assert_eq(snap_read_file(st, t.handle, "inside.txt", &b, &e), 0, "%s", e.msg);
	cr_assert_str_eq(b.p, "written from outside\n");
	buf_free(&b);
	free(in);
	free(out);
}

Test(incr, a_file_linked_from_outside_again_after_its_link_went_is_watched_again)
{
	/* A file with an outside name is re-checked every turn (its writes make no event in the
	 * tree); when that name goes it drops out of the re-checked set, and once it is seen again
	 * with a new outside name (here: a chmod through its own name, an event in the tree) it
	 * must be re-checked again. (A new outside name alone raises no event in the tree: that
	 * case waits for the authority walk, docs/SNAPSHOTS.md.) */
	put("inside.txt", "original\n");
	char *in = fs_join(ws, "inside.txt"), *out = fs_join(base, "outside-name.txt"),
	     *out2 = fs_join(base, "outside-again.txt");
	cr_assert_eq(link(in, out), 0);
	open_snapshotter();
	turn();
	cr_assert_eq(unlink(out), 0);
	turn();
	turn(); /* the set is compacted: inside.txt has one name now */
	cr_assert_eq(link(in, out2), 0);
	cr_assert_eq(chmod(in, 0600), 0);
	turn();
	usleep(2000);
	ts_write_file(out2, "written from outside again\n", 27);
	struct turn t = turn();
	cr_assert_eq(t.changed, 1, "the write through the new outside name is captured");
	struct buf b = {0};
	struct err e = {0};
	cr_assert_eq(snap_read_file(st, t.handle, "inside.txt", &b, &e), 0, "%s", e.msg);
	cr_assert_str_eq(b.p, "written from outside again\n");
	buf_free(&b);
	free(in);
	free(out);
	free(out2);
}

/* Watches `path` for opens; returns the inotify fd. */
static int watch_opens(const char *path)
{
	int fd = inotify_init1(IN_NONBLOCK);
	cr_assert_geq(inotify_add_watch(fd, path, IN_OPEN | IN_ACCESS), 0);
	return fd;
}

static void expect_unrestorable(const char *cause, const char *path)
{
	cJSON *h = snapshotter_capture(sn);
	char *txt = jx_print(h);
	cr_assert_str_eq(jx_str(h, "status"), "unrestorable", "%s", txt);
	cr_assert_str_eq(jx_str(h, "cause"), cause, "%s", txt);
	cr_assert_str_eq(jx_str(h, "path"), path, "%s", txt);
	cr_assert_str_eq(jx_str(h, "source"), "lstat", "%s", txt);
	cr_assert(jx_str(h, "detail"));
	free(txt);
	cJSON_Delete(h);
}

Test(incr, a_fifo_is_refused_by_name_and_never_opened)
{
	populate(3);
	char *p = fs_join(ws, "d1/pipe");
	cr_assert_eq(mkfifo(p, 0644), 0);
	int w = watch_opens(p);
	open_snapshotter();
	expect_unrestorable("UNRESTORABLE_FIFO", "d1/pipe");
	put("d0/meanwhile.txt", "m\n");
	expect_unrestorable("UNRESTORABLE_FIFO", "d1/pipe"); /* the incremental path too */
	char evbuf[4096];
	cr_assert_eq(read(w, evbuf, sizeof evbuf), -1, "the FIFO was opened");
	cr_assert_eq(errno, EAGAIN);
	close(w);
	unlink(p);
	struct turn t = turn(); /* gone: present again, with what changed meanwhile */
	cr_assert_eq(t.files, 4);
	free(p);
}

Test(incr, a_socket_is_refused_by_name)
{
	open_snapshotter();
	turn();
	char *p = fs_join(ws, "server.sock");
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", p);
	cr_assert_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
	expect_unrestorable("UNRESTORABLE_SOCKET", "server.sock");
	close(s);
	free(p);
}

Test(incr, a_device_node_is_refused_by_name_and_never_opened)
{
	if (geteuid() != 0)
		cr_skip_test("mknod needs root");
	char *p = fs_join(ws, "null-dev");
	cr_assert_eq(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0);
	int w = watch_opens(p);
	open_snapshotter();
	expect_unrestorable("UNRESTORABLE_DEVICE_NODE", "null-dev");
	char evbuf[4096];
	cr_assert_eq(read(w, evbuf, sizeof evbuf), -1, "the device was opened");
	close(w);
	free(p);
}

Test(incr, a_foreign_owner_is_refused_when_not_root)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to create the foreign-owned entry and drop to another uid");
	/* root creates a root-owned file; a child running as nobody snapshots the workspace */
	put("roots.txt", "owned by root\n");
	char *nobody_state = fs_join(base, "nobody-state");
	cr_assert_eq(ts_sh("chmod 755 '%s' '%s' && chmod 644 '%s/roots.txt' && chown -R 65534:65534 '%s'", base, ws, ws, ws),
		     0);
	cr_assert_eq(ts_sh("chown 0:0 '%s/roots.txt' && mkdir '%s' && chown 65534:65534 '%s'", ws, nobody_state,
			   nobody_state),
		     0);
	pid_t pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
			_exit(10);
		struct err e = {0};
		struct snap_store *s2 = NULL;
		struct snapshotter *n2 = NULL;
		if (snap_store_open(nobody_state, ws, &s2, &e) != 0 || snapshotter_open(s2, ws, &n2, &e) != 0)
			_exit(11);
		cJSON *h = snapshotter_capture(n2);
		int ok = strcmp(jx_str(h, "status"), "unrestorable") == 0 &&
			 strcmp(jx_str(h, "cause"), "UNRESTORABLE_OWNERSHIP") == 0 &&
			 strcmp(jx_str(h, "path"), "roots.txt") == 0;
		cJSON_Delete(h);
		snapshotter_free(n2);
		snap_store_close(s2);
		_exit(ok ? 0 : 12);
	}
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "child exited %d", WEXITSTATUS(status));
	free(nobody_state);
}

static void *capture_thread(void *arg)
{
	(void)arg;
	return snapshotter_capture(sn);
}

Test(incr, capture_runs_on_another_thread)
{
	populate(5);
	open_snapshotter();
	turn();
	put("d0/x.txt", "thread\n");
	pthread_t th;
	void *res = NULL;
	cr_assert_eq(pthread_create(&th, NULL, capture_thread, NULL), 0);
	pthread_join(th, &res);
	cJSON *h = res;
	cr_assert_str_eq(jx_str(h, "status"), "present");
	cr_assert_eq((int)cJSON_GetObjectItem(h, "changed")->valuedouble, 1);
	cJSON_Delete(h);
}
