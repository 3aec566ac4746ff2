/* decode_wrap.c - commands that run other commands: privilege wrappers (sudo, doas, su),
 * environment and scheduling wrappers (env, nice, nohup, timeout, time, stdbuf, ionice,
 * setsid, flock, strace, watch), command/builtin/exec, xargs and find -exec (the command
 * they run, with arguments they feed), shells and eval (their script text is parsed
 * recursively, depth-capped by lower_script), and interpreters (inline code is not
 * analysed: indeterminate).
 *
 * Must not: let a wrapper hide what it runs. Every wrapper either peels to the inner
 * command or says why it cannot. Pure; caller's thread. */
#include "gate/decode.h"

#include <stdio.h>
#include <string.h>

/* Adds NAME=VALUE to a copy of c's environment. */
static void env_push(struct cmd *c, const char *name, const char *val)
{
	struct var *nv = arena_alloc(c->L->a, (c->nenv + 1) * sizeof *nv);
	if (c->nenv)
		memcpy(nv, c->env, c->nenv * sizeof *nv);
	nv[c->nenv].name = name;
	nv[c->nenv].val = val;
	c->env = nv;
	c->nenv++;
}

/* NAME=value words become environment entries; returns 1 when w was one. */
static int env_assignment(struct cmd *c, const struct xword *w)
{
	const char *eq = strchr(w->s, '=');
	if (!eq || eq == w->s)
		return 0;
	for (const char *q = w->s; q < eq; q++)
		if (!(*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		      (q > w->s && *q >= '0' && *q <= '9')))
			return 0;
	const char *name = arena_strndup(c->L->a, w->s, (size_t)(eq - w->s));
	env_push(c, name, eq + 1);
	lower_env_check(c, name, eq + 1);
	return 1;
}

/* Dispatches argv[k..] as the wrapped command. */
static void run_inner(struct cmd *c, size_t k)
{
	if (k >= c->argc)
		return;
	struct cmd sub = lower_subcmd(c, k);
	lower_dispatch(&sub);
	c->out = sub.out;
}

/* Value of a short option: the rest of the cluster or the next word. Advances *i. */
static const struct xword *short_val(struct cmd *c, size_t *i, const char *q)
{
	if (q[1]) {
		struct xword *t = arena_alloc(c->L->a, sizeof *t);
		*t = xw_make(c->L, q + 1);
		return t;
	}
	if (*i + 1 < c->argc)
		return &c->argv[++*i];
	return NULL;
}

/*==== privilege ====*/

void decode_sudo(struct cmd *c, const char *name)
{
	int shell = 0, edit = 0, list = 0, validate = 0, bg = 0;
	const struct xword *chdir = NULL;
	size_t i = 1;
	struct cmd inner = *c;
	for (; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (XM_IS_UNK(s[0])) {
			decode_dynamic_arg(c, name, w);
			return;
		}
		if (s[0] != '-' || !s[1]) {
			if (env_assignment(&inner, w))
				continue;
			break;
		}
		if (s[1] == '-') {
			static const char *const withval[] = {
			    "--user", "--group", "--other-user",      "--prompt", "--close-from", "--chdir",
			    "--role", "--type",	 "--command-timeout", "--host",	  "--chroot",	  NULL};
			static const char *const flags[] = {"--non-interactive",
							    "--preserve-env",
							    "--set-home",
							    "--stdin",
							    "--askpass",
							    "--login",
							    "--shell",
							    "--edit",
							    "--list",
							    "--validate",
							    "--reset-timestamp",
							    "--remove-timestamp",
							    "--background",
							    "--version",
							    "--help",
							    NULL};
			const char *eq = strchr(s, '=');
			char *on = eq ? arena_strndup(c->L->a, s, (size_t)(eq - s)) : (char *)s;
			if (decode_in(on, withval)) {
				const struct xword *v = NULL;
				if (!eq && i + 1 < c->argc)
					v = &c->argv[++i];
				if (!strcmp(on, "--chdir"))
					chdir = eq ? NULL : v;
				if (!strcmp(on, "--chroot")) {
					lower_emit(c, EK_PROC_PRIVILEGE, "sudo --chroot",
						   "runs as root inside another root");
					lower_indet(c, "sudo --chroot",
						    "paths inside a chroot are not the paths written");
					return;
				}
			} else if (decode_in(on, flags)) {
				if (!strcmp(on, "--login") || !strcmp(on, "--shell"))
					shell = 1;
				else if (!strcmp(on, "--edit"))
					edit = 1;
				else if (!strcmp(on, "--list") || !strcmp(on, "--version") || !strcmp(on, "--help") ||
					 !strcmp(on, "--reset-timestamp") || !strcmp(on, "--remove-timestamp"))
					list = 1;
				else if (!strcmp(on, "--validate"))
					validate = 1;
				else if (!strcmp(on, "--background"))
					bg = 1;
			} else {
				lower_indet(c, s, "sudo: option not understood by the gate");
				return;
			}
			continue;
		}
		for (const char *q = s + 1; *q; q++) {
			if (strchr("ugUpCDrtTR", *q)) {
				const struct xword *v = short_val(c, &i, q);
				if (*q == 'D')
					chdir = v;
				if (*q == 'R') {
					lower_emit(c, EK_PROC_PRIVILEGE, "sudo -R", "runs as root inside another root");
					lower_indet(c, "sudo -R", "paths inside a chroot are not the paths written");
					return;
				}
				break;
			}
			if (*q == 'i' || *q == 's')
				shell = 1;
			else if (*q == 'e')
				edit = 1;
			else if (*q == 'l' || *q == 'V' || *q == 'k' || *q == 'K' || *q == 'h')
				list = 1;
			else if (*q == 'v')
				validate = 1;
			else if (*q == 'b')
				bg = 1;
			else if (!strchr("nEHPSAB", *q)) {
				lower_indet(c, s, "sudo: option not understood by the gate");
				return;
			}
		}
	}
	if (i >= c->argc && list && !shell)
		return;
	lower_emit(c, EK_PROC_PRIVILEGE, name, "runs a command with another user's privileges (root by default)");
	if (validate && i >= c->argc)
		return;
	if (edit) {
		for (size_t k = i; k < c->argc; k++)
			lower_path(c, &c->argv[k], GPA_WRITE, 0);
		return;
	}
	if (bg)
		lower_emit(c, EK_PROC_SPAWN, "sudo -b", "runs the command in the background");
	inner.privileged = 1;
	if (chdir) {
		const char *d = xw_lit(chdir);
		if (!d) {
			lower_indet(c, xw_show(c->L, chdir), "sudo --chdir to a directory only known at run time");
			return;
		}
		const char **cd = arena_alloc(c->L->a, sizeof *cd * LOWER_MAX_CWDS);
		int n = 0;
		for (int k = 0; k < (d[0] == '/' ? 1 : c->ncwd); k++)
			cd[n++] = gpath_resolve(c->L->a, d[0] == '/' ? "/" : c->cwd[k], d, strlen(d));
		inner.cwd = cd;
		inner.ncwd = n;
	}
	if (i >= c->argc) {
		if (shell)
			lower_indet(c, name, "opens an interactive root shell");
		return;
	}
	if (shell) {
		char *text = decode_join(&inner, i);
		if (!text) {
			lower_indet(c, name, "sudo -s/-i runs shell text only known at run time");
			return;
		}
		lower_script(&inner, text, strlen(text), NULL, 0, "sudo -s");
		return;
	}
	run_inner(&inner, i);
}

