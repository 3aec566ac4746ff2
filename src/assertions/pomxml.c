/* pomxml.c - the test-relevant projection of a Maven pom.xml (pomxml.h), read with libxml2.
 *
 * Responsibility: pomxml_test_config only. One parser context per call: libxml2's errors
 * reach a structured handler on that context's own SAX table (never the global handlers),
 * which keeps the first error for the message. Entity declarations are refused as they are
 * parsed (our entityDecl handler stops the parser before libxml2 records the entity, so no
 * entity, internal or external, can ever be expanded or loaded); entity references left in
 * the tree are refused by an iterative walk. Elements are matched by local name, whatever
 * their namespace (poms use http://maven.apache.org/POM/4.0.0 or none).
 * Threads: any; libxml2 is initialised once (pthread_once), the only global we keep.
 * Must not: parse with XML_PARSE_NOENT / DTDLOAD / DTDATTR / XINCLUDE / HUGE, touch the
 * network or the filesystem, print (nor let libxml2 print: it only ever sees UTF-8, so its
 * encoding converters, which report on the global channel, never run), or recurse deeper than the tree libxml2 accepted
 * (its own depth limit, 256 without XML_PARSE_HUGE; the canonical-element walk also stops at POMXML_DEPTH_MAX). */
#include "assertions/pomxml.h"

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#define POMXML_DEPTH_MAX 512

static pthread_once_t pomxml_once = PTHREAD_ONCE_INIT;

static void pomxml_init(void)
{
	xmlInitParser();
}

/* What the SAX hooks of one parse record (ctxt->_private). */
struct pomxml_parse {
	int entity_line; /* > 0: an entity declaration was seen there */
	int err_level;	 /* of the error kept: the first of the highest level seen */
	int err_line;
	char err_msg[256];
};

/* A message fit for one line: control characters as spaces, trailing whitespace dropped. */
static void pomxml_clean(char *out, size_t cap, const char *s)
{
	size_t n = 0;
	for (; s && *s && n + 1 < cap; s++)
		out[n++] = (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;
	while (n > 0 && out[n - 1] == ' ')
		n--;
	/* do not end inside a UTF-8 sequence */
	if (n > 0 && ((unsigned char)out[n - 1] & 0x80)) {
		size_t k = n - 1;
		while (k > 0 && ((unsigned char)out[k] & 0xc0) == 0x80)
			k--;
		unsigned char lead = (unsigned char)out[k];
		size_t want = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
		if (n - k < want)
			n = k;
	}
	out[n] = 0;
}

static void pomxml_on_error(void *data, xmlErrorPtr er)
{
	xmlParserCtxtPtr ctxt = data;
	struct pomxml_parse *pp = ctxt ? ctxt->_private : NULL;
	if (!pp || !er || (int)er->level <= pp->err_level)
		return;
	pp->err_level = (int)er->level;
	pp->err_line = er->line;
	pomxml_clean(pp->err_msg, sizeof pp->err_msg, er->message);
}

static void pomxml_on_entity_decl(void *data, const xmlChar *name, int type, const xmlChar *public_id,
				  const xmlChar *system_id, xmlChar *content)
{
	(void)name, (void)type, (void)public_id, (void)system_id, (void)content;
	xmlParserCtxtPtr ctxt = data;
	struct pomxml_parse *pp = ctxt->_private;
	if (pp && !pp->entity_line) {
		int line = xmlSAX2GetLineNumber(ctxt);
		pp->entity_line = line > 0 ? line : 1;
	}
	xmlStopParser(ctxt);
}

static cJSON *pomxml_jnew(cJSON *v)
{
	if (!v)
		FATAL("out of memory");
	return v;
}

static int pomxml_line(xmlNodePtr n)
{
	for (; n; n = n->parent) {
		long l = xmlGetLineNo(n);
		if (l > 0)
			return l > INT32_MAX ? INT32_MAX : (int)l;
	}
	return 1;
}

static int pomxml_is(xmlNodePtr n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && n->name && strcmp((const char *)n->name, name) == 0;
}

/* The first element child called `name`, or NULL. */
static xmlNodePtr pomxml_child(xmlNodePtr n, const char *name)
{
	for (xmlNodePtr c = n->children; c; c = c->next)
		if (pomxml_is(c, name))
			return c;
	return NULL;
}

static int pomxml_has_elements(xmlNodePtr n)
{
	for (xmlNodePtr c = n->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE)
			return 1;
	return 0;
}

/* The element's own text (its text and CDATA children, joined), trimmed as Maven trims
 * (every byte <= ' ' at either end). Caller frees. */
static char *pomxml_text(xmlNodePtr n)
{
	struct buf b = {0};
	for (xmlNodePtr c = n->children; c; c = c->next)
		if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content)
			buf_puts(&b, (const char *)c->content);
	size_t s = 0, e = b.len;
	while (s < e && (unsigned char)b.p[s] <= ' ')
		s++;
	while (e > s && (unsigned char)b.p[e - 1] <= ' ')
		e--;
	char *r = xstrndup(b.len ? b.p + s : "", e - s);
	buf_free(&b);
	return r;
}

