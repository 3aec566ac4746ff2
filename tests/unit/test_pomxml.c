/* test_pomxml.c - pomxml_test_config: the projection of a realistic pom (test properties,
 * test directories, the surefire / failsafe / jacoco plugins, profiles), that edits outside
 * it (dependency bumps, comments, whitespace) leave it cJSON_Compare-equal while each
 * weakening of the tests changes it, and the refusals: not well-formed, a root other than
 * <project>, entities (an XXE attempt must not read its file), oversized input. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assertions/pomxml.h"
#include "common/jsonx.h"
#include "common/xalloc.h"

static const char POM[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			  "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"\n"
			  "         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
			  "         xsi:schemaLocation=\"http://maven.apache.org/POM/4.0.0 "
			  "https://maven.apache.org/xsd/maven-4.0.0.xsd\">\n"
			  "  <modelVersion>4.0.0</modelVersion>\n"
			  "  <groupId>com.example</groupId>\n"
			  "  <artifactId>demo</artifactId>\n"
			  "  <version>1.2.3-SNAPSHOT</version>\n"
			  "  <properties>\n"
			  "    <maven.compiler.release>17</maven.compiler.release>\n"
			  "    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>\n"
			  "    <junit.version>5.10.0</junit.version>\n"
			  "    <surefire.rerunFailingTestsCount>0</surefire.rerunFailingTestsCount>\n"
			  "  </properties>\n"
			  "  <dependencies>\n"
			  "    <dependency>\n"
			  "      <groupId>com.google.guava</groupId>\n"
			  "      <artifactId>guava</artifactId>\n"
			  "      <version>32.1.2-jre</version>\n"
			  "    </dependency>\n"
			  "    <dependency>\n"
			  "      <groupId>org.junit.jupiter</groupId>\n"
			  "      <artifactId>junit-jupiter</artifactId>\n"
			  "      <version>${junit.version}</version>\n"
			  "      <scope>test</scope>\n"
			  "    </dependency>\n"
			  "  </dependencies>\n"
			  "  <build>\n"
			  "    <testSourceDirectory>src/test/java</testSourceDirectory>\n"
			  "    <plugins>\n"
			  "      <plugin>\n"
			  "        <groupId>org.apache.maven.plugins</groupId>\n"
			  "        <artifactId>maven-compiler-plugin</artifactId>\n"
			  "        <version>3.11.0</version>\n"
			  "      </plugin>\n"
			  "      <plugin>\n"
			  "        <groupId>org.apache.maven.plugins</groupId>\n"
			  "        <artifactId>maven-surefire-plugin</artifactId>\n"
			  "        <version>3.1.2</version>\n"
			  "        <configuration>\n"
			  "          <testFailureIgnore>false</testFailureIgnore>\n"
			  "          <excludes>\n"
			  "            <exclude>**/*IT.java</exclude>\n"
			  "          </excludes>\n"
			  "        </configuration>\n"
			  "      </plugin>\n"
			  "      <plugin>\n"
			  "        <groupId>org.jacoco</groupId>\n"
			  "        <artifactId>jacoco-maven-plugin</artifactId>\n"
			  "        <version>0.8.10</version>\n"
			  "        <executions>\n"
			  "          <execution>\n"
			  "            <id>check</id>\n"
			  "            <goals><goal>check</goal></goals>\n"
			  "            <configuration>\n"
			  "              <rules>\n"
			  "                <rule>\n"
			  "                  <element>BUNDLE</element>\n"
			  "                  <limits>\n"
			  "                    <limit>\n"
			  "                      <counter>LINE</counter>\n"
			  "                      <value>COVEREDRATIO</value>\n"
			  "                      <minimum>0.80</minimum>\n"
			  "                    </limit>\n"
			  "                  </limits>\n"
			  "                </rule>\n"
			  "              </rules>\n"
			  "            </configuration>\n"
			  "          </execution>\n"
			  "        </executions>\n"
			  "      </plugin>\n"
			  "    </plugins>\n"
			  "  </build>\n"
			  "  <profiles>\n"
			  "    <profile>\n"
			  "      <id>fast</id>\n"
			  "      <properties>\n"
			  "        <skipITs>true</skipITs>\n"
			  "        <checkstyle.skip>true</checkstyle.skip>\n"
			  "      </properties>\n"
			  "      <build>\n"
			  "        <plugins>\n"
			  "          <plugin>\n"
			  "            <artifactId>maven-surefire-plugin</artifactId>\n"
			  "            <configuration>\n"
			  "              <groups>fast</groups>\n"
			  "            </configuration>\n"
			  "          </plugin>\n"
			  "        </plugins>\n"
			  "      </build>\n"
			  "    </profile>\n"
			  "  </profiles>\n"
			  "</project>\n";

