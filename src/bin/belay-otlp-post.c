/* belay-otlp-post.c - the OTLP/HTTP sender of `belay export otlp --endpoint URL`, as its own
 * small executable: the belay binary and its verdict code link no network client (a test
 * checks), and this program links libcurl and nothing of belay's.
 *
 *   belay-otlp-post URL [-H 'Name: value']... < body.json
 *
 * POSTs stdin as application/json (OTLP/HTTP, JSON encoding) to URL (http or https; proxies
 * and TLS as libcurl does them), waits at most 30 s, prints "HTTP <status>" and the start of
 * the response body. Exit 0 on a 2xx answer, 1 on any other answer or a transfer failure
 * (named on stderr), 2 on usage errors. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sink {
	char buf[2048];
	size_t n;
};

static size_t on_body(char *p, size_t size, size_t nmemb, void *ctx)
{
	struct sink *s = ctx;
	size_t n = size * nmemb, room = sizeof s->buf - 1 - s->n;
	memcpy(s->buf + s->n, p, n < room ? n : room);
	s->n += n < room ? n : room;
	s->buf[s->n] = 0;
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: belay-otlp-post URL [-H 'Name: value']... < body.json\n");
		return 2;
	}
	const char *url = argv[1];
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		fprintf(stderr, "belay-otlp-post: %s is not an http:// or https:// URL\n", url);
		return 2;
	}
	/* the body */
	size_t cap = 1 << 16, len = 0;
	char *body = malloc(cap);
	size_t r;
	while (body && (r = fread(body + len, 1, cap - len, stdin)) > 0) {
		len += r;
		if (len == cap) {
			char *nb = realloc(body, cap *= 2);
			if (!nb) {
				free(body);
				body = NULL;
			}
			body = nb;
		}
	}
	if (!body) {
		fprintf(stderr, "belay-otlp-post: out of memory\n");
		return 1;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
		fprintf(stderr, "belay-otlp-post: libcurl did not initialise\n");
		return 1;
	}
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-H") && i + 1 < argc) {
			h = curl_slist_append(h, argv[++i]);
		} else {
			fprintf(stderr, "belay-otlp-post: unexpected argument '%s'\n", argv[i]);
			return 2;
		}
	}
	struct sink s = {{0}, 0};
	char why[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, why);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "belay-otlp-post/" BELAY_VERSION_STRING);
	CURLcode rc = curl_easy_perform(c);
	long status = 0;
	int code = 1;
	if (rc != CURLE_OK) {
		fprintf(stderr, "belay-otlp-post: POST %s failed: %s\n", url, why[0] ? why : curl_easy_strerror(rc));
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		printf("HTTP %ld %s\n", status, s.buf);
		if (status >= 200 && status < 300)
			code = 0;
		else
			fprintf(stderr, "belay-otlp-post: %s answered HTTP %ld: %.300s\n", url, status, s.buf);
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	curl_global_cleanup();
	free(body);
	return code;
}