/* The canonical element (pomxml.h), or NULL when nested deeper than POMXML_DEPTH_MAX
 * (libxml2 refuses such a tree before this runs; the bound is the walk's own). */
static cJSON *pomxml_canon(xmlNodePtr n, int depth)
{
	if (depth > POMXML_DEPTH_MAX)
		return NULL;
	cJSON *o = pomxml_jnew(cJSON_CreateObject());
	cJSON_AddItemToObject(o, "name", pomxml_jnew(cJSON_CreateString((const char *)n->name)));
	if (n->properties) {
		cJSON *attrs = pomxml_jnew(cJSON_CreateObject());
		for (xmlAttrPtr a = n->properties; a; a = a->next) {
			xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
			char *name = a->ns && a->ns->prefix ? xasprintf("%s:%s", a->ns->prefix, a->name)
							    : xstrdup((const char *)a->name);
			cJSON_AddItemToObject(attrs, name, pomxml_jnew(cJSON_CreateString(v ? (const char *)v : "")));
			free(name);
			xmlFree(v);
		}
		cJSON_AddItemToObject(o, "attrs", attrs);
	}
	if (!pomxml_has_elements(n)) {
		char *t = pomxml_text(n);
		cJSON_AddItemToObject(o, "text", pomxml_jnew(cJSON_CreateString(t)));
		free(t);
		return o;
	}
	cJSON *kids = pomxml_jnew(cJSON_CreateArray());
	cJSON_AddItemToObject(o, "children", kids);
	for (xmlNodePtr c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		cJSON *k = pomxml_canon(c, depth + 1);
		if (!k) {
			cJSON_Delete(o);
			return NULL;
		}
		cJSON_AddItemToArray(kids, k);
	}
	return o;
}

/* An object whose keys may repeat in the document: the last one wins, in its own place (a
 * map from key to member keeps this linear). */
struct pomxml_obj {
	cJSON *o;
	struct strmap at;
};

static void pomxml_obj_set(struct pomxml_obj *m, const char *key, cJSON *v)
{
	int64_t p;
	if (strmap_get(&m->at, key, &p))
		cJSON_Delete(cJSON_DetachItemViaPointer(m->o, (cJSON *)(intptr_t)p));
	cJSON_AddItemToObject(m->o, key, v);
	strmap_put(&m->at, key, (int64_t)(intptr_t)v);
}

static struct pomxml_obj pomxml_obj_new(cJSON *parent, const char *key)
{
	struct pomxml_obj m = {pomxml_jnew(cJSON_CreateObject()), {0}};
	strmap_init(&m.at);
	cJSON_AddItemToObject(parent, key, m.o);
	return m;
}

static const char *const pomxml_prop_names[] = {"skipTests",
						"skipITs",
						"maven.test.skip",
						"maven.test.skip.exec",
						"maven.test.failure.ignore",
						"maven.test.error.ignore"};
static const char *const pomxml_prop_prefixes[] = {"surefire.", "failsafe.", "jacoco.", "test", "junit"};
static const char *const pomxml_plugins[] = {"maven-surefire-plugin", "maven-failsafe-plugin", "jacoco-maven-plugin",
					     "maven-surefire-report-plugin"};

static int pomxml_prop_wanted(const char *name)
{
	for (size_t i = 0; i < sizeof pomxml_prop_names / sizeof *pomxml_prop_names; i++)
		if (strcmp(name, pomxml_prop_names[i]) == 0)
			return 1;
	for (size_t i = 0; i < sizeof pomxml_prop_prefixes / sizeof *pomxml_prop_prefixes; i++)
		if (strncmp(name, pomxml_prop_prefixes[i], strlen(pomxml_prop_prefixes[i])) == 0)
			return 1;
	return 0;
}

static void pomxml_properties(xmlNodePtr props, struct pomxml_obj *out)
{
	for (xmlNodePtr c = props->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE || !pomxml_prop_wanted((const char *)c->name))
			continue;
		char *t = pomxml_text(c);
		pomxml_obj_set(out, (const char *)c->name, pomxml_jnew(cJSON_CreateString(t)));
		free(t);
	}
}