void decode_doas(struct cmd *c, const char *name)
{
	size_t i = 1;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (s[0] != '-')
			break;
		if (!strcmp(s, "-u") || !strcmp(s, "-C") || !strcmp(s, "--user")) {
			i++;
			continue;
		}
		if (!strcmp(s, "-s")) {
			lower_emit(c, EK_PROC_PRIVILEGE, name, "opens a root shell");
			lower_indet(c, name, "opens an interactive root shell");
			return;
		}
		if (strcmp(s, "-n") && strcmp(s, "--disable-internal-agent") && strcmp(s, "--keep-cwd")) {
			lower_indet(c, s, "option not understood by the gate");
			return;
		}
	}
	lower_emit(c, EK_PROC_PRIVILEGE, name, "runs a command with another user's privileges (root by default)");
	struct cmd inner = *c;
	inner.privileged = 1;
	run_inner(&inner, i);
}

void decode_su(struct cmd *c, const char *name)
{
	/* su [-] [-l] [-c CMD] [-s SHELL] [USER [ARGS]] ; runuser [-u USER] [--] CMD ... */
	int runuser = !strcmp(name, "runuser");
	const struct xword *cmdtext = NULL;
	size_t i = 1;
	int user_mode = 0;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (!strcmp(s, "-c") || !strcmp(s, "--command")) {
			if (i + 1 < c->argc)
				cmdtext = &c->argv[++i];
			continue;
		}
		if (!strncmp(s, "--command=", 10)) {
			struct xword *t = arena_alloc(c->L->a, sizeof *t);
			*t = xw_make(c->L, s + 10);
			cmdtext = t;
			continue;
		}
		if (!strcmp(s, "-u") && runuser) {
			i++;
			user_mode = 1;
			continue;
		}
		if (!strcmp(s, "-s") || !strcmp(s, "-g") || !strcmp(s, "-G") || !strcmp(s, "--shell") ||
		    !strcmp(s, "--group")) {
			i++;
			continue;
		}
		if (s[0] == '-')
			continue;
		break;
	}
	lower_emit(c, EK_PROC_PRIVILEGE, name, "runs a command as another user");
	struct cmd inner = *c;
	inner.privileged = 1;
	if (cmdtext) {
		if (!xm_known(cmdtext->s)) {
			lower_indet(c, name, "su -c runs shell text only known at run time");
			return;
		}
		lower_script(&inner, cmdtext->s, cmdtext->n, NULL, 0, "su -c");
		return;
	}
	if (runuser && user_mode && i < c->argc) {
		run_inner(&inner, i);
		return;
	}
	lower_indet(c, name, "opens an interactive shell as another user");
}

void decode_chroot(struct cmd *c, const char *name)
{
	lower_emit(c, EK_PROC_PRIVILEGE, name, "changes the root directory (requires root)");
	lower_indet(c, name, "paths inside a chroot are not the paths on this machine");
}

/*==== environment and scheduling wrappers ====*/

