/* decode_net.c - network clients: curl, wget, ssh, scp/sftp, rsync, nc/socat/telnet,
 * DNS and ping probes, the GitHub CLI and HTTPie. Decides, from options and operands,
 * the destination host, whether the request only reads or also sends (method, data,
 * uploads), whether what is sent is a secret (auth headers, key files, .env, variables
 * named like tokens, command substitutions that read secrets), and which local files
 * are read or written. Unknown options of strict grammars make the result
 * indeterminate. Must not: resolve host names or contact anything. Pure; caller's thread. */
#include "gate/decode.h"
#include "gate/gate_secrets.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int loopback(const char *h)
{
	return !strcasecmp(h, "localhost") || !strncmp(h, "127.", 4) || !strcmp(h, "::1") || !strcmp(h, "[::1]") ||
	       !strcmp(h, "0.0.0.0") || !strcasecmp(h, "ip6-localhost") ||
	       (strlen(h) > 10 && !strcasecmp(h + strlen(h) - 10, ".localhost"));
}


/* Which way a protocol moves data. */
enum proto_dir {
	PD_REQUEST, /* a request: reads, unless a method, data or an upload sends (http, ftp, imap...) */
	PD_SENDS,   /* sends whatever the URL, stdin or the user's keys give it (why says which) */
	PD_FILE,    /* a local path: read, or written by an upload */
};

#define C_CURL (1u << NC_CURL)
#define C_WGET (1u << NC_WGET)
#define C_HTTPIE (1u << NC_HTTPIE)

/* The schemes the gate models, the clients that speak each, and its direction. Any other
 * scheme is indeterminate: the gate does not guess what a protocol it does not know sends. */
static const struct proto {
	const char *scheme;
	unsigned clients;
	enum proto_dir dir;
	const char *why; /* PD_SENDS: what it sends */
} PROTOS[] = {
	{"http", C_CURL | C_WGET | C_HTTPIE, PD_REQUEST, NULL},
	{"https", C_CURL | C_WGET | C_HTTPIE, PD_REQUEST, NULL},
	{"ftp", C_CURL | C_WGET, PD_REQUEST, NULL},
	{"ftps", C_CURL | C_WGET, PD_REQUEST, NULL},
	{"tftp", C_CURL, PD_REQUEST, NULL},
	{"imap", C_CURL, PD_REQUEST, NULL},
	{"imaps", C_CURL, PD_REQUEST, NULL},
	{"pop3", C_CURL, PD_REQUEST, NULL},
	{"pop3s", C_CURL, PD_REQUEST, NULL},
	{"ldap", C_CURL, PD_REQUEST, NULL},
	{"ldaps", C_CURL, PD_REQUEST, NULL},
	{"mqtt", C_CURL, PD_REQUEST, NULL},
	{"rtsp", C_CURL, PD_REQUEST, NULL},
	{"smb", C_CURL, PD_REQUEST, NULL},
	{"smbs", C_CURL, PD_REQUEST, NULL},
	{"scp", C_CURL, PD_SENDS, "transfers over ssh, authenticated with the user's keys"},
	{"sftp", C_CURL, PD_SENDS, "transfers over ssh, authenticated with the user's keys"},
	{"smtp", C_CURL, PD_SENDS, "sends mail"},
	{"smtps", C_CURL, PD_SENDS, "sends mail"},
	{"telnet", C_CURL, PD_SENDS, "sends what it reads from stdin to the host (telnet://)"},
	{"dict", C_CURL, PD_SENDS, "sends the URL's words to the server as protocol commands (dict://)"},
	{"gopher", C_CURL, PD_SENDS, "sends the URL's path to the port as raw bytes (gopher://)"},
	{"gophers", C_CURL, PD_SENDS, "sends the URL's path to the port as raw bytes (gophers://)"},
	{"ws", C_CURL, PD_SENDS, "opens a two-way WebSocket channel (ws://)"},
	{"wss", C_CURL, PD_SENDS, "opens a two-way WebSocket channel (wss://)"},
	{"file", C_CURL, PD_FILE, NULL},
};

static const struct proto *proto_find(const char *scheme, size_t n)
{
	for (size_t i = 0; i < sizeof PROTOS / sizeof PROTOS[0]; i++)
		if (strlen(PROTOS[i].scheme) == n && !strncasecmp(PROTOS[i].scheme, scheme, n))
			return &PROTOS[i];
	return NULL;
}

/* The length of s's scheme ("http" of "http://..."; also "file:/p", "telnet:/h": curl takes
 * a scheme followed by ':' and a slash), 0 when it has none (host:port, a path). */
static size_t url_scheme_len(const char *s)
{
	if (!isalpha((unsigned char)s[0]))
		return 0;
	size_t n = 1;
	while (isalnum((unsigned char)s[n]) || s[n] == '+' || s[n] == '-' || s[n] == '.')
		n++;
	return s[n] == ':' && s[n + 1] == '/' ? n : 0;
}

/* curl's guess for a URL without a scheme: by the host's first label (ftp., dict., ldap.,
 * imap., smtp., pop3.), else http. */
static const char *curl_guess(const char *h)
{
	static const char *const guess[] = {"ftp", "dict", "ldap", "imap", "smtp", "pop3", NULL};
	for (int i = 0; guess[i]; i++) {
		size_t n = strlen(guess[i]);
		if (!strncasecmp(h, guess[i], n) && h[n] == '.')
			return guess[i];
	}
	return "http";
}

/* The path of a file: URL: after "file:" and an empty or local host, percent-decoded, query
 * and fragment cut; NULL when the host is another one (curl refuses it, the gate does not
 * guess) or the path decodes to a NUL. */
const char *decode_net_file_path(struct lower *L, const char *rest)
{
	const char *p = rest;
	if (p[0] == '/' && p[1] == '/') {
		p += 2;
		size_t hl = strcspn(p, "/");
		if (hl && !(hl == 9 && !strncasecmp(p, "localhost", 9)) && !(hl == 9 && !strncmp(p, "127.0.0.1", 9)))
			return NULL;
		p += hl;
	}
	size_t n = strcspn(p, "?#");
	char *out = arena_alloc(L->a, n + 2), *o = out;
	if (p[0] != '/')
		*o++ = '/';
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '%' && isxdigit((unsigned char)p[i + 1]) && isxdigit((unsigned char)p[i + 2])) {
			char hex[3] = {p[i + 1], p[i + 2], 0};
			char v = (char)strtol(hex, NULL, 16);
			if (!v)
				return NULL;
			*o++ = v;
			i += 2;
		} else {
			*o++ = p[i];
		}
	}
	*o = '\0';
	return out;
}

/* A file:// URL: the path is read, or written when an upload goes there (a URL ending in '/'
 * gets the uploaded file's name, as curl appends it). */
static void file_url(struct cmd *c, const struct xword *url, const char *rest, const struct net_req *rq)
{
	struct lower *L = c->L;
	if (!xm_known(rest)) {
		lower_indet(c, xw_show(L, url), rq->upload ? "uploads to a local path only known at run time (file://)"
							     : "reads a local path only known at run time (file://)");
		return;
	}
	const char *path = decode_net_file_path(L, rest);
	if (!path) {
		lower_indet(c, xw_show(L, url), "a file:// URL naming another host, or a NUL: the gate does not guess what "
						"it reaches");
		return;
	}
	if (rq->upload) {
		size_t n = strlen(path);
		if (n && path[n - 1] == '/')
			path = arena_printf(L->a, "%s%s", path, rq->upload_name ? rq->upload_name : "*");
		lower_path_lit(c, path, GPA_WRITE, 0);
	} else {
		lower_path_lit(c, path, GPA_READ, 0);
	}
}

enum net_dir decode_net_scheme(const char *url, const char **why, const char **after)
{
	size_t n = url_scheme_len(url);
	*why = NULL;
	*after = url + (n ? n + 1 : 0);
	if (!n)
		return NET_DIR_NONE;
	const struct proto *pr = proto_find(url, n);
	if (!pr)
		return NET_DIR_UNKNOWN;
	*why = pr->why;
	return pr->dir == PD_FILE ? NET_DIR_FILE : pr->dir == PD_SENDS ? NET_DIR_SENDS : NET_DIR_REQUEST;
}