static cJSON *project(const char *xml)
{
	cJSON *o = NULL;
	struct err e = {0};
	int rc = pomxml_test_config(xml, strlen(xml), &o, &e);
	cr_assert_eq(rc, 0, "refused (%s):\n%s", e.msg, xml);
	cr_assert_not_null(o);
	return o;
}

/* POM with the first `from` replaced by `to` (which must occur). Caller frees. */
static char *edit(const char *base, const char *from, const char *to)
{
	const char *at = strstr(base, from);
	cr_assert_not_null(at, "no \"%s\" in the pom", from);
	return xasprintf("%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
}

static int same_as_pom(const char *xml)
{
	cJSON *a = project(POM), *b = project(xml);
	int r = cJSON_Compare(a, b, 1);
	cJSON_Delete(a);
	cJSON_Delete(b);
	return r;
}

static void expect_same(const char *from, const char *to)
{
	char *x = edit(POM, from, to);
	cr_assert(same_as_pom(x), "changed by \"%s\" -> \"%s\"", from, to);
	free(x);
}

static void expect_changed(const char *from, const char *to)
{
	char *x = edit(POM, from, to);
	cr_assert_not(same_as_pom(x), "not changed by \"%s\" -> \"%s\"", from, to);
	free(x);
}

static void refuse_n(const char *xml, size_t n, const char *frag, int line)
{
	cJSON *o = (cJSON *)1;
	struct err e = {0};
	int rc = pomxml_test_config(xml, n, &o, &e);
	cr_assert_eq(rc, BELAY_EINVAL, "accepted:\n%s", xml);
	cr_assert_null(o);
	cr_assert(strstr(e.msg, frag), "want \"%s\" in: %s", frag, e.msg);
	if (line) {
		char want[32];
		snprintf(want, sizeof want, "line %d: ", line);
		cr_assert(strncmp(e.msg, want, strlen(want)) == 0, "want %s... got %s", want, e.msg);
	}
}

static void refuse(const char *xml, const char *frag, int line)
{
	refuse_n(xml, strlen(xml), frag, line);
}

Test(pomxml, the_projection)
{
	cJSON *o = project(POM);
	char *got = jx_print(o);
	/* properties: test-related only; build: test directories; plugins: surefire and jacoco
	 * (not the compiler), the profile's surefire with its id; profiles: their own projection */
	const char *want =
	    "{\"properties\":{\"junit.version\":\"5.10.0\",\"surefire.rerunFailingTestsCount\":\"0\"},"
	    "\"build\":{\"testSourceDirectory\":\"src/test/java\"},"
	    "\"plugins\":["
	    "{\"name\":\"plugin\",\"children\":[{\"name\":\"groupId\",\"text\":\"org.apache.maven.plugins\"},"
	    "{\"name\":\"artifactId\",\"text\":\"maven-surefire-plugin\"},{\"name\":\"version\",\"text\":\"3.1.2\"},"
	    "{\"name\":\"configuration\",\"children\":[{\"name\":\"testFailureIgnore\",\"text\":\"false\"},"
	    "{\"name\":\"excludes\",\"children\":[{\"name\":\"exclude\",\"text\":\"**/*IT.java\"}]}]}]},"
	    "{\"name\":\"plugin\",\"children\":[{\"name\":\"groupId\",\"text\":\"org.jacoco\"},"
	    "{\"name\":\"artifactId\",\"text\":\"jacoco-maven-plugin\"},{\"name\":\"version\",\"text\":\"0.8.10\"},"
	    "{\"name\":\"executions\",\"children\":[{\"name\":\"execution\",\"children\":[{\"name\":\"id\",\"text\":"
	    "\"check\"},{\"name\":\"goals\",\"children\":[{\"name\":\"goal\",\"text\":\"check\"}]},"
	    "{\"name\":\"configuration\",\"children\":[{\"name\":\"rules\",\"children\":[{\"name\":\"rule\","
	    "\"children\":[{\"name\":\"element\",\"text\":\"BUNDLE\"},{\"name\":\"limits\",\"children\":[{\"name\":"
	    "\"limit\",\"children\":[{\"name\":\"counter\",\"text\":\"LINE\"},{\"name\":\"value\",\"text\":"
	    "\"COVEREDRATIO\"},{\"name\":\"minimum\",\"text\":\"0.80\"}]}]}]}]}]}]}]}]},"
	    "{\"name\":\"plugin\",\"children\":[{\"name\":\"artifactId\",\"text\":\"maven-surefire-plugin\"},"
	    "{\"name\":\"configuration\",\"children\":[{\"name\":\"groups\",\"text\":\"fast\"}]}],"
	    "\"profile\":\"fast\"}],"
	    "\"profiles\":{\"fast\":{\"properties\":{\"skipITs\":\"true\"},\"build\":{}}}}";
	cr_assert_str_eq(got, want);
	free(got);
	cJSON_Delete(o);
}

Test(pomxml, edits_outside_the_projection)
{
	/* a dependency bump, a new dependency, another plugin's version, the project's version */
	expect_same("<version>32.1.2-jre</version>", "<version>33.0.0-jre</version>");
	expect_same("  </dependencies>\n",
		    "    <dependency><groupId>org.mockito</groupId><artifactId>mockito-core</artifactId>"
		    "<version>5.5.0</version><scope>test</scope></dependency>\n  </dependencies>\n");
	expect_same("<version>3.11.0</version>", "<version>3.12.1</version>");
	expect_same("<version>1.2.3-SNAPSHOT</version>", "<version>1.2.4-SNAPSHOT</version>");
	expect_same("<maven.compiler.release>17", "<maven.compiler.release>21");
	/* comments, processing instructions, whitespace, CDATA for text, no namespace */
	expect_same("<testFailureIgnore>false</testFailureIgnore>",
		    "<!-- keep failing on failures -->\n<testFailureIgnore>\n   false  </testFailureIgnore><?pi x?>");
	expect_same("<exclude>**/*IT.java</exclude>", "<exclude><![CDATA[**/*IT.java]]></exclude>");
	expect_same("<minimum>0.80</minimum>", "<minimum>0.80<!-- eighty --></minimum>");
	expect_same("<project xmlns=\"http://maven.apache.org/POM/4.0.0\"", "<project");
	char *flat = xstrdup(POM), *w = flat;
	for (const char *r = POM; *r; r++) /* the same pom without its indentation */
		if (!(*r == ' ' && (r == POM || r[-1] == '\n' || r[-1] == ' ') && strchr(" <", r[1])))
			*w++ = *r;
	*w = 0;
	cr_assert(same_as_pom(flat));
	free(flat);
}

Test(pomxml, weakenings_change_it)
{
	expect_changed("<testFailureIgnore>false</testFailureIgnore>",
		       "<testFailureIgnore>false</testFailureIgnore><skipTests>true</skipTests>");
	expect_changed("<exclude>**/*IT.java</exclude>", "<exclude>**/*IT.java</exclude><exclude>**/Slow*</exclude>");
	expect_changed("<testFailureIgnore>false", "<testFailureIgnore>true");
	expect_changed("<minimum>0.80</minimum>", "<minimum>0.10</minimum>");
	expect_changed("<junit.version>", "<maven.test.skip>true</maven.test.skip><junit.version>");
	expect_changed("<junit.version>", "<skipTests>true</skipTests><junit.version>");
	expect_changed("<testSourceDirectory>src/test/java", "<testSourceDirectory>src/test/empty");
	expect_changed("<build>\n    <testSourceDirectory>",
		       "<build>\n    <testResources><testResource><directory>x</directory></testResource>"
		       "</testResources><testSourceDirectory>");
	expect_changed("<version>3.1.2</version>", "<version>2.12</version>");
	expect_changed("<groups>fast</groups>", "<groups>none</groups>");
	expect_changed("<skipITs>true</skipITs>", "<skipITs>true</skipITs><maven.test.failure.ignore>true"
						  "</maven.test.failure.ignore>");
	/* moving jacoco into pluginManagement turns its check off: visible */
	char *x = edit(POM,
		       "<plugins>\n      <plugin>\n        <groupId>org.apache.maven.plugins</groupId>\n"
		       "        <artifactId>maven-compiler-plugin</artifactId>",
		       "<pluginManagement><plugins>\n      <plugin>\n        <groupId>org.apache.maven.plugins"
		       "</groupId>\n        <artifactId>maven-compiler-plugin</artifactId>");
	char *y = edit(x, "</plugins>\n  </build>", "</plugins></pluginManagement>\n  </build>");
	cr_assert_not(same_as_pom(y));
	free(x);
	free(y);
	/* the profile's activation */
	expect_changed("<id>fast</id>",
		       "<id>fast</id><activation><activeByDefault>true</activeByDefault></activation>");
	/* an attribute in a plugin's configuration */
	expect_changed("<excludes>", "<excludes combine.children=\"override\">");
}

Test(pomxml, plugin_management_and_attributes)
{
	cJSON *o = project("<project><build><pluginManagement><plugins><plugin>"
			   "<artifactId>maven-failsafe-plugin</artifactId><configuration a=\"1\" x:b=\"2\" "
			   "xmlns:x=\"urn:x\"><skip>${skipITs}</skip></configuration></plugin></plugins>"
			   "</pluginManagement><testOutputDirectory> out </testOutputDirectory></build>"
			   "<properties><testng.suite>s.xml</testng.suite><other>1</other><testng.suite>t.xml"
			   "</testng.suite></properties><profiles><profile><properties><skipTests>true</skipTests>"
			   "</properties></profile></profiles></project>");
	char *got = jx_print(o);
	cr_assert_str_eq(got,
			 "{\"properties\":{\"testng.suite\":\"t.xml\"},\"build\":{\"testOutputDirectory\":\"out\"},"
			 "\"plugins\":[{\"name\":\"plugin\",\"children\":[{\"name\":\"artifactId\",\"text\":"
			 "\"maven-failsafe-plugin\"},{\"name\":\"configuration\",\"attrs\":{\"a\":\"1\",\"x:b\":"
			 "\"2\"},\"children\":[{\"name\":\"skip\",\"text\":\"${skipITs}\"}]}],"
			 "\"pluginManagement\":true}],\"profiles\":{\"default\":{\"properties\":{\"skipTests\":"
			 "\"true\"},\"build\":{}}}}");
	free(got);
	cJSON_Delete(o);
}

Test(pomxml, refusals)
{
	refuse("<project><build></project>", "not well-formed", 1);
	refuse("<project>\n<a>\n</b></project>", "not well-formed", 3);
	refuse("not xml at all", "not well-formed", 1);
	refuse("", "empty", 1);
	/* UTF-8 only (libxml2 would report a failed conversion on stderr): a declared encoding is
	 * ignored, bytes that are not UTF-8 are refused */
	refuse("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<project>\n<a>caf\xe9</a></project>", "not UTF-8", 3);
	refuse_n("<project>\n\0</project>", 20, "NUL", 2);
	refuse("\xff\xfe<\0p\0", "not UTF-8", 1);
	cJSON_Delete(project("<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?><project/>"));
	cJSON_Delete(project("\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"bogus\"?><project/>"));
	refuse("<?xml version=\"1.0\"?>\n<settings><profiles/></settings>", "not <project>", 2);
	refuse("<!DOCTYPE project [\n<!ENTITY skip \"true\">\n]>\n<project><properties><skipTests>&skip;"
	       "</skipTests></properties></project>",
	       "entity", 2);
	refuse("<!DOCTYPE project [\n<!ENTITY % pe \"x\">\n]>\n<project/>", "entity", 2);
	/* a reference to an entity no one declared, with a DTD (libxml2 keeps it as a node) */
	refuse("<!DOCTYPE project [\n<!ELEMENT project ANY>\n]>\n<project>\n<a>&undeclared;</a></project>", "ntity", 5);
	refuse("<project><a>&undeclared;</a></project>", "", 1);
	/* with an external subset (never loaded) libxml2 keeps an undeclared reference as a node */
	refuse("<!DOCTYPE project SYSTEM \"project.dtd\">\n<project>\n<properties>\n<skipTests>&t;</skipTests>"
	       "</properties></project>",
	       "entity reference", 4);
	refuse("<!DOCTYPE project SYSTEM \"project.dtd\">\n<project>\n<build a=\"&t;\"/></project>", "entity", 0);
	/* an element nested deeper than libxml2's limit */
	struct {
		char *p;
		size_t n;
	} deep = {xmalloc(20000), 0};
	deep.n += (size_t)sprintf(deep.p, "<project>");
	for (int i = 0; i < 600; i++)
		deep.n += (size_t)sprintf(deep.p + deep.n, "<a>");
	refuse_n(deep.p, deep.n, "not well-formed", 1);
	free(deep.p);
	char *big = xmalloc(POMXML_MAX_BYTES + 1);
	memset(big, ' ', POMXML_MAX_BYTES + 1);
	memcpy(big, "<project>", 9);
	refuse_n(big, POMXML_MAX_BYTES + 1, "limit", 1);
	free(big);
}

Test(pomxml, xxe_is_refused_without_reading_the_file, .timeout = 30)
{
	char dir[] = "/tmp/belay-pomxml-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char *secret = xasprintf("%s/secret", dir), *fifo = xasprintf("%s/fifo", dir);
	FILE *f = fopen(secret, "w");
	fputs("TOPSECRET-MARKER", f);
	fclose(f);
	const char *targets[] = {"/etc/passwd", secret};
	for (size_t i = 0; i < 2; i++) {
		char *x =
		    xasprintf("<?xml version=\"1.0\"?>\n<!DOCTYPE project [\n  <!ENTITY xxe SYSTEM \"file://%s\">\n]>\n"
			      "<project><properties><skipTests>&xxe;</skipTests></properties></project>",
			      targets[i]);
		cJSON *o = (cJSON *)1;
		struct err e = {0};
		cr_assert_eq(pomxml_test_config(x, strlen(x), &o, &e), BELAY_EINVAL);
		cr_assert_null(o);
		cr_assert(strstr(e.msg, "line 3: ") == e.msg && strstr(e.msg, "entity"), "%s", e.msg);
		cr_assert_null(strstr(e.msg, "TOPSECRET"));
		cr_assert_null(strstr(e.msg, "root:"));
		free(x);
	}
	/* A FIFO: opening it for reading would block (the test would time out), and its writer
	 * end, opened non-blocking, fails with ENXIO while no one has opened it to read. */
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	const char *kinds[] = {"<!ENTITY xxe SYSTEM \"file://%s\">", "<!ENTITY %% pe SYSTEM \"file://%s\"> %%pe;",
			       "<!ENTITY xxe PUBLIC \"-//x//y\" \"%s\">"};
	for (size_t i = 0; i < 3; i++) {
		char *decl = xasprintf(kinds[i], fifo);
		char *x = xasprintf("<!DOCTYPE project [\n%s\n]>\n<project><a>&xxe;</a></project>", decl);
		cJSON *o = NULL;
		struct err e = {0};
		cr_assert_eq(pomxml_test_config(x, strlen(x), &o, &e), BELAY_EINVAL, "%s", x);
		int w = open(fifo, O_WRONLY | O_NONBLOCK);
		cr_assert_eq(w, -1, "someone opened the FIFO to read it");
		free(decl);
		free(x);
	}
	/* an external DTD is not loaded either (without a declared entity it is not an error) */
	char *x = xasprintf("<!DOCTYPE project SYSTEM \"file://%s\">\n<project/>", fifo);
	cJSON *o = NULL;
	struct err e = {0};
	cr_assert_eq(pomxml_test_config(x, strlen(x), &o, &e), 0, "%s", e.msg);
	cJSON_Delete(o);
	free(x);
	unlink(fifo);
	unlink(secret);
	rmdir(dir);
	free(fifo);
	free(secret);
}