void decode_env(struct cmd *c, const char *name)
{
	struct cmd inner = *c;
	const char *split = NULL;
	size_t i = 1;
	for (; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (XM_IS_UNK(s[0])) {
			decode_dynamic_arg(c, name, w);
			return;
		}
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (!strcmp(s, "-") || !strcmp(s, "-i") || !strcmp(s, "--ignore-environment") || !strcmp(s, "-0") ||
		    !strcmp(s, "--null") || !strcmp(s, "-v") || !strcmp(s, "--debug"))
			continue;
		if (!strcmp(s, "-u") || !strcmp(s, "--unset")) {
			if (i + 1 < c->argc)
				env_push(&inner, c->argv[++i].s, "");
			continue;
		}
		if (!strncmp(s, "--unset=", 8)) {
			env_push(&inner, s + 8, "");
			continue;
		}
		if (!strncmp(s, "-u", 2) && s[2]) {
			env_push(&inner, s + 2, "");
			continue;
		}
		if (!strcmp(s, "-C") || !strcmp(s, "--chdir") || !strncmp(s, "--chdir=", 8) ||
		    (!strncmp(s, "-C", 2) && s[2])) {
			const char *d = !strncmp(s, "--chdir=", 8) ? s + 8 : (s[1] == 'C' && s[2]) ? s + 2 : NULL;
			if (!d && i + 1 < c->argc)
				d = xw_lit(&c->argv[++i]);
			if (!d) {
				lower_indet(c, "env -C", "changes to a directory only known at run time");
				return;
			}
			const char **cd = arena_alloc(c->L->a, sizeof *cd * LOWER_MAX_CWDS);
			int n = 0;
			for (int k = 0; k < (d[0] == '/' ? 1 : c->ncwd); k++)
				cd[n++] = gpath_resolve(c->L->a, d[0] == '/' ? "/" : c->cwd[k], d, strlen(d));
			inner.cwd = cd;
			inner.ncwd = n;
			continue;
		}
		if (!strcmp(s, "-S") || !strcmp(s, "--split-string") || !strncmp(s, "--split-string=", 15) ||
		    (!strncmp(s, "-S", 2) && s[2])) {
			split = !strncmp(s, "--split-string=", 15) ? s + 15 : (s[1] == 'S' && s[2]) ? s + 2 : NULL;
			if (!split && i + 1 < c->argc)
				split = c->argv[++i].s;
			i++;
			break;
		}
		if (s[0] == '-') {
			lower_indet(c, s, "env: option not understood by the gate");
			return;
		}
		if (env_assignment(&inner, w))
			continue;
		break;
	}
	if (i >= c->argc && !split) {
		/* env alone prints the environment */
		struct cmd pe = *c;
		struct xword *argv = arena_alloc(c->L->a, sizeof *argv);
		argv[0] = xw_make(c->L, "printenv");
		pe.argv = argv;
		pe.argc = 1;
		lower_dispatch(&pe);
		return;
	}
	if (split) {
		char *rest = decode_join(c, i);
		if (!xm_known(split) || !rest) {
			lower_indet(c, "env -S", "env -S splits a string only known at run time");
			return;
		}
		char *text = arena_printf(c->L->a, "%s %s", split, rest);
		lower_script(&inner, text, strlen(text), NULL, 0, "env -S");
		return;
	}
	run_inner(&inner, i);
}

void decode_nice(struct cmd *c, const char *name)
{
	(void)name;
	size_t i = 1;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (!strcmp(s, "-n") || !strcmp(s, "--adjustment")) {
			i++;
			continue;
		}
		if (!strncmp(s, "--adjustment=", 13) || (s[0] == '-' && s[1] >= '0' && s[1] <= '9') ||
		    (!strncmp(s, "-n", 2) && s[2]))
			continue;
		break;
	}
	run_inner(c, i);
}

void decode_nohup(struct cmd *c, const char *name)
{
	(void)name;
	size_t i = 1;
	if (i < c->argc && !strcmp(c->argv[i].s, "--"))
		i++;
	if (i >= c->argc)
		return;
	/* nohup appends the output to ./nohup.out when it would go to a terminal */
	lower_path_lit(c, "nohup.out", GPA_WRITE, 0);
	run_inner(c, i);
}

void decode_timeout(struct cmd *c, const char *name)
{
	size_t i = 1;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (!strcmp(s, "-s") || !strcmp(s, "-k") || !strcmp(s, "--signal") || !strcmp(s, "--kill-after")) {
			i++;
			continue;
		}
		if (s[0] == '-' && s[1])
			continue;
		break;
	}
	if (i >= c->argc) {
		(void)name;
		return;
	}
	run_inner(c, i + 1); /* skip DURATION */
}

void decode_time(struct cmd *c, const char *name)
{
	(void)name;
	size_t i = 1;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (!strcmp(s, "-o") || !strcmp(s, "--output")) {
			if (i + 1 < c->argc)
				lower_path(c, &c->argv[++i], GPA_WRITE, 0);
			continue;
		}
		if (!strncmp(s, "--output=", 9)) {
			lower_path_lit(c, s + 9, GPA_WRITE, 0);
			continue;
		}
		if (!strcmp(s, "-f") || !strcmp(s, "--format")) {
			i++;
			continue;
		}
		if (s[0] == '-' && s[1])
			continue;
		break;
	}
	run_inner(c, i);
}

void decode_command_builtin(struct cmd *c, const char *name)
{
	size_t i = 1;
	if (!strcmp(name, "command")) {
		for (; i < c->argc; i++) {
			const char *s = c->argv[i].s;
			if (!strcmp(s, "-v") || !strcmp(s, "-V"))
				return; /* inspection: prints what the name resolves to */
			if (!strcmp(s, "-p"))
				continue;
			if (!strcmp(s, "--")) {
				i++;
				break;
			}
			break;
		}
	}
	if (i >= c->argc)
		return;
	struct cmd sub = lower_subcmd(c, i);
	sub.nofunc = 1;
	lower_dispatch(&sub);
	c->out = sub.out;
}

void decode_exec(struct cmd *c, const char *name)
{
	(void)name;
	size_t i = 1;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "-a")) {
			i++;
			continue;
		}
		if (!strcmp(s, "-c") || !strcmp(s, "-l") || !strcmp(s, "-cl") || !strcmp(s, "-lc"))
			continue;
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		break;
	}
	run_inner(c, i);
}

void decode_stdbuf(struct cmd *c, const char *name)
{
	(void)name;
	size_t i = 1;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "-i") || !strcmp(s, "-o") || !strcmp(s, "-e")) {
			i++;
			continue;
		}
		if (s[0] == '-' && s[1])
			continue;
		break;
	}
	run_inner(c, i);
}

