/* bench_echo_server.c - the small MCP-shaped server the proxy benchmark uses as its own
 * baseline peer: answers {"jsonrpc":"2.0","id":N,...} requests with an empty result, counts
 * the bytes of everything else, and answers method "count" with that byte count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
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
				char out[160];
				int m = strstr(line, "\"count\"")
						? snprintf(out, sizeof out, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"bytes\":%llu}}\n", v, counted)
						: snprintf(out, sizeof out, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{}}\n", v);
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
