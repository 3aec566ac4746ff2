/* http_upstream_fd.c - libcurl's sockets from a connector (http_upstream_fd.h). */
#include "http/http_upstream_fd.h"

#include <errno.h>

static curl_socket_t open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *address)
{
	const struct http_upstream_fd *u = clientp;
	if (purpose != CURLSOCKTYPE_IPCXN)
		return CURL_SOCKET_BAD;
	int fd = u->socket(u->ctx, address->family);
	if (fd < 0) {
		errno = -fd;
		return CURL_SOCKET_BAD;
	}
	return fd;
}

void http_upstream_fd_use(CURL *h, const struct http_upstream_fd *u)
{
	if (!u || !u->socket)
		return;
	curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_socket);
	curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, (void *)u);
}
