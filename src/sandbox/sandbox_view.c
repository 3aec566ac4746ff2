/* sandbox_view.c - zones of the contained server's filesystem view. See sandbox_view.h. */
#include "sandbox/sandbox_view.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

int sandbox_path_under(const char *path, const char *root)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return path[0] == '/';
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

void sandbox_view_add(struct sandbox_view *v, const char *path, enum sb_zone kind)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->z[i].path, path)) {
			v->z[i].kind = kind;
			return;
		}
	v->z = xrealloc(v->z, (v->n + 1) * sizeof *v->z);
	v->z[v->n].path = xstrdup(path);
	v->z[v->n].kind = kind;
	v->n++;
}

enum sb_zone sandbox_view_zone(const struct sandbox_view *v, const char *path, const char **at)
{
	size_t best = 0;
	const struct sb_zone_ent *hit = NULL;
	for (size_t i = 0; i < v->n; i++) {
		const struct sb_zone_ent *z = &v->z[i];
		if (z->kind == SB_ZONE_DEVICE || z->kind == SB_ZONE_HIDDEN_FILE) {
			if (!strcmp(path, z->path)) {
				if (at)
					*at = z->path;
				return z->kind;
			}
			continue;
		}
		size_t n = strlen(z->path);
		if (n >= best && sandbox_path_under(path, z->path)) {
			best = n;
			hit = z;
		}
	}
	if (at)
		*at = hit ? hit->path : NULL;
	if (!hit)
		return SB_ZONE_RO;
	if (hit->kind == SB_ZONE_HIDDEN && !strcmp(path, hit->path))
		return SB_ZONE_RO; /* the (empty) hidden directory itself */
	return hit->kind;
}

void sandbox_view_free(struct sandbox_view *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->z[i].path);
	free(v->z);
	v->z = NULL;
	v->n = 0;
}

const char *const sandbox_zone_keys[5] = {"ro", "rw", "hidden", "devices", "hidden_files"};

void sandbox_json_str(struct buf *b, const char *s)
{
	buf_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			buf_printf(b, "\\%c", *p);
		else if (*p < 0x20)
			buf_printf(b, "\\u%04x", *p);
		else
			buf_putc(b, (char)*p);
	}
	buf_putc(b, '"');
}

void sandbox_view_to_text(const struct sandbox_view *v, struct buf *out)
{
	buf_putc(out, '{');
	for (int k = 0; k < 5; k++) {
		buf_printf(out, "%s\"%s\":[", k ? "," : "", sandbox_zone_keys[k]);
		int first = 1;
		for (size_t i = 0; i < v->n; i++)
			if ((int)v->z[i].kind == k) {
				if (!first)
					buf_putc(out, ',');
				sandbox_json_str(out, v->z[i].path);
				first = 0;
			}
		buf_putc(out, ']');
	}
	buf_putc(out, '}');
}
