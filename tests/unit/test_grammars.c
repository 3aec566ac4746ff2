/* test_grammars.c - every tree-sitter grammar compiled into belay loads into the runtime
 * it is linked with: its language ABI lies in the runtime's accepted range, the parser
 * takes it, and a small sample parses without an error node. One line per grammar. */
#include <criterion/criterion.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "assertions/toml.h"

const TSLanguage *tree_sitter_toml(void);
const TSLanguage *tree_sitter_javascript(void);
const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);
const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_go(void);
const TSLanguage *tree_sitter_rust(void);
const TSLanguage *tree_sitter_java(void);
const TSLanguage *tree_sitter_kotlin(void);

static const struct {
	const char *name;
	const TSLanguage *(*language)(void);
	const char *sample;
} grammars[] = {
    {"toml", tree_sitter_toml, "[package]\nname = \"x\"\n[[bin]]\npath = 'a'\n"},
    {"javascript", tree_sitter_javascript,
     "describe('a', () => {\n  it(`b`, async () => { expect(await f()).toBe(1); });\n});\n"},
    {"typescript", tree_sitter_typescript,
     "import { f } from './f';\ntest('a', (): void => { const x: number = f(1) as number; expect(x).toBe(1); });\n"},
    {"tsx", tree_sitter_tsx, "test('a', () => { const el = <A b={1}>c</A>; expect(render(el)).toBeTruthy(); });\n"},
    {"python", tree_sitter_python,
     "import pytest\n\n@pytest.mark.parametrize('x', [1, 2])\nclass TestA:\n    def test_a(self, x):\n"
     "        with pytest.raises(ValueError, match=r'bad'):\n            f(x)\n        assert f'{x}' == str(x)\n"},
    {"go", tree_sitter_go,
     "//go:build linux\n\npackage calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tt.Run(\"a\", func(t *testing.T) "
     "{\n\t\tif got := Add(1, 2); got != 3 {\n\t\t\tt.Fatalf(\"got %d\", got)\n\t\t}\n\t})\n}\n"},
    {"rust", tree_sitter_rust,
     "#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    #[should_panic(expected = \"boom\")]\n"
     "    fn adds() { assert_eq!(add(1, 2), 3, \"sum\"); }\n}\n"},
    {"java", tree_sitter_java,
     "import static org.junit.jupiter.api.Assertions.*;\n@Disabled class T {\n  @Test void a() throws Exception {\n"
     "    var s = \"\"\"\n      x\"\"\";\n    assertThrows(E.class, () -> f(s));\n  }\n}\n"},
    {"kotlin", tree_sitter_kotlin,
     "import kotlin.test.*\n@Ignore class T {\n  @Test fun a() {\n    val s = \"\"\"x${1}\"\"\"\n"
     "    assertFailsWith<E> { f(s) }\n    assertEquals(\"$s!\", g(s), message = \"m\")\n  }\n}\n"},
};

Test(grammars, abi_in_runtime_range_and_loadable)
{
	for (size_t i = 0; i < sizeof grammars / sizeof *grammars; i++) {
		const TSLanguage *lang = grammars[i].language();
		uint32_t abi = ts_language_version(lang);
		cr_assert(abi >= TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION && abi <= TREE_SITTER_LANGUAGE_VERSION,
			  "%s: language ABI %u, the runtime loads %d-%d", grammars[i].name, abi,
			  TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION, TREE_SITTER_LANGUAGE_VERSION);
		TSParser *p = ts_parser_new();
		cr_assert(ts_parser_set_language(p, lang), "%s: ts_parser_set_language refused it", grammars[i].name);
		TSTree *t = ts_parser_parse_string(p, NULL, grammars[i].sample, (uint32_t)strlen(grammars[i].sample));
		cr_assert_not_null(t, "%s: no tree", grammars[i].name);
		cr_assert(!ts_node_has_error(ts_tree_root_node(t)), "%s: its sample does not parse", grammars[i].name);
		ts_tree_delete(t);
		ts_parser_delete(p);
	}
}

Test(grammars, toml_reports_its_abi)
{
	cr_assert_eq(toml_grammar_abi(), ts_language_version(tree_sitter_toml()));
}