void decode_ionice(struct cmd *c, const char *name)
{
	/* ionice [-c class] [-n level] [-t] cmd | -p PID...; chrt [opts] prio cmd | -p; taskset
	 * [-c] mask cmd | -p */
	int chrt = !strcmp(name, "chrt"), taskset = !strcmp(name, "taskset");
	size_t i = 1;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "-p") || !strcmp(s, "--pid") || !strcmp(s, "-P") || !strcmp(s, "--pgid") ||
		    !strcmp(s, "-u") || !strcmp(s, "--uid") || !strcmp(s, "-a") || !strcmp(s, "--all-tasks")) {
			if (chrt && (!strcmp(s, "-a") || !strcmp(s, "--all-tasks")))
				continue;
			lower_emit(c, EK_PROC_SIGNAL, arena_printf(c->L->a, "%s %s", name, s),
				   "changes the scheduling of processes that are already running");
			return;
		}
		if (!strcmp(s, "-m") || !strcmp(s, "--max"))
			return;
		if (!chrt && !taskset &&
		    (!strcmp(s, "-c") || !strcmp(s, "-n") || !strcmp(s, "--class") || !strcmp(s, "--classdata"))) {
			i++;
			continue;
		}
		if (chrt && (!strcmp(s, "-T") || !strcmp(s, "-P") || !strcmp(s, "-D"))) {
			i++;
			continue;
		}
		if (s[0] == '-' && s[1])
			continue;
		break;
	}
	if (chrt || taskset)
		i++; /* priority / mask */
	run_inner(c, i);
}

void decode_setsid(struct cmd *c, const char *name)
{
	size_t i = 1;
	int fork = 0;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "-f") || !strcmp(s, "--fork"))
			fork = 1;
		else if (s[0] == '-' && s[1])
			continue;
		else
			break;
	}
	if (fork)
		lower_emit(c, EK_PROC_SPAWN, name, "starts the command detached, in the background");
	run_inner(c, i);
}

void decode_watch(struct cmd *c, const char *name)
{
	size_t i = 1;
	int exec = 0;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "-n") || !strcmp(s, "--interval") || !strcmp(s, "-q") || !strcmp(s, "--equexit")) {
			i++;
			continue;
		}
		if (!strcmp(s, "-x") || !strcmp(s, "--exec")) {
			exec = 1;
			continue;
		}
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (s[0] == '-' && s[1])
			continue;
		break;
	}
	if (i >= c->argc)
		return;
	if (exec) {
		run_inner(c, i);
		return;
	}
	char *text = decode_join(c, i);
	if (!text) {
		lower_indet(c, name, "watch runs shell text only known at run time");
		return;
	}
	lower_script(c, text, strlen(text), NULL, 0, "watch");
}

void decode_flock(struct cmd *c, const char *name)
{
	size_t i = 1;
	const struct xword *cmdtext = NULL;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "-w") || !strcmp(s, "--timeout") || !strcmp(s, "-E") ||
		    !strcmp(s, "--conflict-exit-code")) {
			i++;
			continue;
		}
		if (!strcmp(s, "-c") || !strcmp(s, "--command")) {
			if (i + 1 < c->argc)
				cmdtext = &c->argv[++i];
			continue;
		}
		if (s[0] == '-' && s[1])
			continue;
		break;
	}
	if (i >= c->argc)
		return;
	const struct xword *lock = &c->argv[i++];
	const char *l = xw_lit(lock);
	int fd = l && strspn(l, "0123456789") == strlen(l);
	if (!fd)
		lower_path(c, lock, GPA_WRITE, 0);
	for (size_t k = i; k < c->argc && !cmdtext; k++) {
		if (!strcmp(c->argv[k].s, "-c") || !strcmp(c->argv[k].s, "--command")) {
			if (k + 1 < c->argc)
				cmdtext = &c->argv[k + 1];
			i = c->argc;
		}
	}
	if (cmdtext) {
		if (!xm_known(cmdtext->s)) {
			lower_indet(c, name, "flock -c runs shell text only known at run time");
			return;
		}
		lower_script(c, cmdtext->s, cmdtext->n, NULL, 0, "flock -c");
		return;
	}
	run_inner(c, i);
}

void decode_strace(struct cmd *c, const char *name)
{
	size_t i = 1;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (s[0] != '-' || !s[1])
			break;
		if (!strcmp(s, "-o") || !strncmp(s, "--output", 8)) {
			const struct xword *ow = !strchr(s, '=') && i + 1 < c->argc ? &c->argv[++i] : NULL;
			const char *ov = ow ? ow->s : strchr(s, '=') ? strchr(s, '=') + 1 : "";
			/* -o '|cmd' / -o '!cmd' pipes the trace into a command */
			if (ov[0] == '|' || ov[0] == '!' || (ow && XM_IS_UNK(ov[0])))
				lower_indet(c, arena_printf(c->L->a, "%s -o", name), "pipes the trace into a command");
			else if (ow)
				lower_path(c, ow, GPA_WRITE, 0);
			else if (*ov)
				lower_path_lit(c, ov, GPA_WRITE, 0);
			continue;
		}
		if (!strcmp(s, "-p") || !strncmp(s, "--attach", 8)) {
			lower_emit(c, EK_PROC_SIGNAL, arena_printf(c->L->a, "%s -p", name),
				   "attaches to (and can stop) a running process");
			if (!strchr(s, '='))
				i++;
			continue;
		}
		if (!strcmp(s, "-u") || !strcmp(s, "--user")) {
			lower_emit(c, EK_PROC_PRIVILEGE, arena_printf(c->L->a, "%s -u", name), "runs as another user");
			i++;
			continue;
		}
		if (s[1] != '-' && strchr("eEsaIOPSXUbn", s[1]) && !s[2]) {
			i++;
			continue;
		}
	}
	run_inner(c, i);
}