void decode_net_url(struct cmd *c, const struct xword *url, const struct net_req *rq)
{
	struct lower *L = c->L;
	const char *s = url->s;
	int mutate = rq->mutate, payload = rq->payload || rq->upload, secret = rq->secret;
	size_t sl = url_scheme_len(s);
	const char *h = s + sl, *scheme;
	size_t scheme_n;
	if (sl) {
		scheme = s, scheme_n = sl;
		h = s + sl + 1; /* after ':' */
	} else if (!xm_known(arena_strndup(L->a, s, strcspn(s, "/?#")))) {
		/* the scheme itself may be what is only known at run time ("$P://host") */
		lower_indet(c, xw_show(L, url), "the network destination (and its protocol) is only known at run time");
		return;
	} else if (rq->client == NC_CURL && rq->proto_default_unknown) {
		lower_indet(c, xw_show(L, url), "curl --proto-default: the protocol is only known at run time");
		return;
	} else {
		scheme = rq->client != NC_CURL ? "http" : rq->proto_default ? rq->proto_default : curl_guess(s);
		scheme_n = strlen(scheme);
	}
	const struct proto *pr = proto_find(scheme, scheme_n);
	if (!pr || !(pr->clients & (1u << rq->client)) || !xm_known(arena_strndup(L->a, scheme, scheme_n))) {
		lower_indet(c, xw_show(L, url),
			    arena_printf(L->a, "a protocol the gate does not model for this client (%.*s): what it reads or "
					       "sends is unknown",
					 (int)(scheme_n > 32 ? 32 : scheme_n), scheme));
		return;
	}
	if (pr->dir == PD_FILE) {
		file_url(c, url, h, rq);
		return;
	}
	while (*h == '/')
		h++;
	const char *sends = pr->dir == PD_SENDS ? pr->why : NULL;
	size_t hl = strcspn(h, "/?#");
	const char *at = memchr(h, '@', hl);
	if (at) {
		hl -= (size_t)(at + 1 - h);
		h = at + 1;
	}
	char *host;
	if (h[0] == '[') {
		const char *e = memchr(h, ']', hl);
		host = arena_strndup(L->a, h, e ? (size_t)(e - h + 1) : hl);
	} else {
		size_t n = strcspn(h, ":/?#");
		host = arena_strndup(L->a, h, n < hl ? n : hl);
	}
	if (!*host || !xm_known(host)) {
		lower_indet(c, xw_show(L, url), "the network destination is only known at run time");
		return;
	}
	const char *rest = h + hl;
	if (!xm_known(rest) || url->cmdsub) {
		payload = 1; /* data computed at run time travels in the URL */
		if (url->secret)
			secret = 1;
	}
	if (gate_secret_text(url->s))
		secret = 1;
	enum effect_kind k;
	const char *why;
	if (secret) {
		k = EK_NET_SECRET;
		why = "sends a secret (credential, key file, .env, token) over the network";
	} else if (loopback(host)) {
		k = mutate || payload || sends ? EK_NET_LOCAL : EK_NET_READ;
		why = sends		 ? arena_printf(L->a, "%s, to a service on this machine (loopback)", sends)
		      : mutate || payload ? "sends data to a service on this machine (loopback)"
					  : "reads from a service on this machine (loopback)";
	} else if (sends) {
		k = EK_NET_SEND;
		why = sends;
	} else if (mutate || payload) {
		k = EK_NET_SEND;
		why = rq->upload ? "uploads a file to a remote host"
		      : payload  ? "sends data to a remote host"
				 : "makes a mutating request to a remote host";
	} else {
		k = EK_NET_READ;
		why = "fetches from the network without sending data";
	}
	lower_emit(c, k, host, why);
}


/* Reads a file that is about to be sent; returns 1 when it is (or may be) a secret. */
static int send_file(struct cmd *c, const struct xword *fw)
{
	lower_path(c, fw, GPA_READ, 0);
	const char *f = xw_lit(fw);
	if (!f)
		return 1;
	const char *abs = f[0] == '/' || !c->ncwd ? f : gpath_resolve(c->L->a, c->cwd[0], f, strlen(f));
	return gpath_is_secret(&c->L->g, abs, GPA_READ);
}

/* A data argument: "@file" reads a file (and is a secret when the file is), "-" is stdin,
 * anything else is literal data (secret when it mentions one, or when it was computed from
 * a secret). Returns 1 when the payload is a secret. */
static int data_arg(struct cmd *c, const struct xword *v, int form)
{
	if (!v)
		return 0;
	const char *s = v->s;
	const char *file = NULL;
	if (s[0] == '@')
		file = s + 1;
	else if (form) {
		/* -F name=@file or name=<file */
		const char *eq = strchr(s, '=');
		if (eq && (eq[1] == '@' || eq[1] == '<'))
			file = eq + 2;
	} else {
		const char *at = strchr(s, '@'); /* --data-urlencode name@file */
		if (at && at > s && !strchr(s, '=') &&
		    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == (size_t)(at - s))
			file = at + 1;
	}
	if (file) {
		if (!strcmp(file, "-"))
			return 0;
		size_t fl = strcspn(file, ";");
		struct xword fw = *v;
		fw.s = arena_strndup(c->L->a, file, fl);
		fw.n = fl;
		fw.f = v->f + (file - s);
		fw.unknown = !xm_known(fw.s);
		fw.glob = 0;
		return send_file(c, &fw);
	}
	return v->secret || gate_secret_text(s);
}

static const char *const CURL_ARG[] = {"--data",
				       "--data-ascii",
				       "--data-binary",
				       "--data-raw",
				       "--data-urlencode",
				       "--json",
				       "--form",
				       "--form-string",
				       "--upload-file",
				       "--header",
				       "--request",
				       "--url",
				       "--output",
				       "--output-dir",
				       "--dump-header",
				       "--cookie",
				       "--cookie-jar",
				       "--user",
				       "--proxy-user",
				       "--proxy",
				       "--referer",
				       "--user-agent",
				       "--max-time",
				       "--connect-timeout",
				       "--retry",
				       "--retry-delay",
				       "--retry-max-time",
				       "--write-out",
				       "--range",
				       "--continue-at",
				       "--cert",
				       "--key",
				       "--cacert",
				       "--capath",
				       "--config",
				       "--resolve",
				       "--connect-to",
				       "--interface",
				       "--limit-rate",
				       "--max-filesize",
				       "--max-redirs",
				       "--proto",
				       "--proto-redir",
				       "--proto-default",
				       "--oauth2-bearer",
				       "--aws-sigv4",
				       "--unix-socket",
				       "--abstract-unix-socket",
				       "--time-cond",
				       "--trace",
				       "--trace-ascii",
				       "--stderr",
				       "--libcurl",
				       "--netrc-file",
				       "--keepalive-time",
				       "--expect100-timeout",
				       "--tls-max",
				       "--ciphers",
				       "--pinnedpubkey",
				       "--noproxy",
				       "--preproxy",
				       "--proxy-header",
				       "--dns-servers",
				       "--local-port",
				       "--variable",
				       "--etag-save",
				       "--etag-compare",
				       "--hsts",
				       "--alt-svc",
				       "--ftp-port",
				       "--quote",
				       "--mail-from",
				       "--mail-rcpt",
				       "--mail-auth",
				       "--request-target",
				       "--socks5",
				       "--socks5-hostname",
				       "--socks4",
				       "--socks4a",
				       "--url-query",
				       "--rate",
				       "--parallel-max",
				       "--create-file-mode",
				       "--key-type",
				       "--cert-type",
				       "--pass",
				       "--service-name",
				       "--login-options",
				       "--happy-eyeballs-timeout-ms",
				       "--proxy-cacert",
				       "--proxy-cert",
				       "--proxy-key",
				       "--expand-data",
				       "--expand-url",
				       "--expand-header",
				       "--expand-output",
				       "--retry-connrefused-x",
				       "--delegation",
				       "--sasl-authzid",
				       "--tlsuser",
				       "--tlspassword",
				       "--max-time",
				       "--speed-limit",
				       "--speed-time",
				       "--compressed-ssh-x",
				       NULL};

