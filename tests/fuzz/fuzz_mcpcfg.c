/* fuzz_mcpcfg.c - reading agents' MCP configuration files (src/mcpcfg/mcpcfg.c):
 * mcpcfg_parse_json (JSON with comments and trailing commas, as VS Code and Zed write it),
 * mcpcfg_entries, and the snippets belay prints for them.
 *
 * Input: byte 0 picks the client (low bits) and the mode (bit 7).
 *   bit 7 clear - the rest is a configuration file. If it is plain JSON, the lenient reader
 *     must read exactly what cJSON reads (stripping comments and trailing commas may not
 *     touch a string); the servers read from it are fully formed or a named error.
 *   bit 7 set - the rest is a server name and its argv, NUL-separated. For a client whose
 *     file is JSON, the snippet belay prints must read back as that one server, with that
 *     command and those arguments, byte for byte. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "mcpcfg/mcpcfg.h"
#include "support.h"

static void read_config(enum mcpcfg_client c, const char *text, size_t n)
{
	cJSON *doc = mcpcfg_parse_json(text, n);
	if (!memchr(text, '\0', n)) {
		cJSON *plain = cJSON_ParseWithLengthOpts(text, n, NULL, 1); /* all of it JSON */
		if (plain) {
			FZ_CHECK(doc != NULL, "plain JSON the lenient reader refuses: [%.*s]", (int)n, text);
			FZ_CHECK(jx_equal(doc, plain), "the lenient reader changed plain JSON: [%.*s]", (int)n, text);
		}
		cJSON_Delete(plain);
	}
	if (!doc)
		return;
	struct mcpcfg_entry *v = NULL;
	size_t k = 0;
	struct err e = {0};
	if (mcpcfg_entries(c, doc, &v, &k, &e) == 0) {
		for (size_t i = 0; i < k; i++) {
			FZ_CHECK(v[i].name && v[i].args, "server %zu", i);
			for (char **a = v[i].args; *a; a++)
				;
		}
		mcpcfg_entries_free(v, k);
	} else {
		FZ_CHECK(v == NULL && e.code == BELAY_EINVAL && e.msg[0], "refused (%d) but not named", e.code);
	}
	cJSON_Delete(doc);
}

static void round_trip(enum mcpcfg_client c, const char *in, size_t n)
{
	const struct mcpcfg_info *info = mcpcfg_info(c);
	char *copy = malloc(n + 1);
	memcpy(copy, in, n);
	copy[n] = '\0';
	const char *argv[17];
	const char *name = copy;
	size_t na = 0;
	for (char *p = copy; p < copy + n && na < 16;) {
		char *nul = memchr(p, '\0', (size_t)(copy + n - p));
		if (!nul)
			break;
		argv[na++] = nul + 1;
		p = nul + 1;
	}
	argv[na] = NULL;
	if (na == 0 || info->format != MCPF_JSON || !utf8_valid(copy, n)) {
		free(copy);
		return;
	}
	struct buf out = {0};
	mcpcfg_snippet(c, name, argv, &out);
	cJSON *doc = mcpcfg_parse_json(out.p, out.len);
	FZ_CHECK(doc != NULL, "the %s snippet does not read back:\n%s", info->id, out.p);
	struct mcpcfg_entry *v = NULL;
	size_t k = 0;
	struct err e = {0};
	FZ_CHECK(mcpcfg_entries(c, doc, &v, &k, &e) == 0, "%s: %s\n%s", info->id, e.msg, out.p);
	FZ_CHECK(k == 1 && strcmp(v[0].name, name) == 0, "%s: %zu servers read back\n%s", info->id, k, out.p);
	FZ_CHECK(v[0].command && strcmp(v[0].command, argv[0]) == 0, "%s: command\n%s", info->id, out.p);
	size_t i = 0;
	for (; v[0].args[i] && argv[i + 1]; i++)
		FZ_CHECK(strcmp(v[0].args[i], argv[i + 1]) == 0, "%s: argument %zu\n%s", info->id, i, out.p);
	FZ_CHECK(!v[0].args[i] && !argv[i + 1], "%s: argument count\n%s", info->id, out.p);
	mcpcfg_entries_free(v, k);
	cJSON_Delete(doc);
	buf_free(&out);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	enum mcpcfg_client c = (enum mcpcfg_client)((data[0] & 0x7f) % MCPC_COUNT);
	if (data[0] & 0x80)
		round_trip(c, (const char *)data + 1, size - 1);
	else
		read_config(c, (const char *)data + 1, size - 1);
	return 0;
}