void decode_busybox(struct cmd *c, const char *name)
{
	(void)name;
	if (c->argc < 2 || c->argv[1].s[0] == '-')
		return;
	run_inner(c, 1);
}

/*==== xargs and find ====*/

/* The word standing for "a line of input" to xargs. */
static struct xword input_word(struct cmd *c)
{
	if (c->in.kind == IN_PIPE && c->in.under)
		return xw_under(c->L, c->in.under, c->in.under_nofilter, "{input}");
	return xw_unknown(c->L, "{input}");
}

void decode_xargs(struct cmd *c, const char *name)
{
	const char *repl = NULL;
	size_t i = 1;
	int from_file = 0;
	for (; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (XM_IS_UNK(s[0])) {
			decode_dynamic_arg(c, name, w);
			return;
		}
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (s[0] != '-' || !s[1])
			break;
		if (s[1] == '-') {
			const char *eq = strchr(s, '=');
			if (!strncmp(s, "--replace", 9)) {
				repl = eq ? eq + 1 : "{}";
			} else if (!strncmp(s, "--arg-file", 10)) {
				const struct xword *f = NULL;
				if (!eq && i + 1 < c->argc)
					f = &c->argv[++i];
				if (f)
					lower_path(c, f, GPA_READ, 0);
				else if (eq)
					lower_path_lit(c, eq + 1, GPA_READ, 0);
				from_file = 1;
			} else if (!eq && (!strcmp(s, "--delimiter") || !strcmp(s, "--max-args") ||
					   !strcmp(s, "--max-procs") || !strcmp(s, "--max-chars") ||
					   !strcmp(s, "--process-slot-var") || !strcmp(s, "--eof"))) {
				i++;
			}
			continue;
		}
		for (const char *q = s + 1; *q; q++) {
			if (*q == 'I') {
				const struct xword *v = short_val(c, &i, q);
				repl = v ? v->s : "{}";
				break;
			}
			if (*q == 'i') {
				repl = q[1] ? q + 1 : "{}";
				break;
			}
			if (*q == 'a') {
				const struct xword *v = short_val(c, &i, q);
				if (v)
					lower_path(c, v, GPA_READ, 0);
				from_file = 1;
				break;
			}
			if (strchr("dELnPs", *q)) {
				short_val(c, &i, q);
				break;
			}
			if (*q == 'e' || *q == 'l')
				break; /* optional attached value */
		}
	}
	/* the command (echo by default) and the input it is given */
	struct xword *argv;
	size_t argc;
	struct xword in;
	if (from_file)
		in = xw_unknown(c->L, "{input}");
	else
		in = input_word(c);
	if (i >= c->argc) {
		argv = arena_alloc(c->L->a, 2 * sizeof *argv);
		argv[0] = xw_make(c->L, "echo");
		argv[1] = in;
		argc = 2;
	} else if (repl && *repl) {
		argc = c->argc - i;
		argv = arena_alloc(c->L->a, argc * sizeof *argv);
		size_t rl = strlen(repl);
		for (size_t k = 0; k < argc; k++) {
			struct xword w = c->argv[i + k];
			char *at;
			size_t guard = 0;
			while ((at = strstr(w.s, repl)) != NULL && guard++ < 8)
				w = xw_splice(c->L, &w, (size_t)(at - w.s), rl, &in);
			argv[k] = w;
		}
	} else {
		argc = c->argc - i + 1;
		argv = arena_alloc(c->L->a, argc * sizeof *argv);
		memcpy(argv, c->argv + i, (argc - 1) * sizeof *argv);
		argv[argc - 1] = in;
	}
	struct cmd sub = *c;
	sub.argv = argv;
	sub.argc = argc;
	sub.wrappers = c->wrappers + 1;
	sub.in.kind = IN_FILE; /* the command's stdin is /dev/null or the terminal, not a script */
	sub.in.text = NULL;
	sub.in.under = NULL;
	memset(&sub.out, 0, sizeof sub.out);
	lower_dispatch(&sub);
}

static int is_find_primary_with_arg(const char *s)
{
	static const char *const one[] = {
	    "-name",	 "-iname",  "-path",	"-ipath",    "-wholename", "-iwholename", "-regex", "-iregex",
	    "-lname",	 "-ilname", "-type",	"-xtype",    "-user",	   "-group",	  "-uid",   "-gid",
	    "-perm",	 "-size",   "-mtime",	"-atime",    "-ctime",	   "-mmin",	  "-amin",  "-cmin",
	    "-newer",	 "-anewer", "-cnewer",	"-samefile", "-inum",	   "-links",	  "-used",  "-maxdepth",
	    "-mindepth", "-fstype", "-context", "-printf",   "-regextype", NULL};
	return decode_in(s, one) || !strncmp(s, "-newer", 6);
}

static int is_find_name_test(const char *s)
{
	static const char *const t[] = {"-name",       "-iname", "-path",   "-ipath", "-wholename",
					"-iwholename", "-regex", "-iregex", NULL};
	return decode_in(s, t);
}

static int is_find_flag(const char *s)
{
	static const char *const f[] = {"-print",
					"-print0",
					"-ls",
					"-prune",
					"-quit",
					"-depth",
					"-d",
					"-follow",
					"-xdev",
					"-mount",
					"-noleaf",
					"-daystart",
					"-ignore_readdir_race",
					"-noignore_readdir_race",
					"-warn",
					"-nowarn",
					"-true",
					"-false",
					"-empty",
					"-executable",
					"-readable",
					"-writable",
					"-nouser",
					"-nogroup",
					"-a",
					"-and",
					"(",
					")",
					",",
					NULL};
	return decode_in(s, f);
}