static const char *const CURL_FLAG[] = {"--silent",
					"--show-error",
					"--fail",
					"--fail-with-body",
					"--fail-early",
					"--location",
					"--location-trusted",
					"--insecure",
					"--head",
					"--include",
					"--verbose",
					"--compressed",
					"--get",
					"--globoff",
					"--http1.0",
					"--http1.1",
					"--http2",
					"--http2-prior-knowledge",
					"--http3",
					"--http3-only",
					"--ipv4",
					"--ipv6",
					"--no-buffer",
					"--no-keepalive",
					"--no-progress-meter",
					"--progress-bar",
					"--remote-name",
					"--remote-name-all",
					"--remote-header-name",
					"--create-dirs",
					"--raw",
					"--tcp-nodelay",
					"--tr-encoding",
					"--anyauth",
					"--basic",
					"--digest",
					"--ntlm",
					"--negotiate",
					"--path-as-is",
					"--ssl",
					"--ssl-reqd",
					"--tlsv1",
					"--tlsv1.0",
					"--tlsv1.1",
					"--tlsv1.2",
					"--tlsv1.3",
					"--disable",
					"--disallow-username-in-url",
					"--list-only",
					"--append",
					"--crlf",
					"--junk-session-cookies",
					"--styled-output",
					"--no-styled-output",
					"--parallel",
					"--parallel-immediate",
					"--retry-connrefused",
					"--retry-all-errors",
					"--no-clobber",
					"--remove-on-error",
					"--xattr",
					"--ca-native",
					"--skip-existing",
					"--ignore-content-length",
					"--suppress-connect-headers",
					"--no-sessionid",
					"--no-alpn",
					"--no-npn",
					"--false-start",
					"--cert-status",
					"--doh-insecure",
					"--ssl-no-revoke",
					"--ssl-allow-beast",
					"--ssl-revoke-best-effort",
					"--manual",
					"--help",
					"--version",
					"--no-fail",
					"--no-location",
					"--no-silent",
					"--no-verbose",
					"--no-include",
					"--no-insecure",
					"--proxy-insecure",
					"--metalink",
					"--trace-time",
					"--trace-ids",
					"--write-out-x",
					"--no-clobber-x",
					NULL};

struct curl_group {
	const struct xword **urls;
	size_t nurls;
	int mutate, payload, secret, get, upload;
	const char *upload_name;
	const char *proto_default; /* --proto-default (for every group) */
	int proto_default_unknown;
};

static void curl_flush(struct cmd *c, struct curl_group *g)
{
	struct net_req rq = {.client = NC_CURL,
			     .mutate = g->mutate && !(g->get && !g->payload),
			     .payload = g->payload,
			     .secret = g->secret,
			     .upload = g->upload,
			     .upload_name = g->upload_name,
			     .proto_default = g->proto_default,
			     .proto_default_unknown = g->proto_default_unknown};
	for (size_t i = 0; i < g->nurls; i++)
		decode_net_url(c, g->urls[i], &rq);
	g->nurls = 0;
	g->mutate = g->payload = g->secret = g->get = g->upload = 0;
	g->upload_name = NULL;
}

/* curl --proto-redir: a redirect (-L) may switch to any protocol it adds; only curl's
 * default redirect protocols (http, https, ftp, ftps) added is what the gate can follow. */
static int proto_redir_widens(const char *v)
{
	if (!xm_known(v))
		return 1;
	while (*v) {
		size_t n = strcspn(v, ",");
		const char *t = v;
		int remove = 0;
		while (n && (*t == '+' || *t == '-' || *t == '=')) {
			remove = *t == '-';
			t++, n--;
		}
		if (n && !remove && !((n == 4 && !strncasecmp(t, "http", 4)) || (n == 5 && !strncasecmp(t, "https", 5)) ||
				      (n == 3 && !strncasecmp(t, "ftp", 3)) || (n == 4 && !strncasecmp(t, "ftps", 4))))
			return 1;
		v = t + n + (t[n] == ',');
	}
	return 0;
}

