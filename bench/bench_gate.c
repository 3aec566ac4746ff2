/* bench_gate.c - classification cost of the effect gate. Generates a deterministic corpus
 * of varied shell commands (pipelines, nested substitutions, here-documents, wrapper
 * chains, loops, find -exec, xargs, sh -c, long argument lists) and of MCP tool calls,
 * classifies each one, and reports median / p90 / p99 / max in microseconds per call
 * (plan built and freed; JSON rendering is measured separately).
 *
 * usage: bench_gate [N_COMMANDS (10000)] [SEED (1)] [ROUNDS (3)] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/xalloc_cjson.h"
#include "gate/gate.h"

static uint64_t rng_state;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static const char *pick(const char *const *v, size_t n)
{
	return v[rnd() % n];
}
#define PICK(v) pick(v, sizeof v / sizeof v[0])

static const char *const files[] = {
    "README.md",	   "src/bin/belay.c",       "src/gate/lower.c", "package.json", "docs/GATE.md",
    "../shared/notes.txt", "/etc/hosts",       "build/out.o",	   ".env",	   "tests/unit/test_x.c",
    "~/.bashrc",	   "/tmp/scratch.txt", "lib/util.js",	   "Cargo.toml",   "go.mod"};
static const char *const dirs[] = {".", "src", "tests", "/tmp", "..", "build", "docs", "~", "lib/vendor"};
static const char *const pats[] = {"TODO", "'fn main'", "\"error: .*\"", "-e foo -e bar", "'^import '", "token"};
static const char *const simple[] = {"git status",
				     "git log --oneline -20",
				     "git diff --stat",
				     "ls -la",
				     "pwd",
				     "git branch -a",
				     "npm test",
				     "go test ./...",
				     "make -n",
				     "cargo build --offline",
				     "docker ps",
				     "kubectl get pods",
				     "curl -fsS https://example.com/health",
				     "wget -q https://example.com/x.tgz",
				     "git push origin main",
				     "git commit -am wip",
				     "rm -rf build",
				     "mkdir -p out/dir",
				     "touch stamp",
				     "python3 -m pytest -q",
				     "node --version",
				     "jq .version package.json",
				     "gh pr list",
				     "tsc --noEmit",
				     "sed -n 1,20p README.md"};
static const char *const wrappers[] = {"sudo",	  "env A=1 B=2", "nice -n 5",	"nohup",  "timeout 30", "time",
				       "command", "stdbuf -oL",	 "ionice -c 3", "setsid", "exec"};

static const char *const kinds[] = {"pipeline",	 "substitutions", "heredoc>file",   "heredoc|bash", "wrappers",
				    "long argv", "find/xargs",	  "loop+if",	    "sh -c",	    "and/or chain",
				    "curl POST", "vars+function", "case+redirects", "simple",	    "arithmetic",
				    "env+options"};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))
static int last_kind;

static void gen_command(struct buf *b)
{
	buf_reset(b);
	last_kind = (int)(rnd() % (uint32_t)NKINDS);
	switch (last_kind) {
	case 0: /* pipeline */
		buf_printf(b, "cat %s | grep %s | sort | uniq -c | sort -rn | head -n %u", PICK(files), PICK(pats),
			   rnd() % 50 + 1);
		break;
	case 1: /* nested substitutions */
		buf_printf(
		    b,
		    "echo \"$(git rev-parse --short HEAD)-$(date +%%s)\" > %s/version-$(echo $(basename $(pwd))).txt",
		    PICK(dirs));
		break;
	case 2: { /* here-document to a file */
		buf_printf(b, "cat <<'EOF' > %s\n", PICK(files));
		unsigned lines = rnd() % 20 + 1;
		for (unsigned i = 0; i < lines; i++)
			buf_printf(b, "line %u: rm -rf / ; $(touch x) `id` %s\n", i, PICK(simple));
		buf_puts(b, "EOF\n");
		break;
	}
	case 3: { /* here-document to a shell */
		buf_puts(b, "bash <<EOF\nset -e\n");
		unsigned lines = rnd() % 8 + 1;
		for (unsigned i = 0; i < lines; i++)
			buf_printf(b, "%s\n", PICK(simple));
		buf_puts(b, "EOF\n");
		break;
	}
	case 4: { /* wrapper chains */
		unsigned n = rnd() % 5 + 1;
		for (unsigned i = 0; i < n; i++)
			buf_printf(b, "%s ", PICK(wrappers));
		buf_puts(b, PICK(simple));
		break;
	}
	case 5: { /* long argument lists */
		buf_puts(b, "rm -f");
		unsigned n = rnd() % 60 + 10;
		for (unsigned i = 0; i < n; i++)
			buf_printf(b, " build/obj/module_%u/file_with_a_rather_long_name_%u.o", rnd() % 100, i);
		break;
	}
	case 6: /* find -exec / xargs */
		if (rnd() % 2)
			buf_printf(b, "find %s -name '*.%s' -type f -exec grep -l %s {} +", PICK(dirs),
				   rnd() % 2 ? "c" : "log", PICK(pats));
		else
			buf_printf(b, "find %s -name '*.tmp' -print0 | xargs -0 -n 20 rm -f", PICK(dirs));
		break;
	case 7: /* loops and conditionals */
		buf_printf(
		    b, "for f in %s/*.c; do if grep -q %s \"$f\"; then echo \"$f\"; else touch \"$f.skip\"; fi; done",
		    PICK(dirs), PICK(pats));
		break;
	case 8: /* sh -c nesting */
		buf_printf(b, "sh -c 'cd %s && bash -c \"%s\"'", PICK(dirs), PICK(simple));
		break;
	case 9: /* and/or chains */
		buf_printf(b, "%s && %s || %s; %s", PICK(simple), PICK(simple), PICK(simple), PICK(simple));
		break;
	case 10: /* curl with data */
		buf_printf(b,
			   "curl -sS -X POST -H 'Content-Type: application/json' -d '{\"k\":%u}' "
			   "https://api%u.example.com/v1/items",
			   rnd(), rnd() % 10);
		break;
	case 11: /* variables and functions */
		buf_printf(b, "OUT=%s; build() { mkdir -p \"$OUT\" && cp -r src \"$OUT/\"; }; build && ls \"$OUT\"",
			   PICK(dirs));
		break;
	case 12: /* case + redirects */
		buf_printf(b,
			   "case \"$1\" in start) %s 2>&1 | tee -a log.txt;; stop) kill %u;; *) echo usage >&2;; esac",
			   PICK(simple), rnd() % 30000);
		break;
	case 14: /* arithmetic, arrays and read: every value is checked before it is evaluated */
		buf_printf(b,
			   "i=0; n=$(wc -l < %s); arr=(a b c); for f in src/*.c; do i=$((i + 1)); "
			   "[[ $i -gt %u ]] && break; echo \"${arr[i %% 3]}\" $((n * i)); done; "
			   "while IFS= read -r line; do echo \"$line\"; done < %s",
			   PICK(files), rnd() % 20 + 1, PICK(files));
		break;
	case 15: /* variables that name programs and options that run them */
		buf_printf(b,
			   "GIT_PAGER=cat git -c color.ui=never -c core.quotepath=off log --oneline -%u | head; "
			   "NODE_OPTIONS=--max-old-space-size=4096 PATH=\"$PATH:$HOME/go/bin\" %s; "
			   "tar -czf out.tgz --exclude=.git %s && less +G %s",
			   rnd() % 50 + 1, PICK(simple), PICK(dirs), PICK(files));
		break;
	case 13:
	default:
		buf_puts(b, PICK(simple));
	}
}