struct exec_clause {
	size_t from, to; /* argv[from..to) */
	int dir;	 /* -execdir / -okdir */
};

void decode_find(struct cmd *c, const char *name)
{
	size_t i = 1;
	while (i < c->argc) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "-H") || !strcmp(s, "-L") || !strcmp(s, "-P") || !strncmp(s, "-O", 2)) {
			i++;
		} else if (!strcmp(s, "-D")) {
			i += 2;
		} else {
			break;
		}
	}
	const struct xword **starts = arena_alloc(c->L->a, (c->argc + 1) * sizeof *starts);
	size_t nstarts = 0;
	while (i < c->argc) {
		const char *s = c->argv[i].s;
		if ((s[0] == '-' && s[1]) || !strcmp(s, "(") || !strcmp(s, "!") || !strcmp(s, ","))
			break;
		starts[nstarts++] = &c->argv[i++];
	}
	struct xword dot = xw_make(c->L, ".");
	if (!nstarts)
		starts[nstarts++] = &dot;
	int has_name = 0, weak = 0, del = 0, acts = 0;
	struct exec_clause ex[8];
	size_t nex = 0;
	for (; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (XM_IS_UNK(s[0])) {
			decode_dynamic_arg(c, name, w);
			continue;
		}
		if (!strcmp(s, "-exec") || !strcmp(s, "-execdir") || !strcmp(s, "-ok") || !strcmp(s, "-okdir")) {
			size_t from = i + 1, k = from;
			while (k < c->argc && strcmp(c->argv[k].s, ";") && strcmp(c->argv[k].s, "+"))
				k++;
			if (k >= c->argc) {
				lower_indet(c, s, "find: -exec without its terminating ';' or '+'");
				return;
			}
			if (nex < 8)
				ex[nex++] = (struct exec_clause){from, k, strstr(s, "dir") != NULL};
			acts = 1;
			i = k;
			continue;
		}
		if (!strcmp(s, "-delete")) {
			del = 1;
			acts = 1;
			continue;
		}
		if (!strcmp(s, "-fprint") || !strcmp(s, "-fprint0") || !strcmp(s, "-fls") || !strcmp(s, "-fprintf")) {
			if (i + 1 < c->argc)
				lower_path(c, &c->argv[i + 1], GPA_WRITE, 0);
			i += !strcmp(s, "-fprintf") ? 2 : 1;
			continue;
		}
		if (!strcmp(s, "-files0-from")) {
			if (i + 1 < c->argc)
				lower_path(c, &c->argv[++i], GPA_READ, 0);
			lower_indet(c, "find -files0-from", "find reads its starting points from a file");
			continue;
		}
		if (!strcmp(s, "-o") || !strcmp(s, "-or") || !strcmp(s, "!") || !strcmp(s, "-not")) {
			weak = 1;
			continue;
		}
		if (is_find_primary_with_arg(s)) {
			if (is_find_name_test(s))
				has_name = 1;
			i++;
			continue;
		}
		if (is_find_flag(s))
			continue;
		lower_indet(c, s, arena_printf(c->L->a, "find: primary %s is not understood by the gate", s));
	}
	int nofilter = !(has_name && !weak);
	for (size_t k = 0; k < nstarts; k++) {
		const struct xword *sw = starts[k];
		lower_path(c, sw, GPA_META, 1);
		/* the start as an absolute directory, for "a path beneath it" */
		const char *abs = NULL;
		const char *lit = xw_lit(sw);
		if (lit && lit[0] == '/')
			abs = gpath_resolve(c->L->a, "/", lit, strlen(lit));
		else if (lit && c->ncwd == 1)
			abs = gpath_resolve(c->L->a, c->cwd[0], lit, strlen(lit));
		struct xword found = abs ? xw_under(c->L, abs, nofilter, "{}") : xw_unknown(c->L, "{}");
		if (del) {
			lower_path(c, &found, GPA_DESTROY, 1);
			if (nofilter)
				lower_path(c, sw, GPA_DESTROY, 1);
		}
		for (size_t e = 0; e < nex; e++) {
			size_t argc = ex[e].to - ex[e].from;
			if (!argc)
				continue;
			struct xword *argv = arena_alloc(c->L->a, argc * sizeof *argv);
			for (size_t a = 0; a < argc; a++) {
				struct xword w = c->argv[ex[e].from + a];
				char *at;
				size_t guard = 0;
				while ((at = strstr(w.s, "{}")) != NULL && guard++ < 8)
					w = xw_splice(c->L, &w, (size_t)(at - w.s), 2, &found);
				argv[a] = w;
			}
			struct cmd sub = *c;
			sub.argv = argv;
			sub.argc = argc;
			sub.wrappers = c->wrappers + 1;
			sub.in.kind = IN_FILE;
			sub.in.text = NULL;
			sub.in.under = NULL;
			if (ex[e].dir)
				sub.ncwd = 0; /* runs in each found file's directory */
			memset(&sub.out, 0, sizeof sub.out);
			lower_dispatch(&sub);
		}
		if (!acts && nstarts == 1 && abs) {
			c->out.kind = OUT_UNDER;
			c->out.under = abs;
			c->out.nofilter = nofilter;
		}
	}
}

/*==== shells and scripts ====*/