void decode_curl(struct cmd *c, const char *name)
{
	struct optspec sp = {"ADEFHKPQTUXYbcdeFHmorTtuwxyzC", CURL_ARG, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	struct curl_group g = {0};
	g.urls = arena_alloc(c->L->a, (c->argc + 1) * sizeof *g.urls);
	int remote_name = 0;
	const struct xword *outdir = NULL;
	const struct xword *first_url = NULL;
	while (opt_next(&it, &o)) {
		int ch = o.k == OPT_SHORT ? o.ch : 0;
		const char *ln = o.k == OPT_LONG ? o.name : "";
#define IS(sc, lc) ((ch && ch == (sc)) || (*ln && !strcmp(ln, lc)))
		if (o.k == OPT_DYNAMIC) {
			decode_dynamic_arg(c, name, o.w);
			continue;
		}
		if (o.k == OPT_OPERAND) {
			g.urls[g.nurls++] = o.w;
			if (!first_url)
				first_url = o.w;
			continue;
		}
		if (!strcmp(ln, "--url") || !strcmp(ln, "--url-query")) {
			if (o.val && !strcmp(ln, "--url")) {
				g.urls[g.nurls++] = o.val;
				if (!first_url)
					first_url = o.val;
			} else if (o.val) {
				g.payload = 1;
			}
			continue;
		}
		if (!strcmp(ln, "--next") || ch == ':') {
			curl_flush(c, &g);
			continue;
		}
		if (IS('d', "--data") || !strcmp(ln, "--data-ascii") || !strcmp(ln, "--data-binary") ||
		    !strcmp(ln, "--data-raw") || !strcmp(ln, "--data-urlencode") || !strcmp(ln, "--json")) {
			g.mutate = g.payload = 1;
			if (strcmp(ln, "--data-raw") ? data_arg(c, o.val, 0)
						     : (o.val && (o.val->secret || gate_secret_text(o.val->s))))
				g.secret = 1;
			continue;
		}
		if (IS('F', "--form") || !strcmp(ln, "--form-string")) {
			g.mutate = g.payload = 1;
			if (data_arg(c, o.val, strcmp(ln, "--form-string") != 0))
				g.secret = 1;
			continue;
		}
		if (IS('T', "--upload-file")) {
			g.mutate = g.payload = g.upload = 1;
			g.upload_name = "*";
			if (o.val && strcmp(o.val->s, "-") && strcmp(o.val->s, ".")) {
				if (send_file(c, o.val))
					g.secret = 1;
				const char *f = xw_lit(o.val), *sl = f ? strrchr(f, '/') : NULL;
				if (f && *(sl ? sl + 1 : f) && !strpbrk(f, "*?[{"))
					g.upload_name = sl ? sl + 1 : f;
			}
			continue;
		}
		if (!strcmp(ln, "--proto-default")) {
			if (o.val && xm_known(o.val->s))
				g.proto_default = o.val->s;
			else
				g.proto_default_unknown = 1;
			continue;
		}
		if (!strcmp(ln, "--proto-redir")) {
			if (!o.val || proto_redir_widens(o.val->s))
				lower_indet(c, "curl --proto-redir",
					    "a redirect may switch to a protocol that sends (telnet, dict, gopher...)");
			continue;
		}
		if (IS('X', "--request")) {
			const char *m = o.valtext;
			if (!m || (strcasecmp(m, "GET") && strcasecmp(m, "HEAD") && strcasecmp(m, "OPTIONS")))
				g.mutate = 1;
			continue;
		}
		if (IS('G', "--get")) {
			g.get = 1;
			continue;
		}
		if (IS('H', "--header") || !strcmp(ln, "--proxy-header")) {
			if (!o.val)
				continue;
			if (o.val->s[0] == '@') {
				data_arg(c, o.val, 0);
				g.secret = 1; /* headers read from a file: typically credentials */
			} else if (!xm_known(o.val->s) || gate_secret_header(o.val->s) || o.val->secret) {
				if (gate_secret_header(o.val->s) || o.val->secret || !xm_known(o.val->s))
					g.secret = 1;
			}
			continue;
		}
		if (IS('b', "--cookie")) {
			if (o.val && strchr(o.val->s, '='))
				g.secret = 1; /* a literal session cookie */
			else if (o.val)
				lower_path(c, o.val, GPA_READ, 0);
			continue;
		}
		if (!strcmp(ln, "--oauth2-bearer") || !strcmp(ln, "--netrc-file") || IS('n', "--netrc") ||
		    !strcmp(ln, "--netrc-optional")) {
			g.secret = 1;
			if (!strcmp(ln, "--netrc-file") && o.val)
				lower_path(c, o.val, GPA_READ, 0);
			continue;
		}
		if (IS('o', "--output") || IS('D', "--dump-header") || IS('c', "--cookie-jar") ||
		    !strcmp(ln, "--trace") || !strcmp(ln, "--trace-ascii") || !strcmp(ln, "--stderr") ||
		    !strcmp(ln, "--libcurl") || !strcmp(ln, "--etag-save") || !strcmp(ln, "--hsts") ||
		    !strcmp(ln, "--alt-svc")) {
			if (o.val && strcmp(o.val->s, "-"))
				lower_path(c, o.val, GPA_WRITE, 0);
			continue;
		}
		if (!strcmp(ln, "--output-dir")) {
			outdir = o.val;
			continue;
		}
		if (IS('O', "--remote-name") || !strcmp(ln, "--remote-name-all") || IS('J', "--remote-header-name")) {
			remote_name = 1;
			continue;
		}
		if (IS('K', "--config")) {
			if (o.val)
				lower_path(c, o.val, GPA_READ, 0);
			lower_indet(c, "curl --config", "curl reads more options from a file the gate does not read");
			continue;
		}
		if (IS('E', "--cert") || !strcmp(ln, "--key") || !strcmp(ln, "--cacert") ||
		    !strcmp(ln, "--proxy-cert") || !strcmp(ln, "--proxy-key") || !strcmp(ln, "--etag-compare")) {
			if (o.val)
				lower_path(c, o.val, GPA_READ, 0);
			continue;
		}
		if (IS('x', "--proxy") || !strcmp(ln, "--preproxy") || !strcmp(ln, "--socks5") ||
		    !strcmp(ln, "--socks5-hostname") || !strcmp(ln, "--socks4") || !strcmp(ln, "--socks4a")) {
			if (o.val && !xm_known(o.val->s))
				lower_indet(c, "curl --proxy", "the proxy is only known at run time");
			continue;
		}
		if (!strcmp(ln, "--unix-socket") || !strcmp(ln, "--abstract-unix-socket")) {
			continue;
		}
		if (IS('w', "--write-out")) {
			if (o.val && o.val->s[0] == '@')
				data_arg(c, o.val, 0);
			/* %output{FILE} / %output{>>FILE} (curl 8.3) writes the rest of the output there */
			const char *wo = o.val ? o.val->s : "";
			const char *po;
			if (o.val && !xm_known(wo)) {
				lower_indet(c, "curl --write-out",
					    "a --write-out format only known at run time may write files (%output{...})");
			} else {
				while ((po = strstr(wo, "%output{")) != NULL) {
					po += 8;
					if (po[0] == '>' && po[1] == '>')
						po += 2;
					size_t fl = strcspn(po, "}");
					lower_path_lit(c, arena_strndup(c->L->a, po, fl), GPA_WRITE, 0);
					wo = po + fl;
				}
			}
			continue;
		}
		if (!strcmp(ln, "--variable")) {
			if (o.val && strchr(o.val->s, '@')) {
				const char *at = strchr(o.val->s, '@');
				lower_path_lit(c, at + 1, GPA_READ, 0);
			}
			continue;
		}
		if (IS('u', "--user") || IS('U', "--proxy-user")) {
			if (o.val && o.val->secret)
				g.secret = 1;
			continue; /* basic auth to the same host is not a payload */
		}
		if (IS('Q', "--quote") || !strcmp(ln, "--mail-rcpt") || !strcmp(ln, "--mail-from")) {
			g.mutate = 1;
			continue;
		}
		if (o.k == OPT_LONG && (decode_in(ln, CURL_ARG) || decode_in(ln, CURL_FLAG)))
			continue;
		if (o.k == OPT_SHORT && strchr("ADPrYyzmtCe0123456fgGhiIjklLMNpqRsSvVZ#4:", ch) && ch) {
			if (ch == 'I')
				continue;
			continue;
		}
		decode_unknown_option(c, name, &o);
#undef IS
	}
	if (remote_name) {
		/* -O writes the URL's last path component into the output directory or cwd */
		const char *u = first_url ? first_url->s : NULL;
		const char *sl = u ? strrchr(u, '/') : NULL;
		const char *base = sl && sl[1] && !strstr(sl, "://") ? sl + 1 : "*";
		size_t bl = strcspn(base, "?#");
		const char *b = bl ? arena_strndup(c->L->a, base, bl) : "*";
		if (!xm_known(b) || strchr(b, '/'))
			b = "*";
		if (outdir) {
			const char *d = xw_lit(outdir);
			if (d)
				lower_path_lit(c, arena_printf(c->L->a, "%s/%s", d, b), GPA_WRITE, 0);
			else
				lower_path(c, outdir, GPA_WRITE, 1);
		} else {
			lower_path_lit(c, b, GPA_WRITE, 0);
		}
	}
	curl_flush(c, &g);
}

void decode_wget(struct cmd *c, const char *name)
{
	static const char *const arg[] = {"--output-document",
					  "--output-file",
					  "--append-output",
					  "--directory-prefix",
					  "--input-file",
					  "--base",
					  "--execute",
					  "--post-data",
					  "--post-file",
					  "--body-data",
					  "--body-file",
					  "--method",
					  "--header",
					  "--user-agent",
					  "--user",
					  "--password",
					  "--http-user",
					  "--http-password",
					  "--tries",
					  "--timeout",
					  "--wait",
					  "--quota",
					  "--level",
					  "--accept",
					  "--reject",
					  "--domains",
					  "--exclude-domains",
					  "--exclude-directories",
					  "--include-directories",
					  "--load-cookies",
					  "--save-cookies",
					  "--config",
					  "--ca-certificate",
					  "--certificate",
					  "--private-key",
					  "--limit-rate",
					  "--restrict-file-names",
					  "--referer",
					  "--progress",
					  "--dns-timeout",
					  "--connect-timeout",
					  "--read-timeout",
					  "--waitretry",
					  "--max-redirect",
					  "--default-page",
					  "--cut-dirs",
					  "--accept-regex",
					  "--reject-regex",
					  "--bind-address",
					  "--ca-directory",
					  "--certificate-type",
					  "--private-key-type",
					  "--secure-protocol",
					  "--ciphers",
					  "--local-encoding",
					  "--remote-encoding",
					  "--report-speed",
					  "--use-askpass",
					  "--proxy-user",
					  "--proxy-password",
					  "--retry-on-http-error",
					  "--warc-file",
					  "--backups",
					  NULL};
	static const char *const flags[] = {"--quiet",
					    "--no-verbose",
					    "--verbose",
					    "--continue",
					    "--timestamping",
					    "--server-response",
					    "--spider",
					    "--recursive",
					    "--mirror",
					    "--page-requisites",
					    "--convert-links",
					    "--no-parent",
					    "--no-clobber",
					    "--no-directories",
					    "--force-directories",
					    "--no-host-directories",
					    "--no-check-certificate",
					    "--inet4-only",
					    "--inet6-only",
					    "--content-disposition",
					    "--trust-server-names",
					    "--adjust-extension",
					    "--span-hosts",
					    "--relative",
					    "--no-cookies",
					    "--keep-session-cookies",
					    "--show-progress",
					    "--no-proxy",
					    "--ignore-case",
					    "--no-cache",
					    "--no-dns-cache",
					    "--retry-connrefused",
					    "--auth-no-challenge",
					    "--https-only",
					    "--no-hsts",
					    "--compression=auto",
					    "--help",
					    "--version",
					    "--debug",
					    "--ignore-length",
					    "--delete-after",
					    "--backup-converted",
					    "--xattr",
					    NULL};
	struct optspec sp = {"OoaPiBeUtTwQlARDXI", arg, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	int mutate = 0, payload = 0, secret = 0, spider = 0, recursive = 0;
	const struct xword *out = NULL, *prefix = NULL;
	const struct xword **urls = arena_alloc(c->L->a, (c->argc + 1) * sizeof *urls);
	size_t nurls = 0;
	while (opt_next(&it, &o)) {
		int ch = o.k == OPT_SHORT ? o.ch : 0;
		const char *ln = o.k == OPT_LONG ? o.name : "";
#define IS(sc, lc) ((ch && ch == (sc)) || (*ln && !strcmp(ln, lc)))
		if (o.k == OPT_DYNAMIC) {
			decode_dynamic_arg(c, name, o.w);
			continue;
		}
		if (o.k == OPT_OPERAND) {
			urls[nurls++] = o.w;
			continue;
		}
		if (IS('O', "--output-document")) {
			out = o.val;
		} else if (IS('o', "--output-file") || IS('a', "--append-output") || !strcmp(ln, "--save-cookies") ||
			   !strcmp(ln, "--warc-file")) {
			if (o.val)
				lower_path(c, o.val, GPA_WRITE, 0);
		} else if (IS('P', "--directory-prefix")) {
			prefix = o.val;
		} else if (IS('i', "--input-file")) {
			if (o.val && strcmp(o.val->s, "-"))
				lower_path(c, o.val, GPA_READ, 0);
			lower_indet(c, "wget -i", "downloads URLs listed in a file the gate does not read");
		} else if (IS('e', "--execute")) {
			if (!o.valtext ||
			    (strcasecmp(o.valtext, "robots=off") && strcasecmp(o.valtext, "robots = off")))
				lower_indet(c, "wget -e",
					    "runs a wgetrc command (it can change where files are written)");
		} else if (!strcmp(ln, "--config")) {
			lower_indet(c, "wget --config", "wget reads options from a file the gate does not read");
		} else if (!strcmp(ln, "--use-askpass")) {
			lower_indet(c, "wget --use-askpass", "names a program wget runs to ask for credentials");
		} else if (!strcmp(ln, "--post-data") || !strcmp(ln, "--body-data")) {
			mutate = payload = 1;
			if (o.val && (o.val->secret || gate_secret_text(o.val->s)))
				secret = 1;
		} else if (!strcmp(ln, "--post-file") || !strcmp(ln, "--body-file")) {
			mutate = payload = 1;
			if (o.val && send_file(c, o.val))
				secret = 1;
		} else if (!strcmp(ln, "--method")) {
			if (!o.valtext || (strcasecmp(o.valtext, "GET") && strcasecmp(o.valtext, "HEAD")))
				mutate = 1;
		} else if (!strcmp(ln, "--header")) {
			if (o.val && (gate_secret_header(o.val->s) || o.val->secret || !xm_known(o.val->s)))
				secret = 1;
		} else if (!strcmp(ln, "--load-cookies") || !strcmp(ln, "--certificate") ||
			   !strcmp(ln, "--private-key") || !strcmp(ln, "--ca-certificate")) {
			if (o.val)
				lower_path(c, o.val, GPA_READ, 0);
		} else if (!strcmp(ln, "--spider")) {
			spider = 1;
		} else if (IS('r', "--recursive") || IS('m', "--mirror")) {
			recursive = 1;
		} else if (o.k == OPT_LONG && !decode_in(ln, arg) && !decode_in(ln, flags) && strncmp(ln, "--no-", 5)) {
			decode_unknown_option(c, name, &o);
		}
#undef IS
	}
	struct net_req rq = {.client = NC_WGET, .mutate = mutate, .payload = payload, .secret = secret};
	for (size_t i = 0; i < nurls; i++)
		decode_net_url(c, urls[i], &rq);
	if (spider || !nurls)
		return;
	if (out) {
		if (strcmp(out->s, "-"))
			lower_path(c, out, GPA_WRITE, 0);
		return;
	}
	const char *dir = prefix ? xw_lit(prefix) : ".";
	if (!dir) {
		lower_indet(c, "wget -P", "downloads into a directory only known at run time");
		return;
	}
	if (recursive) {
		lower_path_lit(c, arena_printf(c->L->a, "%s/*", dir), GPA_WRITE, 1);
		return;
	}
	for (size_t i = 0; i < nurls; i++) {
		const char *u = urls[i]->s;
		const char *p = strstr(u, "://");
		p = p ? p + 3 : u;
		const char *sl = strchr(p, '/');
		const char *base = "index.html";
		if (sl) {
			const char *last = strrchr(sl, '/');
			size_t bl = strcspn(last + 1, "?#");
			if (bl)
				base = arena_strndup(c->L->a, last + 1, bl);
		}
		if (!xm_known(base))
			base = "*";
		lower_path_lit(c, arena_printf(c->L->a, "%s/%s", dir, base), GPA_WRITE, 0);
	}
}

static int ssh_option_runs_program(const char *kv)
{
	static const char *const keys[] = {
	    "proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "remotecommand", "match", NULL};
	for (int i = 0; keys[i]; i++)
		if (!strncasecmp(kv, keys[i], strlen(keys[i])))
			return 1;
	return 0;
}

static const char *ssh_host(struct lower *L, const char *s)
{
	if (!strncmp(s, "ssh://", 6))
		s += 6;
	const char *at = strrchr(s, '@');
	if (at)
		s = at + 1;
	size_t n = strcspn(s, ":/");
	return arena_strndup(L->a, s, n);
}

void decode_ssh(struct cmd *c, const char *name)
{
	const char *arg = "bcDEeFIiJLlmOoPpQRSWwB";
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (XM_IS_UNK(s[0])) {
			decode_dynamic_arg(c, name, w);
			return;
		}
		if (s[0] == '-' && s[1]) {
			for (const char *q = s + 1; *q; q++) {
				if (*q == 'V' || *q == 'G' || *q == 'Q')
					return; /* version, print configuration, query algorithms */
				if (strchr(arg, *q)) {
					const char *v = q[1] ? q + 1 : (i + 1 < c->argc ? c->argv[++i].s : "");
					if (*q == 'o' && ssh_option_runs_program(v)) {
						lower_indet(c, "ssh -o", "an ssh option that runs a local program");
						return;
					}
					if (*q == 'E')
						lower_path_lit(c, v, GPA_WRITE, 0);
					break;
				}
			}
			continue;
		}
		const char *host = ssh_host(c->L, s);
		if (!xm_known(host)) {
			lower_indet(c, s, "ssh to a host only known at run time");
			return;
		}
		if (loopback(host)) {
			lower_indet(c, host,
				    "ssh to this machine runs commands (and reads files) outside what the gate sees");
			return;
		}
		lower_emit(c, EK_NET_SEND, host,
			   i + 1 < c->argc ? "runs commands on a remote host" : "opens a remote shell session");
		return;
	}
}

void decode_scp(struct cmd *c, const char *name)
{
	int sftp = !strcmp(name, "sftp");
	const char *arg = sftp ? "BbcDFiJloPRSsX" : "cDFiJloPSX";
	const struct xword **ops = arena_alloc(c->L->a, (c->argc + 1) * sizeof *ops);
	size_t nops = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (s[0] == '-' && s[1]) {
			for (const char *q = s + 1; *q; q++) {
				if (strchr(arg, *q)) {
					const char *v = q[1] ? q + 1 : (i + 1 < c->argc ? c->argv[++i].s : "");
					if (*q == 'o' && ssh_option_runs_program(v)) {
						lower_indet(c, "scp -o", "an ssh option that runs a local program");
						return;
					}
					if (*q == 'b' && sftp)
						lower_path_lit(c, v, GPA_READ, 0);
					break;
				}
			}
			continue;
		}
		ops[nops++] = w;
	}
	for (size_t k = 0; k < nops; k++) {
		const char *s = ops[k]->s;
		const char *colon = strchr(s, ':');
		const char *slash = strchr(s, '/');
		if ((sftp || (colon && (!slash || colon < slash))) && loopback(ssh_host(c->L, s))) {
			lower_indet(c, ssh_host(c->L, s),
				    "copies through ssh to this machine: files outside the workspace, unseen by the gate");
			return;
		}
	}
	if (sftp) {
		if (nops)
			lower_emit(c, EK_NET_SEND, ssh_host(c->L, ops[0]->s),
				   "opens a file-transfer session with a remote host");
		return;
	}
	int secret = 0;
	for (size_t k = 0; k < nops; k++) {
		const char *s = ops[k]->s;
		const char *colon = strchr(s, ':');
		const char *slash = strchr(s, '/');
		int remote = colon && (!slash || colon < slash);
		if (remote)
			continue;
		if (k + 1 == nops)
			lower_path(c, ops[k], GPA_WRITE, 1);
		else {
			lower_path(c, ops[k], GPA_READ, 1);
			const char *l = xw_lit(ops[k]);
			if (l &&
			    gpath_is_secret(
				&c->L->g, l[0] == '/' || !c->ncwd ? l : gpath_resolve(c->L->a, c->cwd[0], l, strlen(l)),
				GPA_READ))
				secret = 1;
		}
	}
	for (size_t k = 0; k < nops; k++) {
		const char *s = ops[k]->s;
		const char *colon = strchr(s, ':');
		const char *slash = strchr(s, '/');
		if (colon && (!slash || colon < slash)) {
			const char *host = ssh_host(c->L, s);
			lower_emit(c, secret ? EK_NET_SECRET : EK_NET_SEND, host,
				   secret ? "copies a secret file to a remote host"
					  : "copies files to or from a remote host");
		}
	}
}

static int rsync_remote(const char *s)
{
	if (!strncmp(s, "rsync://", 8))
		return 1;
	const char *colon = strchr(s, ':');
	const char *slash = strchr(s, '/');
	return colon && (!slash || colon < slash);
}

void decode_rsync(struct cmd *c, const char *name)
{
	static const char *const arg[] = {"--rsh",
					  "--exclude",
					  "--include",
					  "--exclude-from",
					  "--include-from",
					  "--files-from",
					  "--filter",
					  "--rsync-path",
					  "--port",
					  "--password-file",
					  "--log-file",
					  "--backup-dir",
					  "--suffix",
					  "--chmod",
					  "--chown",
					  "--timeout",
					  "--contimeout",
					  "--bwlimit",
					  "--max-size",
					  "--min-size",
					  "--partial-dir",
					  "--temp-dir",
					  "--compare-dest",
					  "--copy-dest",
					  "--link-dest",
					  "--out-format",
					  "--info",
					  "--debug",
					  "--iconv",
					  "--block-size",
					  "--modify-window",
					  "--checksum-choice",
					  "--compress-choice",
					  "--compress-level",
					  "--max-delete",
					  "--usermap",
					  "--groupmap",
					  "--sockopts",
					  "--outbuf",
					  "--stop-after",
					  "--stop-at",
					  "--write-batch",
					  "--only-write-batch",
					  "--read-batch",
					  "--log-file-format",
					  NULL};
	struct optspec sp = {"efTB", arg, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	int del = 0, remove_src = 0, dry = 0, recursive = 0;
	const struct xword *link_dest = NULL;
	const struct xword **ops = arena_alloc(c->L->a, (c->argc + 1) * sizeof *ops);
	size_t nops = 0;
	while (opt_next(&it, &o)) {
		int ch = o.k == OPT_SHORT ? o.ch : 0;
		const char *ln = o.k == OPT_LONG ? o.name : "";
		if (o.k == OPT_DYNAMIC) {
			decode_dynamic_arg(c, name, o.w);
			continue;
		}
		if (o.k == OPT_OPERAND) {
			ops[nops++] = o.w;
			continue;
		}
		if (!strncmp(ln, "--delete", 8) || !strcmp(ln, "--del") || !strcmp(ln, "--prune-empty-dirs"))
			del = !strcmp(ln, "--prune-empty-dirs") ? del : 1;
		else if (!strcmp(ln, "--remove-source-files"))
			remove_src = 1;
		else if (ch == 'n' || !strcmp(ln, "--dry-run") || !strcmp(ln, "--list-only"))
			dry = 1;
		else if (ch == 'a' || ch == 'r' || !strcmp(ln, "--archive") || !strcmp(ln, "--recursive"))
			recursive = 1;
		else if (ch == 'e' || !strcmp(ln, "--rsh")) {
			/* the remote shell is a program rsync runs here: only plain ssh is known */
			const char *rsh = o.val ? o.val->s : "";
			const char *b = !strncmp(rsh, "/usr/bin/", 9) ? rsh + 9 : !strncmp(rsh, "/bin/", 5) ? rsh + 5 : rsh;
			if (!o.val || !xm_known(rsh) || strncmp(b, "ssh", 3) || (b[3] && b[3] != ' ') ||
			    strcasestr(rsh, "proxycommand") || strcasestr(rsh, "localcommand") || strstr(rsh, " -F") ||
			    strcasestr(rsh, "knownhostscommand") || strchr(rsh, ';') || strchr(rsh, '|') || strchr(rsh, '`') ||
			    strchr(rsh, '$'))
				lower_indet(c, "rsync -e", "rsync runs a remote shell command the gate cannot bound");
		} else if (!strcmp(ln, "--rsync-path")) {
			lower_indet(c, "rsync --rsync-path", "names the program run on the other side");
		} else if (!strcmp(ln, "--link-dest") && o.val) {
			/* unchanged files become hard links to the ones in DIR (relative to the destination) */
			link_dest = o.val;
		} else if (!strcmp(ln, "--exclude-from") || !strcmp(ln, "--include-from") ||
			   !strcmp(ln, "--password-file") || !strcmp(ln, "--read-batch")) {
			if (o.val)
				lower_path(c, o.val, GPA_READ, 0);
		} else if (!strcmp(ln, "--files-from")) {
			if (o.val)
				lower_path(c, o.val, GPA_READ, 0);
		} else if (!strcmp(ln, "--log-file") || !strcmp(ln, "--write-batch") ||
			   !strcmp(ln, "--only-write-batch") || !strcmp(ln, "--backup-dir")) {
			if (o.val)
				lower_path(c, o.val, GPA_WRITE, 0);
		} else if (o.k == OPT_SHORT && !strchr("avzhPuclptgoDHAXxSWIqimRbLkKEOJUN0846yCF", ch)) {
			decode_unknown_option(c, name, &o);
		} else if (o.k == OPT_LONG && !decode_in(ln, arg)) {
			static const char *const fl[] = {
			    "--verbose",	 "--quiet",	      "--archive",	  "--recursive",
			    "--compress",	 "--human-readable",  "--progress",	  "--partial",
			    "--update",		 "--checksum",	      "--links",	  "--perms",
			    "--times",		 "--group",	      "--owner",	  "--devices",
			    "--specials",	 "--hard-links",      "--acls",		  "--xattrs",
			    "--one-file-system", "--sparse",	      "--whole-file",	  "--ignore-times",
			    "--itemize-changes", "--relative",	      "--backup",	  "--copy-links",
			    "--keep-dirlinks",	 "--executability",   "--omit-dir-times", "--inplace",
			    "--append",		 "--append-verify",   "--dirs",		  "--mkpath",
			    "--existing",	 "--ignore-existing", "--size-only",	  "--stats",
			    "--no-motd",	 "--numeric-ids",     "--safe-links",	  "--copy-unsafe-links",
			    "--cvs-exclude",	 "--delay-updates",   "--fuzzy",	  "--protect-args",
			    "--secluded-args",	 "--8-bit-output",    "--ipv4",		  "--ipv6",
			    "--blocking-io",	 "--no-whole-file",   "--fake-super",	  "--super",
			    "--no-perms",	 "--no-times",	      "--no-owner",	  "--no-group",
			    "--msgs2stderr",	 "--preallocate",     "--force",	  NULL};
			if (!decode_in(ln, fl) && strncmp(ln, "--no-", 5))
				decode_unknown_option(c, name, &o);
		}
	}
	if (nops < 1)
		return;
	for (size_t k = 0; k < nops; k++) {
		if (rsync_remote(ops[k]->s) && strncmp(ops[k]->s, "rsync://", 8) && loopback(ssh_host(c->L, ops[k]->s))) {
			lower_indet(c, ssh_host(c->L, ops[k]->s),
				    "copies through ssh to this machine: files outside the workspace, unseen by the gate");
			return;
		}
	}
	const struct xword *dest = nops >= 2 ? ops[nops - 1] : NULL;
	size_t nsrc = dest ? nops - 1 : nops;
	int dest_remote = dest && rsync_remote(dest->s);
	int secret = 0, any_remote_src = 0;
	for (size_t k = 0; k < nsrc; k++) {
		if (rsync_remote(ops[k]->s)) {
			any_remote_src = 1;
			continue;
		}
		lower_path(c, ops[k], remove_src && !dry ? GPA_DESTROY : GPA_READ, recursive);
		const char *l = xw_lit(ops[k]);
		if (l && gpath_is_secret(&c->L->g,
					 l[0] == '/' || !c->ncwd ? l : gpath_resolve(c->L->a, c->cwd[0], l, strlen(l)),
					 GPA_READ))
			secret = 1;
	}
	if (any_remote_src) {
		for (size_t k = 0; k < nsrc; k++)
			if (rsync_remote(ops[k]->s))
				lower_emit(c, EK_NET_READ, ssh_host(c->L, ops[k]->s),
					   "copies files from a remote host");
	}
	if (!dest)
		return;
	if (dest_remote) {
		if (!dry)
			lower_emit(c, secret ? EK_NET_SECRET : EK_NET_SEND, ssh_host(c->L, dest->s),
				   del ? "copies files to a remote host and deletes extraneous files there"
				       : "copies files to a remote host");
		else
			lower_emit(c, EK_NET_READ, ssh_host(c->L, dest->s), "compares with a remote host (dry run)");
		return;
	}
	if (dry)
		return;
	if (link_dest) {
		const char *ld = xw_lit(link_dest), *d = xw_lit(dest);
		int outside = !ld || !d;
		for (int k = 0; !outside && k < (ld[0] == '/' || d[0] == '/' ? 1 : c->ncwd); k++) {
			const char *base = d[0] == '/' ? d : gpath_resolve(c->L->a, c->cwd[k], d, strlen(d));
			if (!gpath_under(gpath_resolve(c->L->a, base, ld, strlen(ld)), c->L->g.root))
				outside = 1;
		}
		if (outside)
			lower_emit(c, EK_FS_WRITE_OUTSIDE, xw_show(c->L, link_dest),
				   "hard-links files to ones outside the workspace: writes through them leave the root");
	}
	lower_path(c, dest, del ? GPA_DESTROY : GPA_WRITE, 1);
}

void decode_nc(struct cmd *c, const char *name)
{
	if (!strcmp(name, "socat")) {
		for (size_t i = 1; i < c->argc; i++) {
			const char *s = c->argv[i].s;
			if (!strncasecmp(s, "exec:", 5) || !strncasecmp(s, "system:", 7)) {
				lower_indet(c, "socat exec", "socat runs a program on the connection");
				return;
			}
		}
		lower_emit(c, EK_NET_SEND, "socat", "relays data between network endpoints");
		return;
	}
	int listen = 0, scan = 0;
	const char *host = NULL;
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (s[0] == '-' && s[1]) {
			if (strchr(s, 'e') || strchr(s, 'c'))
				if (!strcmp(name, "nc") || !strcmp(name, "ncat") || !strcmp(name, "netcat")) {
					if (!strcmp(s, "-e") || !strcmp(s, "-c") || !strcmp(s, "--exec") ||
					    !strcmp(s, "--sh-exec")) {
						lower_indet(c, "nc -e", "connects a program to the network");
						return;
					}
				}
			if (strchr(s, 'l') && s[1] != '-')
				listen = 1;
			if (strchr(s, 'z') && s[1] != '-')
				scan = 1;
			if (s[1] != '-' && strchr("pswiqWTIOPxX", s[strlen(s) - 1]) && !s[2])
				i++;
			continue;
		}
		if (!host)
			host = s;
	}
	if (listen) {
		lower_indet(c, name, "listens for network connections (anyone who connects can send data)");
		return;
	}
	if (!host)
		return;
	if (!xm_known(host)) {
		lower_indet(c, name, "connects to a host only known at run time");
		return;
	}
	lower_emit(c, loopback(host) ? (scan ? EK_NET_READ : EK_NET_LOCAL) : (scan ? EK_NET_READ : EK_NET_SEND), host,
		   scan ? "probes whether ports are open" : "opens a raw network connection and sends data");
}

void decode_netprobe(struct cmd *c, const char *name)
{
	const char *arg = !strncmp(name, "ping", 4)    ? "ciwWstIplQMSFT"
			  : !strcmp(name, "dig")       ? "bcfkpqtxy"
			  : !strcmp(name, "whois")     ? "hp"
			  : !strncmp(name, "trace", 5) ? "fFgimNpqstwz"
						       : "";
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (s[0] == '-' && s[1]) {
			if (!s[2] && strchr(arg, s[1]))
				i++;
			continue;
		}
		if (s[0] == '+')
			continue;
		if (s[0] == '@')
			s++;
		if (!xm_known(s)) {
			lower_emit(c, EK_NET_SEND, xw_show(c->L, &c->argv[i]),
				   "queries a name only known at run time (data can leave in the name)");
			continue;
		}
		if (strspn(s, "0123456789") == strlen(s))
			continue;
		if (!strcasecmp(s, "A") || !strcasecmp(s, "AAAA") || !strcasecmp(s, "MX") || !strcasecmp(s, "TXT") ||
		    !strcasecmp(s, "NS") || !strcasecmp(s, "CNAME") || !strcasecmp(s, "SOA") || !strcasecmp(s, "ANY") ||
		    !strcasecmp(s, "PTR") || !strcasecmp(s, "SRV") || !strcasecmp(s, "IN"))
			continue;
		lower_emit(c, EK_NET_READ, s, "queries or probes a host");
	}
}

