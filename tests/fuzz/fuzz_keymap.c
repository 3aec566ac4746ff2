/* fuzz_keymap.c - the keymap loader (src/tui/keymap.c): keymap_parse over the built-in
 * keymap or an empty one.
 *
 * Input: byte 0 bit 0 starts from the embedded keymaps/default.keys, bit 1 also runs the
 * hint and help views (keymap_keys_for, keymap_each_help for the context in bits 2-4); the
 * rest is a user's keys file. Parsing is all-or-nothing: a refused file (a named EINVAL with FILE:LINE)
 * leaves the keymap exactly as it was. An accepted one holds at most one binding per
 * context and key, every key's canonical name parses back to the same key, lookups find
 * what is bound, and the help and hint views run over every context. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/embedded.h"
#include "support.h"
#include "tui/keymap.h"

static void dump(const struct keymap *km, struct buf *out)
{
	buf_reset(out);
	for (size_t i = 0; i < km->n; i++)
		buf_printf(out, "%d %d %d %s|%s\n", (int)km->b[i].ctx, km->b[i].key, (int)km->b[i].cmd, km->b[i].line,
			   km->b[i].help);
}

static void help_fn(void *arg, const char *keys, const char *line, const char *help)
{
	size_t *count = arg;
	FZ_CHECK(keys && line && help);
	FZ_CHECK(keys[0] != '\0', "help lists '%s' with no key", line);
	(*count)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct keymap km = {0};
	struct err e = {0};
	if (data[0] & 1) {
		const struct embedded_file *f = embedded_find("keymaps/default.keys");
		FZ_CHECK(f != NULL);
		FZ_CHECK(keymap_parse(&km, f->data, f->len, f->name, &e) == 0, "%s", e.msg);
	}
	struct buf before = {0}, after = {0};
	dump(&km, &before);
	int rc = keymap_parse(&km, (const char *)data + 1, size - 1, "fuzz.keys", &e);
	FZ_NOTE("parse: %d %s (%zu bindings)", rc, rc ? e.msg : "", km.n);
	if (rc) {
		FZ_CHECK(rc == BELAY_EINVAL && e.code == rc, "refused with %d", rc);
		FZ_CHECK(strncmp(e.msg, "fuzz.keys:", 10) == 0, "the error does not name FILE:LINE: %s", e.msg);
		dump(&km, &after);
		FZ_CHECK(before.len == after.len && (!before.len || memcmp(before.p, after.p, before.len) == 0),
			 "a refused file changed the keymap");
	}
	for (size_t i = 0; i < km.n; i++) {
		const struct binding *b = &km.b[i];
		FZ_CHECK(b->ctx >= 0 && b->ctx < KCTX_COUNT && b->cmd >= 0 && b->cmd < C_COUNT);
		FZ_CHECK(b->line && b->help);
		FZ_CHECK(command_lookup(b->line) == (int)b->cmd, "binding %zu: '%s' is not command %s", i, b->line,
			 command_name(b->cmd));
		for (size_t j = i + 1; j < km.n; j++)
			FZ_CHECK(km.b[j].ctx != b->ctx || km.b[j].key != b->key, "two bindings for one key");
		char name[64];
		key_name(b->key, name, sizeof name);
		int back = 0;
		struct err ke = {0};
		FZ_CHECK(key_parse(name, &back, &ke) == 0, "the name '%s' of key %d does not parse: %s", name, b->key,
			 ke.msg);
		FZ_CHECK(back == b->key, "key %d is named '%s', which parses as %d", b->key, name, back);
		FZ_CHECK(keymap_lookup(&km, b->ctx, b->key) == b, "lookup of '%s' in %s", name, kctx_name(b->ctx));
		if ((data[0] & 2) && i % 8 == 0) {
			char keys[256];
			keymap_keys_for(&km, b->ctx, b->line, keys, sizeof keys);
		}
	}
	/* The views are cubic in the bindings: every other input, one context (bits 2-4). */
	if (data[0] & 2) {
		size_t count = 0;
		keymap_each_help(&km, (enum kctx)((data[0] >> 2) % KCTX_COUNT), help_fn, &count);
	}
	buf_free(&before);
	buf_free(&after);
	keymap_free(&km);
	return 0;
}