void decode_shell(struct cmd *c, const char *name)
{
	int other_syntax = !strcmp(name, "fish") || !strcmp(name, "csh") || !strcmp(name, "tcsh");
	int cmode = 0, noexec = 0, stdin_mode = 0;
	size_t i = 1;
	for (; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (XM_IS_UNK(s[0])) {
			decode_dynamic_arg(c, name, w);
			return;
		}
		if (!strcmp(s, "--") || !strcmp(s, "-")) {
			i++;
			break;
		}
		if ((s[0] != '-' && s[0] != '+') || !s[1])
			break;
		if (s[1] == '-') {
			if (!strcmp(s, "--rcfile") || !strcmp(s, "--init-file")) {
				i++;
				lower_indet(c, s,
					    "the shell reads start-up commands from a file the gate does not read");
			} else if (!strcmp(s, "--command")) {
				cmode = 1;
			}
			continue;
		}
		for (const char *q = s + 1; *q; q++) {
			if (*q == 'c')
				cmode = 1;
			else if (*q == 'n')
				noexec = 1;
			else if (*q == 's')
				stdin_mode = 1;
			else if (*q == 'o' || *q == 'O') {
				i++;
				break;
			}
		}
	}
	if (cmode) {
		if (i >= c->argc) {
			lower_indet(c, name, "-c without a command string");
			return;
		}
		if (noexec)
			return;
		const struct xword *script = &c->argv[i];
		if (other_syntax) {
			lower_indet(c, name, arena_printf(c->L->a, "%s syntax is not analysed by the gate", name));
			return;
		}
		if (!xm_known(script->s)) {
			lower_indet(c, xw_show(c->L, script),
				    arena_printf(c->L->a, "%s -c runs shell text only known at run time", name));
			return;
		}
		/* $0 is the word after the script, then $1... */
		size_t npos = c->argc - i - 1;
		struct xword *pos = arena_alloc(c->L->a, (npos + 1) * sizeof *pos);
		pos[0] = npos ? c->argv[i + 1] : xw_make(c->L, name);
		for (size_t k = 1; k < npos; k++)
			pos[k] = c->argv[i + 1 + k];
		lower_script(c, script->s, script->n, pos, npos ? npos : 1, arena_printf(c->L->a, "%s -c", name));
		return;
	}
	if (i < c->argc && !stdin_mode) {
		const struct xword *file = &c->argv[i];
		lower_path(c, file, GPA_READ, 0);
		if (noexec)
			return; /* bash -n: syntax check only */
		lower_indet(c, xw_show(c->L, file),
			    arena_printf(c->L->a, "%s runs a script file whose contents the gate does not read", name));
		return;
	}
	if (noexec)
		return;
	/* the script comes from stdin */
	switch (c->in.kind) {
	case IN_HEREDOC:
	case IN_STRING:
		if (other_syntax) {
			lower_indet(c, name, arena_printf(c->L->a, "%s syntax is not analysed by the gate", name));
			return;
		}
		if (!c->in.text) {
			lower_indet(c, name, "the shell reads a here-document whose text is only known at run time");
			return;
		}
		{
			size_t npos = c->argc - i + 1;
			struct xword *pos = arena_alloc(c->L->a, npos * sizeof *pos);
			pos[0] = xw_make(c->L, name);
			for (size_t k = 1; k < npos; k++)
				pos[k] = c->argv[i + k - 1];
			struct cmd sub = *c;
			sub.in.kind = IN_INHERIT;
			lower_script(&sub, c->in.text, strlen(c->in.text), pos, npos,
				     arena_printf(c->L->a, "%s here-document", name));
		}
		return;
	case IN_PIPE:
		lower_indet(c, arena_printf(c->L->a, "| %s", name),
			    "pipes data into a shell: the commands it runs are only known at run time");
		return;
	case IN_FILE:
		lower_indet(c, name, "the shell runs commands read from a file the gate does not read");
		return;
	case IN_INHERIT:
		lower_indet(c, name, "starts a shell that reads commands from its input");
		return;
	}
}

void decode_eval(struct cmd *c, const char *name)
{
	if (c->argc < 2)
		return;
	char *text = decode_join(c, 1);
	if (!text) {
		lower_indet(c, name, "eval of text only known at run time");
		return;
	}
	lower_script(c, text, strlen(text), NULL, 0, "eval");
}

void decode_source(struct cmd *c, const char *name)
{
	if (c->argc < 2)
		return;
	const struct xword *f = &c->argv[1];
	const char *lit = xw_lit(f);
	if (lit && (!strcmp(lit, "/dev/stdin") || !strcmp(lit, "-")) &&
	    (c->in.kind == IN_HEREDOC || c->in.kind == IN_STRING) && c->in.text) {
		struct cmd sub = *c;
		sub.in.kind = IN_INHERIT;
		lower_script(&sub, c->in.text, strlen(c->in.text), NULL, 0, "source here-document");
		return;
	}
	lower_path(c, f, GPA_READ, 0);
	lower_indet(c, xw_show(c->L, f),
		    arena_printf(c->L->a, "%s runs the commands in a file the gate does not read", name));
}

void decode_trap(struct cmd *c, const char *name)
{
	size_t i = 1;
	if (i < c->argc && !strcmp(c->argv[i].s, "--"))
		i++;
	if (i >= c->argc || (c->argv[i].s[0] == '-' && c->argv[i].s[1]))
		return;
	if (c->argc - i < 2)
		return; /* trap SIG: resets */
	const struct xword *action = &c->argv[i];
	if (!xm_known(action->s)) {
		lower_indet(c, name, "trap installs shell text only known at run time");
		return;
	}
	if (!strcmp(action->s, "-") || !action->s[0])
		return;
	lower_script(c, action->s, action->n, NULL, 0, "trap");
}

/*==== interpreters ====*/