void decode_gh(struct cmd *c, const char *name)
{
	(void)name;
	const char *host = "api.github.com";
	const char *gh_host = lower_getenv(c, "GH_HOST");
	if (gh_host && xm_known(gh_host) && *gh_host)
		host = gh_host;
	for (size_t i = 1; i < c->argc; i++) {
		if (!strcmp(c->argv[i].s, "--hostname") && i + 1 < c->argc)
			host = c->argv[i + 1].s;
		if (!strcmp(c->argv[i].s, "--web") || !strcmp(c->argv[i].s, "-w")) {
			lower_indet(c, "gh --web", "opens a web browser");
			return;
		}
	}
	const char *a1 = c->argc > 1 ? xw_lit(&c->argv[1]) : NULL;
	const char *a2 = c->argc > 2 ? xw_lit(&c->argv[2]) : NULL;
	if (!a1) {
		if (c->argc > 1)
			lower_indet(c, "gh", "gh subcommand only known at run time");
		return;
	}
	if (!strcmp(a1, "api")) {
		int mutate = 0, payload = 0;
		for (size_t i = 2; i < c->argc; i++) {
			const char *s = c->argv[i].s;
			if (!strcmp(s, "-X") || !strcmp(s, "--method")) {
				const char *m = i + 1 < c->argc ? c->argv[++i].s : "";
				if (strcasecmp(m, "GET") && strcasecmp(m, "HEAD"))
					mutate = 1;
			} else if (!strncmp(s, "--method=", 9)) {
				if (strcasecmp(s + 9, "GET") && strcasecmp(s + 9, "HEAD"))
					mutate = 1;
			} else if (!strcmp(s, "-f") || !strcmp(s, "-F") || !strcmp(s, "--field") ||
				   !strcmp(s, "--raw-field")) {
				mutate = payload = 1;
				i++;
			} else if (!strcmp(s, "--input")) {
				mutate = payload = 1;
				if (i + 1 < c->argc && strcmp(c->argv[i + 1].s, "-"))
					lower_path(c, &c->argv[++i], GPA_READ, 0);
			} else if (!strcmp(s, "--cache")) {
				lower_emit(c, EK_FS_WRITE_OUTSIDE, "gh api cache",
					   "writes gh's response cache in the home directory");
				i++;
			} else if (!strcmp(s, "--jq") || !strcmp(s, "-q") || !strcmp(s, "--template") ||
				   !strcmp(s, "-t") || !strcmp(s, "-H") || !strcmp(s, "--header") || !strcmp(s, "-p") ||
				   !strcmp(s, "--preview") || !strcmp(s, "--hostname")) {
				i++;
			}
		}
		lower_emit(c, mutate || payload ? EK_NET_SEND : EK_NET_READ, host,
			   mutate || payload ? "calls the GitHub API with a mutating method or fields"
					     : "reads from the GitHub API");
		return;
	}
	if (!strcmp(a1, "auth")) {
		if (a2 && !strcmp(a2, "status"))
			return;
		if (a2 && !strcmp(a2, "token")) {
			lower_emit(c, EK_SECRET_READ, "gh auth token", "prints the stored GitHub token");
			return;
		}
		lower_emit(c, EK_SECRET_WRITE, "gh auth", "changes stored GitHub credentials");
		return;
	}
	if (!strcmp(a1, "config")) {
		if (a2 && (!strcmp(a2, "get") || !strcmp(a2, "list")))
			return;
		lower_emit(c, EK_FS_WRITE_OUTSIDE, "gh config", "changes gh's configuration in the home directory");
		return;
	}
	static const char *const groups_read[] = {"issue",   "pr",	"release", "repo",	"run",	  "workflow",
						  "gist",    "label",	"cache",   "codespace", "secret", "variable",
						  "ruleset", "project", "org",	   "search",	"status", "extension",
						  "alias",   "browse",	NULL};
	static const char *const read_verbs[] = {"list", "ls", "view", "status", "checks", "diff", "get", NULL};
	if (!strcmp(a1, "search") || !strcmp(a1, "status")) {
		lower_emit(c, EK_NET_READ, host, "reads from GitHub");
		return;
	}
	if (decode_in(a1, groups_read)) {
		if (a2 && decode_in(a2, read_verbs)) {
			lower_emit(c, EK_NET_READ, host, "reads from GitHub");
			return;
		}
		if (a2 && !strcmp(a1, "pr") && !strcmp(a2, "checkout")) {
			lower_emit(c, EK_NET_READ, host, "fetches a pull request");
			lower_emit(c, EK_GIT_REF_LOCAL, "HEAD", "checks out a pull request branch");
			return;
		}
		if (a2 && (!strcmp(a1, "repo") || !strcmp(a1, "gist")) && !strcmp(a2, "clone")) {
			lower_emit(c, EK_NET_READ, host, "clones a repository");
			const char *dest = c->argc > 4 ? xw_lit(&c->argv[4]) : NULL;
			const char *src = c->argc > 3 ? xw_lit(&c->argv[3]) : NULL;
			if (!dest && src) {
				const char *b = strrchr(src, '/');
				dest = b ? b + 1 : src;
			}
			if (dest)
				lower_path_lit(c, dest, GPA_WRITE, 1);
			else
				lower_indet(c, "gh repo clone", "clones into a directory only known at run time");
			return;
		}
		if (a2 && (!strcmp(a2, "download"))) {
			lower_emit(c, EK_NET_READ, host, "downloads release or run artifacts");
			const char *dir = NULL;
			for (size_t i = 3; i < c->argc; i++)
				if ((!strcmp(c->argv[i].s, "-D") || !strcmp(c->argv[i].s, "--dir") ||
				     !strcmp(c->argv[i].s, "-O") || !strcmp(c->argv[i].s, "--output")) &&
				    i + 1 < c->argc)
					dir = c->argv[i + 1].s;
			lower_path_lit(c, dir ? dir : "*", GPA_WRITE, 1);
			return;
		}
		if (!strcmp(a1, "extension") && a2 && (!strcmp(a2, "install") || !strcmp(a2, "upgrade"))) {
			lower_emit(c, EK_NET_ACQUIRE, host, "installs a gh extension (third-party code)");
			return;
		}
		lower_emit(c, EK_NET_SEND, host, "changes state on GitHub (create, edit, merge, close, comment...)");
		return;
	}
	lower_indet(c, arena_printf(c->L->a, "gh %s", a1), "gh command the gate does not know");
}

