/* http_oauth.c - the bearer token belay-http adds upstream, refreshed when due (http_oauth.h). */
#include "http/http_oauth.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/xalloc.h"
#include "http/http_hdr.h"
#include "http/http_oauth_net.h"
#include "http/http_oauth_store.h"

struct http_oauth {
	pthread_mutex_t mu;
	char *state_dir, *upstream, *upstream_rec, *path, *log; /* upstream_rec: as messages may show it */
	struct http_oauth_tok t;
	int loaded;
	struct timespec mtime; /* of the file as loaded */
	ino_t ino;
	int stale; /* the upstream refused the current access token */
};

struct http_oauth *http_oauth_new(const char *state_dir, const char *upstream)
{
	struct http_oauth *o = xcalloc(1, sizeof *o);
	pthread_mutex_init(&o->mu, NULL);
	o->state_dir = xstrdup(state_dir);
	o->upstream = xstrdup(upstream);
	o->upstream_rec = http_hdr_redact_url(upstream);
	o->path = http_oauth_store_path(state_dir, upstream);
	o->log = http_oauth_store_log_path(state_dir, upstream);
	return o;
}

void http_oauth_free(struct http_oauth *o)
{
	if (!o)
		return;
	http_oauth_store_free(&o->t);
	pthread_mutex_destroy(&o->mu);
	free(o->state_dir);
	free(o->upstream);
	free(o->upstream_rec);
	free(o->path);
	free(o->log);
	free(o);
}

/* (Re)reads the file when it is new or changed since it was read. o->mu held. */
static int reload(struct http_oauth *o, struct err *e)
{
	struct stat st;
	if (stat(o->path, &st) != 0) {
		if (o->loaded)
			http_oauth_store_free(&o->t);
		o->loaded = 0;
		return 0;
	}
	if (o->loaded && st.st_ino == o->ino && st.st_mtim.tv_sec == o->mtime.tv_sec &&
	    st.st_mtim.tv_nsec == o->mtime.tv_nsec)
		return 0;
	struct http_oauth_tok t;
	int rc = http_oauth_store_load(o->state_dir, o->upstream, &t, e);
	if (rc)
		return rc;
	http_oauth_store_free(&o->t);
	o->t = t;
	o->loaded = 1;
	o->stale = 0;
	o->ino = st.st_ino;
	o->mtime = st.st_mtim;
	return 0;
}

static int due(const struct http_oauth *o)
{
	if (o->stale)
		return 1;
	if (!o->t.expires_at)
		return 0;
	long long margin = o->t.lifetime >= 240 ? 60 : o->t.lifetime / 4;
	return (long long)time(NULL) >= o->t.expires_at - margin;
}

static int refresh(struct http_oauth *o, struct err *e)
{
	if (!o->t.refresh_token)
		return err_set(e, BELAY_EREFUSED,
			       "belay's access token for %s has expired and the server gave no refresh token: run "
			       "`belay http login %s` again",
			       o->upstream_rec, o->upstream_rec);
	char *rt = xstrdup(o->t.refresh_token);
	const char *grant[] = {"grant_type", "refresh_token", "refresh_token", rt, NULL};
	struct err ge = {0};
	int rc = http_oauth_net_grant(o->log, "refresh", &o->t, grant, &ge);
	explicit_bzero(rt, strlen(rt));
	free(rt);
	if (rc)
		return err_set(e, rc, "belay could not refresh its token for %s (%s): run `belay http login %s` again",
			       o->upstream_rec, ge.msg, o->upstream_rec);
	rc = http_oauth_store_save(o->state_dir, &o->t, e);
	if (rc)
		return rc;
	struct stat st;
	if (stat(o->path, &st) == 0) {
		o->ino = st.st_ino;
		o->mtime = st.st_mtim;
	}
	o->stale = 0;
	return 0;
}

int http_oauth_bearer(struct http_oauth *o, char **value, int *refreshed, struct err *e)
{
	*value = NULL;
	*refreshed = 0;
	pthread_mutex_lock(&o->mu);
	int rc = reload(o, e);
	if (!rc && o->loaded && due(o)) {
		rc = refresh(o, e);
		*refreshed = rc == 0;
	}
	if (!rc && o->loaded)
		*value = xasprintf("Bearer %s", o->t.access_token);
	pthread_mutex_unlock(&o->mu);
	return rc;
}

void http_oauth_rejected(struct http_oauth *o, const char *value)
{
	pthread_mutex_lock(&o->mu);
	if (o->loaded && value && !strncmp(value, "Bearer ", 7) && !strcmp(value + 7, o->t.access_token))
		o->stale = 1;
	pthread_mutex_unlock(&o->mu);
}