static void python_module(struct cmd *c, const char *mod, size_t next)
{
	static const char *const tests[] = {"pytest", "unittest", "doctest", NULL};
	static const char *const linters[] = {"mypy",	     "pylint",	   "flake8", "pyflakes",
					      "pycodestyle", "pydocstyle", "bandit", NULL};
	if (decode_in(mod, tests)) {
		lower_emit(c, EK_PROC_SPAWN, mod, "runs the workspace's tests (workspace code)");
		return;
	}
	if (decode_in(mod, linters)) {
		lower_emit(c, EK_PROC_SPAWN, mod, "runs a linter over workspace files");
		return;
	}
	if (!strcmp(mod, "pip")) {
		struct cmd sub = lower_subcmd(c, next - 1);
		struct xword *argv = arena_alloc(c->L->a, (sub.argc ? sub.argc : 1) * sizeof *argv);
		memcpy(argv, sub.argv, sub.argc * sizeof *argv);
		argv[0] = xw_make(c->L, "pip");
		sub.argv = argv;
		decode_pip(&sub, "pip");
		return;
	}
	if (!strcmp(mod, "json.tool")) {
		size_t n = 0;
		for (size_t k = next; k < c->argc; k++) {
			if (c->argv[k].s[0] == '-')
				continue;
			lower_path(c, &c->argv[k], n == 0 ? GPA_READ : GPA_WRITE, 0);
			n++;
		}
		return;
	}
	if (!strcmp(mod, "venv") || !strcmp(mod, "virtualenv")) {
		for (size_t k = next; k < c->argc; k++)
			if (c->argv[k].s[0] != '-')
				lower_path(c, &c->argv[k], GPA_WRITE, 1);
		return;
	}
	if (!strcmp(mod, "black") || !strcmp(mod, "ruff") || !strcmp(mod, "isort")) {
		struct cmd sub = lower_subcmd(c, next - 1);
		decode_formatter(&sub, mod);
		return;
	}
	lower_indet(c, arena_printf(c->L->a, "python -m %s", mod),
		    arena_printf(c->L->a, "runs the Python module %s, whose effects the gate does not know", mod));
}

void decode_interp(struct cmd *c, const char *name)
{
	if (c->argc == 2) {
		const char *a = xw_lit(&c->argv[1]);
		static const char *const ver[] = {"-V", "-v", "--version", "-version", "-h", "--help", "-help", NULL};
		if (a && decode_in(a, ver) && strcmp(name, "java") != 0)
			return;
		if (a && !strcmp(name, "java") && (!strcmp(a, "-version") || !strcmp(a, "--version")))
			return;
	}
	int py = !strncmp(name, "python", 6) || !strncmp(name, "pypy", 4);
	int node = !strcmp(name, "node") || !strcmp(name, "nodejs");
	for (size_t i = 1; node && i < c->argc; i++) {
		/* options that load code before anything else runs (even --check or --test) */
		const char *s = c->argv[i].s;
		static const char *const preload[] = {"-r",	      "--require", "--import", "--loader",
						      "--experimental-loader", "--env-file", "--env-file-if-exists",
						      "--experimental-policy", "--inspect", "--inspect-brk", NULL};
		for (int k = 0; preload[k]; k++) {
			size_t l = strlen(preload[k]);
			if (!strncmp(s, preload[k], l) && (s[l] == '\0' || s[l] == '=' || (l == 2 && s[l]))) {
				lower_indet(c, arena_printf(c->L->a, "%s %s", name, preload[k]),
					    "loads code (or opens a debugger) before the program runs");
				return;
			}
		}
	}
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (XM_IS_UNK(s[0])) {
			decode_dynamic_arg(c, name, w);
			return;
		}
		if (s[0] != '-' || !s[1]) {
			if (!strcmp(s, "-"))
				break;
			lower_path(c, w, GPA_READ, 0);
			lower_indet(
			    c, xw_show(c->L, w),
			    arena_printf(c->L->a, "%s runs a program file whose code the gate does not analyse", name));
			return;
		}
		if (py && !strcmp(s, "-m") && i + 1 < c->argc) {
			python_module(c, c->argv[i + 1].s, i + 2);
			return;
		}
		if (py && !strncmp(s, "-m", 2) && s[2]) {
			python_module(c, s + 2, i + 1);
			return;
		}
		if (node && (!strcmp(s, "--check") || !strcmp(s, "-c")) && i + 1 < c->argc) {
			lower_path(c, &c->argv[i + 1], GPA_READ, 0);
			return;
		}
		if (node && !strcmp(s, "--test")) {
			lower_emit(c, EK_PROC_SPAWN, "node --test", "runs the workspace's tests (workspace code)");
			return;
		}
		if ((py && (!strcmp(s, "-c") || (s[1] == 'c' && s[2] == '\0'))) ||
		    (!py && (!strcmp(s, "-e") || !strcmp(s, "-E") || !strcmp(s, "--eval") || !strcmp(s, "-p") ||
			     !strcmp(s, "--print") || !strcmp(s, "-r") || !strcmp(s, "-c"))) ||
		    (py && strchr(s, 'c') && s[1] != '-')) {
			lower_indet(c, name,
				    arena_printf(c->L->a, "%s runs inline code the gate does not analyse", name));
			return;
		}
		if (py && (!strcmp(s, "-W") || !strcmp(s, "-X"))) {
			/* -W action::module.Category imports that module */
			if (!strcmp(s, "-W") && i + 1 < c->argc && strchr(c->argv[i + 1].s, '.')) {
				lower_indet(c, "python -W", "a warning filter that names a module Python imports");
				return;
			}
			i++;
		}
		if (py && !strncmp(s, "-W", 2) && s[2] && strchr(s, '.')) {
			lower_indet(c, "python -W", "a warning filter that names a module Python imports");
			return;
		}
	}
	lower_indet(c, name,
		    arena_printf(c->L->a, "%s reads a program from its input; the gate does not analyse it", name));
}