void decode_httpie(struct cmd *c, const char *name)
{
	static const char *const methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", NULL};
	int mutate = 0, payload = 0, secret = 0, download = 0, offline = 0;
	const struct xword *url = NULL;
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (XM_IS_UNK(s[0])) {
			decode_dynamic_arg(c, name, w);
			return;
		}
		if (s[0] == '-' && s[1]) {
			if (!strcmp(s, "-o") || !strcmp(s, "--output")) {
				if (i + 1 < c->argc)
					lower_path(c, &c->argv[++i], GPA_WRITE, 0);
			} else if (!strcmp(s, "-d") || !strcmp(s, "--download")) {
				download = 1;
			} else if (!strcmp(s, "--offline")) {
				offline = 1;
			} else if (!strcmp(s, "--session")) {
				lower_emit(c, EK_FS_WRITE_OUTSIDE, "httpie session",
					   "stores a session (with cookies) in the home directory");
				i++;
			} else if (!strcmp(s, "-a") || !strcmp(s, "--auth") || !strcmp(s, "-A") ||
				   !strcmp(s, "--auth-type") || !strcmp(s, "--verify") || !strcmp(s, "--cert") ||
				   !strcmp(s, "--cert-key") || !strcmp(s, "--proxy") || !strcmp(s, "--timeout") ||
				   !strcmp(s, "--pretty") || !strcmp(s, "--style") || !strcmp(s, "-p") ||
				   !strcmp(s, "--print") || !strcmp(s, "--max-redirects") || !strcmp(s, "--boundary") ||
				   !strcmp(s, "--session-read-only")) {
				i++;
			}
			continue;
		}
		if (!url && decode_in(s, methods)) {
			if (strcmp(s, "GET") && strcmp(s, "HEAD") && strcmp(s, "OPTIONS"))
				mutate = 1;
			continue;
		}
		if (!url) {
			url = w;
			continue;
		}
		/* request items: Header:value, name=value, name:=json, name==query, name@file */
		const char *sep = strpbrk(s, ":=@");
		if (!sep)
			continue;
		if (sep[0] == ':' && sep[1] != '=') {
			if (gate_secret_header(s) || w->secret)
				secret = 1;
			continue;
		}
		if (sep[0] == '@') {
			lower_path_lit(c, sep + 1, GPA_READ, 0);
			const char *f = sep + 1;
			if (gpath_is_secret(
				&c->L->g, f[0] == '/' || !c->ncwd ? f : gpath_resolve(c->L->a, c->cwd[0], f, strlen(f)),
				GPA_READ))
				secret = 1;
		}
		payload = 1;
		if (w->secret || gate_secret_text(s))
			secret = 1;
		if (!(sep[0] == '=' && sep[1] == '='))
			mutate = 1;
	}
	if (!url || offline)
		return;
	struct xword u = *url;
	if (!strstr(u.s, "://") && u.s[0] == ':')
		u = xw_make(c->L, arena_printf(c->L->a, "localhost%s", u.s));
	struct net_req rq = {.client = NC_HTTPIE, .mutate = mutate, .payload = payload, .secret = secret};
	decode_net_url(c, &u, &rq);
	if (download)
		lower_path_lit(c, "*", GPA_WRITE, 0);
}
