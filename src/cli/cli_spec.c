/* cli_spec.c - --help from a command's table, getopt_long's tables from the same. See
 * cli_spec.h. */
#include "cli/cli_spec.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static const struct cli_opt help_opt = {"help", 'h', CLI_SHORT, NULL, "print this help and exit"};

void cli_opt_label(const struct cli_opt *o, char *out, size_t n)
{
	const char *a = o->arg ? " " : "", *arg = o->arg ? o->arg : "";
	if (!o->name)
		snprintf(out, n, "-%c%s%s", o->key, a, arg);
	else if (o->flags & CLI_SHORT)
		snprintf(out, n, "-%c, --%s%s%s", o->key, o->name, a, arg);
	else
		snprintf(out, n, "--%s%s%s", o->name, a, arg);
}

/* Writes text wrapped into lines of at most `width` columns, every line but the first
 * starting with `indent` spaces (the first starts at column `col`, already written). A
 * blank line separates paragraphs; a single newline breaks the line. */
static void wrap(struct buf *b, const char *text, int col, int indent, int width)
{
	int x = col, fresh = 1;
	for (const char *p = text; *p;) {
		if (*p == '\n') {
			int para = p[1] == '\n';
			buf_putc(b, '\n');
			if (para)
				buf_putc(b, '\n');
			p += para ? 2 : 1;
			buf_printf(b, "%*s", indent, "");
			x = indent;
			fresh = 1;
			continue;
		}
		if (*p == ' ') {
			p++;
			continue;
		}
		size_t n = strcspn(p, " \n");
		if (!fresh && x + 1 + (int)n > width) {
			buf_printf(b, "\n%*s", indent, "");
			x = indent;
			fresh = 1;
		}
		if (!fresh) {
			buf_putc(b, ' ');
			x++;
		}
		buf_append(b, p, n);
		x += (int)n;
		fresh = 0;
		p += n;
	}
	buf_putc(b, '\n');
}

static int label_width(const struct cli_cmd *c, int w)
{
	char l[128];
	for (const struct cli_opt *o = c->opts; o && (o->name || o->key); o++)
		if (!(o->flags & CLI_HIDDEN)) {
			cli_opt_label(o, l, sizeof l);
			int n = (int)strlen(l);
			w = n > w ? n : w;
		}
	return w;
}

static void options(struct buf *b, const struct cli_cmd *c, int indent, int col, int with_help)
{
	char l[128];
	for (const struct cli_opt *o = c->opts; o && (o->name || o->key); o++) {
		if (o->flags & CLI_HIDDEN)
			continue;
		cli_opt_label(o, l, sizeof l);
		buf_printf(b, "%*s%s", indent, "", l);
		int x = indent + (int)strlen(l);
		if (x + 2 > col) {
			buf_printf(b, "\n%*s", col, "");
		} else {
			buf_printf(b, "%*s", col - x, "");
		}
		wrap(b, o->help, col, col, 80);
	}
	if (with_help) {
		cli_opt_label(&help_opt, l, sizeof l);
		buf_printf(b, "%*s%-*s", indent, "", col - indent, l);
		wrap(b, help_opt.help, col, col, 80);
	}
}

static void usage_lines(struct buf *b, const struct cli_cmd *c, int *first)
{
	if (c->synopsis) {
		for (const char *p = c->synopsis; *p;) {
			size_t n = strcspn(p, "\n");
			buf_printf(b, "%s belay %s %.*s\n", *first ? "usage:" : "      ", c->name, (int)n, p);
			*first = 0;
			p += n;
			if (*p)
				p++;
		}
	}
	for (const struct cli_cmd *const *s = c->subs; s && *s; s++)
		usage_lines(b, *s, first);
}

void cli_help(const struct cli_cmd *c, FILE *to)
{
	struct buf b = {0};
	int first = 1;
	usage_lines(&b, c, &first);
	if (c->about) {
		buf_putc(&b, '\n');
		wrap(&b, c->about, 0, 0, 80);
	}
	int col = label_width(c, (int)strlen("-h, --help"));
	for (const struct cli_cmd *const *s = c->subs; s && *s; s++)
		col = label_width(*s, col);
	col += 4; /* two to indent, two to separate */
	if (col > 24)
		col = 24;
	if (!c->subs || label_width(c, 0))
		buf_putc(&b, '\n');
	options(&b, c, 2, col, !c->subs);
	for (const struct cli_cmd *const *s = c->subs; s && *s; s++) {
		buf_printf(&b, "\nbelay %s: ", (*s)->name);
		wrap(&b, (*s)->summary, (int)strlen((*s)->name) + 8, 2, 80);
		if ((*s)->about) {
			buf_puts(&b, "  ");
			wrap(&b, (*s)->about, 2, 2, 80);
		}
		options(&b, *s, 4, col + 2, 0);
	}
	if (c->subs) {
		buf_putc(&b, '\n');
		options(&b, &(struct cli_cmd){0}, 2, col, 1);
	}
	if (c->notes) {
		buf_putc(&b, '\n');
		wrap(&b, c->notes, 0, 0, 80);
	}
	fwrite(b.p, 1, b.len, to);
	buf_free(&b);
}

void cli_parse_init(const struct cli_cmd *c, struct cli_parse *p, int stop_at_operand)
{
	size_t n = 0, k = 0;
	if (stop_at_operand)
		p->so[k++] = '+';
	for (const struct cli_opt *o = c->opts; o && (o->name || o->key); o++) {
		if (n == CLI_MAX_OPTS)
			abort(); /* a table longer than CLI_MAX_OPTS: raise it */
		if (o->name)
			p->lo[n++] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->key};
		if (!o->name || (o->flags & CLI_SHORT)) {
			p->so[k++] = (char)o->key;
			if (o->arg)
				p->so[k++] = ':';
		}
	}
	p->lo[n++] = (struct option){help_opt.name, no_argument, NULL, help_opt.key};
	p->lo[n] = (struct option){NULL, 0, NULL, 0};
	p->so[k++] = (char)help_opt.key;
	p->so[k] = '\0';
}

const struct cli_cmd *cli_sub(const struct cli_cmd *c, const char *name)
{
	size_t pre = strlen(c->name);
	for (const struct cli_cmd *const *s = c->subs; s && *s; s++)
		if (!strncmp((*s)->name, c->name, pre) && (*s)->name[pre] == ' ' && !strcmp((*s)->name + pre + 1, name))
			return *s;
	return NULL;
}
