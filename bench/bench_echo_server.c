/* bench_echo_server.c - the small MCP-shaped server the benchmarks use as their own
 * baseline peer: answers {"jsonrpc":"2.0","id":N,...} requests with an empty result, counts
 * the bytes of everything else, and answers method "count" with that byte count. The MCP
 * methods a real client sends get MCP-shaped answers: initialize (protocol version, a tools
 * capability), tools/list (one tool, "echo") and tools/call (one text item, "ok"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc_cjson.h"

int main(void)
{
	xalloc_cjson_install();
	static char buf[1 << 20];
	size_t have = 0;
	unsigned long long counted = 0;
	char *line = NULL;
	size_t cap = 0, len = 0;
	ssize_t n;
	(void)have;
	while ((n = read(0, buf, sizeof buf)) > 0) {
		for (ssize_t i = 0; i < n;) {
			char *nl = memchr(buf + i, '\n', (size_t)(n - i));
			size_t take = nl ? (size_t)(nl - (buf + i)) : (size_t)(n - i);
			if (len + take + 1 > cap) {
				cap = (len + take + 1) * 2;
				line = realloc(line, cap);
			}
			memcpy(line + len, buf + i, take);
			len += take;
			i += (ssize_t)take;
			if (!nl)
				break;
			i++;
			line[len] = '\0';
			char *id = strstr(line, "\"id\":");
			if (id && len < 4096) {
				long long v = atoll(id + 5);
				char out[320];
				const char *result = "{}";
				if (strstr(line, "\"method\":\"tools/call\""))
					result = "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"isError\":false}";
				else if (strstr(line, "\"method\":\"tools/list\""))
					result = "{\"tools\":[{\"name\":\"echo\",\"description\":\"answers ok\","
						 "\"inputSchema\":{\"type\":\"object\"}}]}";
				else if (strstr(line, "\"method\":\"initialize\""))
					result = "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
						 "\"serverInfo\":{\"name\":\"bench_echo_server\",\"version\":\"1\"}}";
				int m = strstr(line, "\"count\"")
						? snprintf(out, sizeof out, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"bytes\":%llu}}\n", v, counted)
						: snprintf(out, sizeof out, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":%s}\n", v, result);
				if (write(1, out, (size_t)m) != m)
					return 1;
			} else {
				counted += len + 1;
			}
			len = 0;
		}
	}
	free(line);
	return 0;
}
