/* test_pkgexec_uv.c - issue 35 (1) for uvx / uv tool run: uv's own index setup, which the pip
 * belay resolves with does not read, translated into pip's options (pkgexec_uv_pip_args);
 * what cannot be translated is refused by name, never dropped. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "pkgexec/pkgexec.h"
#include "tsupport.h"

static char *dir, *home, *proj;

static void setup(void)
{
	dir = ts_tmpdir("uvcfg");
	home = fs_join(dir, "home");
	proj = fs_join(dir, "proj");
	ts_sh("mkdir -p '%s/.config/uv' '%s'", home, proj);
	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
	static const char *const vars[] = {"UV_DEFAULT_INDEX", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_INDEX", "SSL_CERT_FILE", NULL};
	for (const char *const *v = vars; *v; v++)
		unsetenv(*v);
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(home);
	free(proj);
}

TestSuite(uvcfg, .init = setup, .fini = teardown);

static void put(const char *path, const char *text)
{
	ts_write_file(path, text, strlen(text));
}

/* The options, joined by spaces ("" none); NULL when refused (*why the message). */
static char *args(char *why)
{
	struct err e = {0};
	char **v = pkgexec_uv_pip_args(proj, &e);
	if (!v) {
		strcpy(why, e.msg);
		return NULL;
	}
	struct buf b = {0};
	for (char **p = v; *p; p++)
		buf_printf(&b, "%s%s", b.len ? " " : "", *p);
	pkgexec_uv_pip_args_free(v);
	return b.p ? buf_take(&b) : xstrdup("");
}

Test(uvcfg, nothing_set_is_nothing_added)
{
	char why[600];
	char *a = args(why);
	cr_assert_str_eq(a, "");
	free(a);
}

Test(uvcfg, the_users_and_the_projects_uv_toml_and_the_environment)
{
	char *user = fs_join(home, ".config/uv/uv.toml"), *pt = fs_join(proj, "uv.toml");
	put(user, "index-url = \"https://mirror.example/simple\"\nextra-index-url = [\"https://a.example/simple\", 'https://b.example/simple']\n");
	char why[600];
	char *a = args(why);
	cr_assert_str_eq(a, "--index-url=https://mirror.example/simple --extra-index-url=https://a.example/simple "
			    "--extra-index-url=https://b.example/simple");
	free(a);
	/* the project's [[index]] tables: the default one wins over the user's index-url */
	put(pt, "[project]\nname = \"x\"\n\n[[index]]\nname = \"corp\"\nurl = \"https://corp.example/simple\"\ndefault = true\n\n"
		"[[index]]\nurl = \"https://extra.example/simple\"\n");
	a = args(why);
	cr_assert(strstr(a, "--index-url=https://corp.example/simple") && strstr(a, "--extra-index-url=https://extra.example/simple") &&
		      !strstr(a, "mirror.example"),
		  "%s", a);
	free(a);
	/* the environment wins; UV_INDEX entries may be named */
	setenv("UV_DEFAULT_INDEX", "http://127.0.0.1:8/simple", 1);
	setenv("UV_INDEX", "internal=http://127.0.0.1:9/simple", 1);
	setenv("SSL_CERT_FILE", "/etc/ssl/corp.pem", 1);
	a = args(why);
	cr_assert(strstr(a, "--index-url=http://127.0.0.1:8/simple") && strstr(a, "--extra-index-url=http://127.0.0.1:9/simple") &&
		      strstr(a, "--cert=/etc/ssl/corp.pem"),
		  "%s", a);
	free(a);
	free(user);
	free(pt);
}

Test(uvcfg, an_index_setting_in_another_form_is_refused_by_name)
{
	char *pt = fs_join(proj, "uv.toml");
	put(pt, "extra-index-url = [\n  \"https://a.example/simple\",\n]\n");
	char why[600] = "";
	char *a = args(why);
	cr_assert_null(a, "%s", a);
	cr_assert(strstr(why, "uv.toml line 1") && strstr(why, "extra-index-url") && strstr(why, "refusing"), "%s", why);
	free(pt);
}
