/* trial_links.h - where a symbolic link of a trial's effect leads: inside the workspace or
 * out of it. Internal to src/trial. The effect shows every link with its target and whether
 * it leaves (trial_effect.c); apply refuses one that leaves unless the person named its path
 * (trial_apply.c: --allow-link PATH), because a link planted in the workspace turns every
 * later write through it - an agent's, a tool's, an allowed one - into a write outside.
 *
 * A target leaves when, resolved from the link's own directory, it ends outside the
 * workspace: an absolute path not beneath the workspace's, a `..` climbing above its root,
 * or - with rootfd given - a link already in the workspace met on the way (resolved the same
 * way, openat-style from rootfd, at most 40 of them) that leaves. Never follows anything
 * outside the workspace; pure reads. Threads: the caller's. */
#ifndef BELAY_TRIAL_TRIAL_LINKS_H
#define BELAY_TRIAL_TRIAL_LINKS_H

/* 1 when the link at rel (a clean relative path in the workspace `scope`, an absolute real
 * path) with this target leads outside it; 0 when it stays. rootfd: the workspace's root
 * directory opened O_NOFOLLOW, or -1 for the target alone (no links of the tree followed). */
int trial_link_leaves(const char *scope, int rootfd, const char *rel, const char *target);

#endif
