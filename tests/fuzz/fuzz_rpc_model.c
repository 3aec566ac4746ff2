/* fuzz_rpc_model.c - the MCP message model: JSON-RPC classification of a frame
 * (src/mcp/rpc_msg.c) and the derived run model that pairs frames into exchanges and
 * turns (src/mcp/model.c).
 *
 * Input: byte 0 bit 0 uses model_init_latest_frame (the run index's mode); the rest is
 * lines, one frame each: a flags byte (bit 0 direction s2c, bit 1 recorded as truncated,
 * bit 2: a t_in timestamp precedes the frame, up to a TAB; bit 3: fed unparsed, through
 * model_add_frame), then the frame's bytes. Every
 * classification keeps its shape promises (a request and a notification have a method;
 * a tool name only on tools/call; a batch has one item per element), and after each frame
 * the model holds its invariants (support.h: fz_model_check). */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <string.h>

#include "mcp/model.h"
#include "mcp/rpc_msg.h"
#include "support.h"

static void check_msg(const struct rpc_msg *m, const char *data, size_t len, int truncated)
{
	FZ_CHECK(m->n >= 0 && m->items != NULL);
	if (!m->root) {
		FZ_CHECK(m->n == 1 && m->items[0].kind == RPC_UNPARSEABLE && m->why, "an unparsed frame");
		return;
	}
	FZ_CHECK(!truncated, "a truncated frame was parsed");
	FZ_CHECK(m->is_batch == cJSON_IsArray(m->root));
	if (m->is_batch)
		FZ_CHECK(m->n == cJSON_GetArraySize(m->root), "batch of %d items, %d elements", m->n,
			 cJSON_GetArraySize(m->root));
	else
		FZ_CHECK(m->n == 1);
	for (int i = 0; i < m->n; i++) {
		const struct rpc_item *it = &m->items[i];
		FZ_CHECK(it->kind > RPC_UNPARSEABLE && it->kind <= RPC_UNKNOWN, "item %d kind %d", i, (int)it->kind);
		if (it->kind == RPC_REQUEST || it->kind == RPC_NOTIFICATION)
			FZ_CHECK(it->method != NULL, "a %s without a method", rpc_kind_name(it->kind));
		if (it->kind == RPC_REQUEST)
			FZ_CHECK(it->id.type != RPC_ID_ABSENT, "a request without an id");
		if (it->tool)
			FZ_CHECK(it->kind == RPC_REQUEST && strcmp(it->method, "tools/call") == 0);
		if (rpc_id_trackable(&it->id))
			FZ_CHECK(memchr(it->id.key, '\0', sizeof it->id.key) && it->id.key[1] == ':', "id key '%s'",
				 it->id.key);
	}
	(void)data;
	(void)len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct model m;
	if (data[0] & 1)
		model_init_latest_frame(&m);
	else
		model_init(&m);
	const char *p = (const char *)data + 1, *end = (const char *)data + size;
	int64_t seq = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		unsigned flags = (unsigned char)*p;
		const char *f = p + 1 <= le ? p + 1 : le;
		char t_in[40] = "";
		if ((flags & 4) && f < le) {
			const char *tab = memchr(f, '\t', (size_t)(le - f));
			if (tab) {
				size_t tl = (size_t)(tab - f) < sizeof t_in - 1 ? (size_t)(tab - f) : sizeof t_in - 1;
				memcpy(t_in, f, tl);
				t_in[tl] = '\0';
				f = tab + 1;
			}
		}
		size_t len = (size_t)(le - f);
		int dir = flags & 1, trunc = (flags >> 1) & 1;
		struct rpc_msg msg;
		rpc_msg_parse(f, len, trunc, &msg);
		check_msg(&msg, f, len, trunc);
		size_t before = m.nframes, total = trunc ? len + 1 : len, fi;
		if (flags & 8)
			fi = model_add_frame(&m, seq, dir, t_in, f, len, total, trunc, (size_t)seq);
		else
			fi = model_add_parsed(&m, seq, dir, t_in, &msg, len, total, trunc, (size_t)seq);
		FZ_CHECK(fi < m.nframes && m.frames[fi].seq == seq, "frame index %zu of %zu", fi, m.nframes);
		FZ_CHECK(m.latest_frame_only ? m.nframes == 1 : m.nframes == before + 1);
		rpc_msg_free(&msg);
		fz_model_check(&m);
		seq++;
		p = le + 1;
	}
	model_free(&m);
	return 0;
}