/* Appends the plugins of a <plugins> element that are test plugins. */
static int pomxml_plugin_list(xmlNodePtr plugins, cJSON *out, const char *profile, int managed)
{
	for (xmlNodePtr p = plugins->children; p; p = p->next) {
		if (!pomxml_is(p, "plugin"))
			continue;
		xmlNodePtr aid = pomxml_child(p, "artifactId");
		if (!aid)
			continue;
		char *a = pomxml_text(aid);
		int wanted = 0;
		for (size_t i = 0; i < sizeof pomxml_plugins / sizeof *pomxml_plugins; i++)
			wanted |= strcmp(a, pomxml_plugins[i]) == 0;
		free(a);
		if (!wanted)
			continue;
		cJSON *c = pomxml_canon(p, 0);
		if (!c)
			return -1;
		if (profile)
			cJSON_AddItemToObject(c, "profile", pomxml_jnew(cJSON_CreateString(profile)));
		if (managed)
			cJSON_AddItemToObject(c, "pluginManagement", pomxml_jnew(cJSON_CreateTrue()));
		cJSON_AddItemToArray(out, c);
	}
	return 0;
}

/* A <build>: its test members into `out`, its test plugins onto `plugins`. */
static int pomxml_build(xmlNodePtr build, struct pomxml_obj *out, cJSON *plugins, const char *profile)
{
	for (xmlNodePtr c = build->children; c; c = c->next) {
		if (pomxml_is(c, "testSourceDirectory") || pomxml_is(c, "testOutputDirectory")) {
			char *t = pomxml_text(c);
			pomxml_obj_set(out, (const char *)c->name, pomxml_jnew(cJSON_CreateString(t)));
			free(t);
		} else if (pomxml_is(c, "testResources")) {
			cJSON *r = pomxml_canon(c, 0);
			if (!r)
				return -1;
			pomxml_obj_set(out, "testResources", r);
		} else if (pomxml_is(c, "plugins")) {
			if (pomxml_plugin_list(c, plugins, profile, 0))
				return -1;
		} else if (pomxml_is(c, "pluginManagement")) {
			for (xmlNodePtr m = c->children; m; m = m->next)
				if (pomxml_is(m, "plugins") && pomxml_plugin_list(m, plugins, profile, 1))
					return -1;
		}
	}
	return 0;
}

static int pomxml_profile(xmlNodePtr prof, struct pomxml_obj *profiles, cJSON *plugins)
{
	xmlNodePtr idn = pomxml_child(prof, "id");
	char *id = idn ? pomxml_text(idn) : xstrdup("default"); /* Maven's default id */
	cJSON *po = pomxml_jnew(cJSON_CreateObject());
	pomxml_obj_set(profiles, id, po);
	struct pomxml_obj props = pomxml_obj_new(po, "properties");
	struct pomxml_obj build = pomxml_obj_new(po, "build");
	int rc = 0;
	for (xmlNodePtr c = prof->children; c && rc == 0; c = c->next) {
		if (pomxml_is(c, "properties"))
			pomxml_properties(c, &props);
		else if (pomxml_is(c, "build"))
			rc = pomxml_build(c, &build, plugins, id);
		else if (pomxml_is(c, "activation")) {
			cJSON *a = pomxml_canon(c, 0);
			if (!a)
				rc = -1;
			else
				cJSON_AddItemToObject(po, "activation", a);
		}
	}
	strmap_free(&props.at);
	strmap_free(&build.at);
	free(id);
	return rc;
}

/* Refuses a tree holding an entity reference (in content or in an attribute): returns its
 * line, or 0. Iterative, in document order. */
static int pomxml_find_entity_ref(xmlNodePtr root)
{
	xmlNodePtr n = root;
	while (n) {
		if (n->type == XML_ENTITY_REF_NODE || n->type == XML_ENTITY_NODE || n->type == XML_ENTITY_DECL)
			return pomxml_line(n);
		if (n->type == XML_ELEMENT_NODE)
			for (xmlAttrPtr a = n->properties; a; a = a->next)
				for (xmlNodePtr v = a->children; v; v = v->next)
					if (v->type != XML_TEXT_NODE)
						return pomxml_line(n);
		if (n->children) {
			n = n->children;
			continue;
		}
		while (n != root && !n->next)
			n = n->parent;
		n = n == root ? NULL : n->next;
	}
	return 0;
}