static const char *const ro_ann = "{\"readOnlyHint\":true}";
static const char *const wr_ann = "{\"readOnlyHint\":false,\"destructiveHint\":true}";

static void gen_tool(struct buf *name, struct buf *args, const char **ann)
{
	buf_reset(name);
	buf_reset(args);
	switch (rnd() % 6) {
	case 0:
		buf_puts(name, "write_file");
		buf_printf(args, "{\"path\":\"/ws/proj/%s\",\"content\":\"%u\"}", PICK(files), rnd());
		*ann = wr_ann;
		break;
	case 1:
		buf_puts(name, "read_text_file");
		buf_printf(args, "{\"path\":\"%s\"}", PICK(files));
		*ann = ro_ann;
		break;
	case 2:
		buf_puts(name, "move_file");
		buf_printf(args, "{\"source\":\"/ws/proj/%s\",\"destination\":\"%s/x\"}", PICK(files), PICK(dirs));
		*ann = wr_ann;
		break;
	case 3: {
		struct buf cmd = {0};
		gen_command(&cmd);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "command_line", buf_cstr(&cmd));
		char *s = cJSON_PrintUnformatted(o);
		buf_puts(name, "run_process");
		buf_puts(args, s);
		free(s);
		cJSON_Delete(o);
		buf_free(&cmd);
		*ann = NULL;
		break;
	}
	case 4:
		buf_puts(name, "read_multiple_files");
		buf_printf(args, "{\"paths\":[\"%s\",\"%s\",\"%s\"]}", PICK(files), PICK(files), PICK(files));
		*ann = ro_ann;
		break;
	default:
		buf_puts(name, "mystery_tool");
		buf_printf(args, "{\"q\":\"%u\"}", rnd());
		*ann = NULL;
	}
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *what, double *t, size_t n)
{
	qsort(t, n, sizeof *t, cmp_d);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += t[i];
	printf("%-28s n=%zu  median %.2f us  p90 %.2f us  p99 %.2f us  max %.2f us  mean %.2f us\n", what, n, t[n / 2],
	       t[(size_t)(n * 0.90)], t[(size_t)(n * 0.99)], t[n - 1], sum / (double)n);
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
	int rounds = argc > 3 ? atoi(argv[3]) : 3;
	if (!n || !rng_state || rounds < 1) {
		fprintf(stderr, "usage: bench_gate [N] [SEED>0] [ROUNDS]\n");
		return 2;
	}
	const struct gate_ctx ctx = {"/ws/proj", "/ws/proj/src", "/home/u", "/home/u/.local/state/belay", NULL};
	char **cmds = calloc(n, sizeof *cmds);
	int *kind = calloc(n, sizeof *kind);
	size_t *lens = calloc(n, sizeof *lens);
	size_t total = 0, longest = 0;
	struct buf b = {0};
	for (size_t i = 0; i < n; i++) {
		gen_command(&b);
		kind[i] = last_kind;
		lens[i] = b.len;
		cmds[i] = strdup(buf_cstr(&b));
		total += b.len;
		if (b.len > longest)
			longest = b.len;
	}
	printf("corpus: %zu commands, mean %.0f bytes, longest %zu bytes, seed %llu\n", n, (double)total / (double)n,
	       longest, (unsigned long long)(argc > 2 ? strtoull(argv[2], NULL, 10) : 1));
	double *t = calloc(n, sizeof *t);
	size_t counts[4] = {0};
	/* warm-up round, then the measured rounds; each command's time is its best round */
	for (size_t i = 0; i < n; i++)
		t[i] = 1e18;
	for (int r = 0; r <= rounds; r++) {
		for (size_t i = 0; i < n; i++) {
			double t0 = now_us();
			struct effect_plan *p = gate_plan_command(cmds[i], lens[i], &ctx);
			double dt = now_us() - t0;
			if (r == 0)
				counts[effect_plan_decision(p)]++;
			effect_plan_free(p);
			if (r > 0 && dt < t[i])
				t[i] = dt;
		}
	}
	printf("decisions: allow %zu, allow_flagged %zu, ask %zu, deny %zu\n", counts[0], counts[1], counts[2],
	       counts[3]);
	/* BENCH_GATE_DUMP=FILE: every command with its decision, to compare two builds */
	const char *dump = getenv("BENCH_GATE_DUMP");
	if (dump) {
		FILE *df = fopen(dump, "w");
		for (size_t i = 0; df && i < n; i++) {
			struct effect_plan *p = gate_plan_command(cmds[i], lens[i], &ctx);
			fprintf(df, "%s\t", gate_decision_name(effect_plan_decision(p)));
			for (const char *q = cmds[i]; *q; q++)
				fputs(*q == '\n' ? "\\n" : (char[]){*q, 0}, df);
			fputc('\n', df);
			effect_plan_free(p);
		}
		if (df)
			fclose(df);
	}
	/* per category, before the sort in report() reorders t */
	{
		double *tk = calloc(n, sizeof *tk);
		for (int k = 0; k < NKINDS; k++) {
			size_t m = 0;
			for (size_t i = 0; i < n; i++)
				if (kind[i] == k)
					tk[m++] = t[i];
			if (m) {
				char label[64];
				snprintf(label, sizeof label, "  %s", kinds[k]);
				report(label, tk, m);
			}
		}
		free(tk);
	}
	report("shell command (best of rounds)", t, n);
	/* single cold-ish pass: every command once, no best-of */
	for (size_t i = 0; i < n; i++) {
		double t0 = now_us();
		struct effect_plan *p = gate_plan_command(cmds[i], lens[i], &ctx);
		t[i] = now_us() - t0;
		effect_plan_free(p);
	}
	report("shell command (one pass)", t, n);
	/* JSON rendering on top */
	for (size_t i = 0; i < n; i++) {
		struct effect_plan *p = gate_plan_command(cmds[i], lens[i], &ctx);
		double t0 = now_us();
		cJSON *j = effect_plan_json(p);
		char *s = cJSON_PrintUnformatted(j);
		t[i] = now_us() - t0;
		free(s);
		cJSON_Delete(j);
		effect_plan_free(p);
	}
	report("plan -> JSON text", t, n);

	/* tool calls (arguments parsed once beforehand; classification measured) */
	struct buf name = {0}, args = {0};
	cJSON **aj = calloc(n, sizeof *aj), **an = calloc(n, sizeof *an);
	char **names = calloc(n, sizeof *names);
	for (size_t i = 0; i < n; i++) {
		const char *ann;
		gen_tool(&name, &args, &ann);
		names[i] = strdup(buf_cstr(&name));
		aj[i] = cJSON_Parse(buf_cstr(&args));
		an[i] = ann ? cJSON_Parse(ann) : NULL;
	}
	for (size_t i = 0; i < n; i++)
		t[i] = 1e18;
	for (int r = 0; r <= rounds; r++) {
		for (size_t i = 0; i < n; i++) {
			double t0 = now_us();
			struct effect_plan *p = gate_plan_tool_call(NULL, names[i], aj[i], an[i], &ctx);
			double dt = now_us() - t0;
			effect_plan_free(p);
			if (r > 0 && dt < t[i])
				t[i] = dt;
		}
	}
	report("tool call (best of rounds)", t, n);
	for (size_t i = 0; i < n; i++) {
		free(cmds[i]);
		free(names[i]);
		cJSON_Delete(aj[i]);
		cJSON_Delete(an[i]);
	}
	free(cmds);
	free(kind);
	free(lens);
	free(names);
	free(aj);
	free(an);
	free(t);
	buf_free(&b);
	buf_free(&name);
	buf_free(&args);
	return 0;
}