static int pomxml_project(xmlNodePtr root, cJSON **out, struct err *e)
{
	cJSON *o = pomxml_jnew(cJSON_CreateObject());
	struct pomxml_obj props = pomxml_obj_new(o, "properties");
	struct pomxml_obj build = pomxml_obj_new(o, "build");
	cJSON *plugins = pomxml_jnew(cJSON_CreateArray());
	cJSON_AddItemToObject(o, "plugins", plugins);
	struct pomxml_obj profiles = pomxml_obj_new(o, "profiles");
	int rc = 0;
	xmlNodePtr c;
	for (c = root->children; c && rc == 0; c = c->next) {
		if (pomxml_is(c, "properties")) {
			pomxml_properties(c, &props);
		} else if (pomxml_is(c, "build")) {
			rc = pomxml_build(c, &build, plugins, NULL);
		} else if (pomxml_is(c, "profiles")) {
			for (xmlNodePtr p = c->children; p && rc == 0; p = p->next)
				if (pomxml_is(p, "profile"))
					rc = pomxml_profile(p, &profiles, plugins);
		}
	}
	strmap_free(&props.at);
	strmap_free(&build.at);
	strmap_free(&profiles.at);
	if (rc) {
		cJSON_Delete(o);
		return err_set(e, BELAY_EINVAL, "line %d: elements nested deeper than %d levels", pomxml_line(root),
			       POMXML_DEPTH_MAX);
	}
	*out = o;
	return 0;
}

int pomxml_test_config(const char *text, size_t len, cJSON **out, struct err *e)
{
	*out = NULL;
	if (len > POMXML_MAX_BYTES)
		return err_set(e, BELAY_EINVAL, "line 1: the pom is %zu bytes, over the %u-byte limit", len,
			       POMXML_MAX_BYTES);
	if (!text || len == 0)
		return err_set(e, BELAY_EINVAL, "line 1: an empty document, not a <project>");
	/* UTF-8 only: libxml2 reports a failed conversion from another encoding on its global
	 * error channel (stderr), so it never converts: a declared encoding is ignored
	 * (XML_PARSE_IGNORE_ENC) and bytes that are not UTF-8 are refused here. Without NUL bytes
	 * nothing looks like UTF-16 or UCS-4 to its autodetection either. */
	int lineno = 1;
	for (size_t ls = 0, i = 0; i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		if (memchr(text + ls, 0, i - ls))
			return err_set(e, BELAY_EINVAL, "line %d: a NUL byte (not XML text)", lineno);
		if (!utf8_valid(text + ls, i - ls))
			return err_set(e, BELAY_EINVAL, "line %d: not UTF-8 (a pom is read as UTF-8 only)", lineno);
		ls = i + 1;
		lineno++;
	}
	pthread_once(&pomxml_once, pomxml_init);
	xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(text, (int)len);
	if (!ctxt)
		FATAL("libxml2 could not make a parser context");
	struct pomxml_parse pp = {0};
	xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
				    XML_PARSE_BIG_LINES | XML_PARSE_IGNORE_ENC);
	ctxt->_private = &pp;
	ctxt->sax->serror = pomxml_on_error;
	ctxt->sax->entityDecl = pomxml_on_entity_decl;
	ctxt->sax->externalSubset = NULL; /* never load an external DTD, whatever the options */
	xmlParseDocument(ctxt);
	xmlDocPtr doc = ctxt->myDoc;
	ctxt->myDoc = NULL;
	int well_formed = ctxt->wellFormed;
	xmlFreeParserCtxt(ctxt);
	int rc;
	if (pp.entity_line) {
		rc = err_set(e, BELAY_EINVAL,
			     "line %d: the document declares an entity (<!ENTITY>): refused, entities are never "
			     "expanded",
			     pp.entity_line);
	} else if (!well_formed || !doc) {
		rc = err_set(e, BELAY_EINVAL, "line %d: not well-formed XML: %s", pp.err_line > 0 ? pp.err_line : 1,
			     pp.err_msg[0] ? pp.err_msg : "libxml2 gave no reason");
	} else {
		xmlNodePtr root = xmlDocGetRootElement(doc);
		int ent;
		if (!root)
			rc = err_set(e, BELAY_EINVAL, "line 1: no root element");
		else if ((ent = pomxml_find_entity_ref((xmlNodePtr)doc)) > 0)
			rc =
			    err_set(e, BELAY_EINVAL,
				    "line %d: an entity reference (&name;): refused, entities are never expanded", ent);
		else if (!pomxml_is(root, "project")) {
			char name[64];
			pomxml_clean(name, sizeof name, (const char *)root->name);
			rc = err_set(e, BELAY_EINVAL, "line %d: the root element is <%s>, not <project>",
				     pomxml_line(root), name);
		} else
			rc = pomxml_project(root, out, e);
	}
	xmlFreeDoc(doc);
	return rc;
}
