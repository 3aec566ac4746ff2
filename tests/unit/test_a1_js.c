/* test_a1_js.c - src/assertions/a1_js.c: the JavaScript / TypeScript test judge. A table of
 * cheats (each finding class, in jest / vitest / mocha+chai / node:test / ava / playwright
 * spellings, JS, TS and TSX) with the finding and status each must give; a table of honest
 * edits that must give no FAIL (most of them no finding at all); hostile input (deep
 * brackets, NUL, invalid UTF-8, oversize, empty) refused as findings, never a crash. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "assertions/a1_js.h"

static cJSON *judge(const char *path, const char *pre, const char *post)
{
	return a1_js_judge(a1_js_dialect(path), path, pre, pre ? strlen(pre) : 0, post, post ? strlen(post) : 0);
}

static const cJSON *find(const cJSON *out, const char *finding)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, out)
	{
		const cJSON *n = cJSON_GetObjectItem(f, "finding");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, finding))
			return f;
	}
	return NULL;
}

static int count_status(const cJSON *out, const char *status)
{
	int k = 0;
	const cJSON *f;
	cJSON_ArrayForEach(f, out)
	{
		const cJSON *s = cJSON_GetObjectItem(f, "status");
		k += cJSON_IsString(s) && !strcmp(s->valuestring, status);
	}
	return k;
}

struct cheat {
	const char *what, *path, *pre, *post, *finding, *status, *function;
};

#define ADD_JEST "test('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n"
#define TWO_JEST ADD_JEST "test('subs', () => {\n  expect(sub(2, 1)).toBe(1);\n});\n"
#define CHAI                                                                                                           \
	"describe('calc', function () {\n  it('adds', function () {\n    expect(add(1, 2)).to.equal(3);\n  });\n});\n"
#define NODE                                                                                                           \
	"const test = require('node:test');\nconst assert = require('node:assert');\n"                                 \
	"test('adds', (t) => {\n  assert.strictEqual(add(1, 2), 3);\n});\n"
#define AVA "import test from 'ava';\ntest('adds', t => {\n  t.is(add(1, 2), 3);\n});\n"
#define TS_AVA                                                                                                         \
	"import test, { ExecutionContext } from 'ava';\n"                                                              \
	"test('adds', (t: ExecutionContext): void => {\n  t.is(add(1, 2) as number, 3);\n});\n"

#define ROWS_PRE "test('a', () => {\n  expect(add(1, 2)).toBe(3);\n  expect(add(2, 2)).toBe(4);\n});\n"
#define ROWS_BODY "  expect(add(a, b)).toBe(want);\n"
#define ROWS_EACH_FN(fn, rows, body) fn ".each(" rows ")('add(%i, %i)', (a, b, want) => {\n" body "});\n"
#define ROWS_EACH(rows, body) ROWS_EACH_FN("test", rows, body)

static const struct cheat cheats[] = {
    /* test-deleted */
    {"jest test deleted", "calc.test.js", TWO_JEST, ADD_JEST, "test-deleted", "FAIL", "subs"},
    {"chai test deleted in a describe", "calc.spec.js", CHAI, "describe('calc', function () {});\n", "test-deleted",
     "FAIL", "calc > adds"},
    {"file deleted", "calc.test.ts", TWO_JEST, NULL, "test-deleted", "FAIL", "adds"},
    {"renamed and emptied is deleted", "calc.test.js", ADD_JEST, "test('adds two', () => {});\n", "test-deleted",
     "FAIL", "adds"},
    /* test-skipped */
    {"it.skip", "calc.spec.js", CHAI,
     "describe('calc', function () {\n  it.skip('adds', function () {\n    expect(add(1, 2)).to.equal(3);\n  "
     "});\n});\n",
     "test-skipped", "FAIL", "calc > adds"},
    {"xit", "calc.spec.js", CHAI,
     "describe('calc', function () {\n  xit('adds', function () {\n    expect(add(1, 2)).to.equal(3);\n  });\n});\n",
     "test-skipped", "FAIL", "calc > adds"},
    {"test.skip", "calc.test.ts", ADD_JEST, "test.skip('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n",
     "test-skipped", "FAIL", "adds"},
    {"describe.skip", "calc.spec.js", CHAI,
     "describe.skip('calc', function () {\n  it('adds', function () {\n    expect(add(1, 2)).to.equal(3);\n  "
     "});\n});\n",
     "test-skipped", "FAIL", "calc > adds"},
    {"xdescribe", "calc.spec.js", CHAI,
     "xdescribe('calc', function () {\n  it('adds', function () {\n    expect(add(1, 2)).to.equal(3);\n  });\n});\n",
     "test-skipped", "FAIL", "calc > adds"},
    {"test.todo", "calc.test.js", ADD_JEST, "test.todo('adds');\n", "test-skipped", "FAIL", "adds"},
    {"pending it without a callback", "calc.spec.js", CHAI, "describe('calc', function () {\n  it('adds');\n});\n",
     "test-skipped", "FAIL", "calc > adds"},
    {"node:test {skip: true}", "calc.test.mjs", NODE,
     "const test = require('node:test');\nconst assert = require('node:assert');\n"
     "test('adds', { skip: 'flaky' }, (t) => {\n  assert.strictEqual(add(1, 2), 3);\n});\n",
     "test-skipped", "FAIL", "adds"},
    {"node:test {todo: true}", "calc.test.mjs", NODE,
     "const test = require('node:test');\nconst assert = require('node:assert');\n"
     "test('adds', { todo: true }, (t) => {\n  assert.strictEqual(add(1, 2), 3);\n});\n",
     "test-skipped", "FAIL", "adds"},
    {"node:test t.skip()", "calc.test.mjs", NODE,
     "const test = require('node:test');\nconst assert = require('node:assert');\n"
     "test('adds', (t) => {\n  t.skip();\n  assert.strictEqual(add(1, 2), 3);\n});\n",
     "test-skipped", "FAIL", "adds"},
    {"mocha this.skip()", "calc.spec.js", CHAI,
     "describe('calc', function () {\n  it('adds', function () {\n    this.skip();\n    expect(add(1, "
     "2)).to.equal(3);\n  });\n});\n",
     "test-skipped", "FAIL", "calc > adds"},
    {"vitest skipIf(true)", "calc.test.ts", ADD_JEST,
     "test.skipIf(true)('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n", "test-skipped", "FAIL", "adds"},
    {"vitest runIf(false)", "calc.test.ts", ADD_JEST,
     "test.runIf(false)('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n", "test-skipped", "FAIL", "adds"},
    {"playwright test.fixme", "calc.spec.ts", ADD_JEST,
     "test.fixme('adds', async () => {\n  expect(add(1, 2)).toBe(3);\n});\n", "test-skipped", "FAIL", "adds"},
    {"ava test.skip", "calc.test.js", AVA,
     "import test from 'ava';\ntest.skip('adds', t => {\n  t.is(add(1, 2), 3);\n});\n", "test-skipped", "FAIL", "adds"},
    {"jest each skipped", "calc.test.js",
     "test.each([[1, 2, 3]])('adds %i', (a, b, c) => {\n  expect(add(a, b)).toBe(c);\n});\n",
     "test.skip.each([[1, 2, 3]])('adds %i', (a, b, c) => {\n  expect(add(a, b)).toBe(c);\n});\n", "test-skipped",
     "FAIL", "adds %i"},
    /* expected-failure-added */
    {"jest test.failing", "calc.test.js", ADD_JEST, "test.failing('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n",
     "expected-failure-added", "FAIL", "adds"},
    {"vitest it.fails", "calc.test.ts", ADD_JEST, "it.fails('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n",
     "expected-failure-added", "FAIL", "adds"},
    /* focus-added */
    {"it.only", "calc.spec.js", CHAI,
     "describe('calc', function () {\n  it.only('adds', function () {\n    expect(add(1, 2)).to.equal(3);\n  "
     "});\n});\n",
     "focus-added", "FAIL", "calc > adds"},
    {"fit", "calc.spec.js", TWO_JEST,
     "fit('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\ntest('subs', () => {\n  expect(sub(2, "
     "1)).toBe(1);\n});\n",
     "focus-added", "FAIL", "adds"},
    {"fdescribe", "calc.spec.js", CHAI,
     "fdescribe('calc', function () {\n  it('adds', function () {\n    expect(add(1, 2)).to.equal(3);\n  });\n});\n",
     "focus-added", "FAIL", "calc"},
    {"describe.only in an added file", "new.test.js", NULL,
     "describe.only('x', () => {\n  it('y', () => {\n    expect(1 + f()).toBe(2);\n  });\n});\n", "focus-added", "FAIL",
     "x"},
    {"node:test {only: true}", "calc.test.mjs", NODE,
     "const test = require('node:test');\nconst assert = require('node:assert');\n"
     "test('adds', { only: true }, (t) => {\n  assert.strictEqual(add(1, 2), 3);\n});\n",
     "focus-added", "FAIL", "adds"},
    /* replaced-by-tautology */
    {"expect(true).toBe(true)", "calc.test.js", ADD_JEST, "test('adds', () => {\n  expect(true).toBe(true);\n});\n",
     "replaced-by-tautology", "FAIL", "adds"},
    {"expect(x).toEqual(x)", "calc.test.js",
     "test('adds', () => {\n  const r = add(1, 2);\n  expect(r).toEqual(3);\n});\n",
     "test('adds', () => {\n  const r = add(1, 2);\n  expect(r).toEqual(r);\n});\n", "replaced-by-tautology", "FAIL",
     "adds"},
    {"assert(true)", "calc.test.mjs", NODE,
     "const test = require('node:test');\nconst assert = require('node:assert');\n"
     "test('adds', (t) => {\n  assert(true);\n});\n",
     "replaced-by-tautology", "FAIL", "adds"},
    {"assert.ok(1)", "calc.test.mjs", NODE,
     "const test = require('node:test');\nconst assert = require('node:assert');\n"
     "test('adds', (t) => {\n  assert.ok(1);\n});\n",
     "replaced-by-tautology", "FAIL", "adds"},
    {"assert.equal(r, r)", "calc.test.mjs", NODE,
     "const test = require('node:test');\nconst assert = require('node:assert');\n"
     "test('adds', (t) => {\n  const r = add(1, 2);\n  assert.strictEqual(r, r);\n});\n",
     "replaced-by-tautology", "FAIL", "adds"},
    {"ava (c) => c.is -> c.pass()", "calc.test.js", "import test from 'ava';\ntest('adds', (c) => {\n  c.is(add(1, 2), 3);\n});\n",
     "import test from 'ava';\ntest('adds', (c) => {\n  c.pass();\n});\n", "replaced-by-tautology", "FAIL", "adds"},
    {"strictEqual -> equal with the loose assert (a comment names assert/strict)", "calc.test.js",
     "const assert = require('assert'); // not assert/strict\ntest('adds', () => {\n  assert.strictEqual(add(1, 2), 3);\n});\n",
     "const assert = require('assert'); // not assert/strict\ntest('adds', () => {\n  assert.equal(add(1, 2), 3);\n});\n",
     "matcher-loosened", "FAIL", "adds"},
    {"if (0) around the assertion", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  if (0) {\n    expect(add(1, 2)).toBe(3);\n  }\n});\n", "assertion-unreachable", "FAIL", "adds"},
    {"if (0.0e0) around the assertion", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  if (0.0e0) {\n    expect(add(1, 2)).toBe(3);\n  }\n});\n", "assertion-unreachable", "FAIL", "adds"},
    {"ava t.pass()", "calc.test.js", AVA, "import test from 'ava';\ntest('adds', t => {\n  t.pass();\n});\n",
     "replaced-by-tautology", "FAIL", "adds"},
    {"ava t.true(true)", "calc.test.js", AVA, "import test from 'ava';\ntest('adds', t => {\n  t.true(true);\n});\n",
     "replaced-by-tautology", "FAIL", "adds"},
    {"chai expect(1).to.equal(1)", "calc.spec.js", CHAI,
     "describe('calc', function () {\n  it('adds', function () {\n    expect(1).to.equal(1);\n  });\n});\n",
     "replaced-by-tautology", "FAIL", "calc > adds"},
    {"chai expect(true).to.be.true", "calc.spec.js", CHAI,
     "describe('calc', function () {\n  it('adds', function () {\n    expect(true).to.be.true;\n  });\n});\n",
     "replaced-by-tautology", "FAIL", "calc > adds"},
    /* matcher-loosened */
    {"toBe -> toBeTruthy", "calc.test.js", ADD_JEST, "test('adds', () => {\n  expect(add(1, 2)).toBeTruthy();\n});\n",
     "matcher-loosened", "FAIL", "adds"},
    {"toEqual -> toBeDefined", "calc.test.ts", "test('list', () => {\n  expect(list()).toEqual([1, 2]);\n});\n",
     "test('list', () => {\n  expect(list()).toBeDefined();\n});\n", "matcher-loosened", "FAIL", "list"},
    {"toHaveLength -> not.toBeNull", "calc.test.ts", "test('list', () => {\n  expect(list()).toHaveLength(2);\n});\n",
     "test('list', () => {\n  expect(list()).not.toBeNull();\n});\n", "matcher-loosened", "FAIL", "list"},
    {"toThrow(X) -> toThrow()", "calc.test.js",
     "test('throws', () => {\n  expect(() => div(1, 0)).toThrow(RangeError);\n});\n",
     "test('throws', () => {\n  expect(() => div(1, 0)).toThrow();\n});\n", "matcher-loosened", "FAIL", "throws"},
    {"rejects.toThrow(X) -> rejects.toThrow()", "calc.test.js",
     "test('throws', async () => {\n  await expect(load()).rejects.toThrow('missing');\n});\n",
     "test('throws', async () => {\n  await expect(load()).rejects.toThrow();\n});\n", "matcher-loosened", "FAIL",
     "throws"},
    {"strictEqual -> equal", "calc.test.mjs", NODE,
     "const test = require('node:test');\nconst assert = require('node:assert');\n"
     "test('adds', (t) => {\n  assert.equal(add(1, 2), 3);\n});\n",
     "matcher-loosened", "FAIL", "adds"},
    {"assert.strict.equal -> assert.equal", "calc.test.mjs",
     "test('adds', () => {\n  assert.strict.equal(add(1, 2), 3);\n});\n",
     "test('adds', () => {\n  assert.equal(add(1, 2), 3);\n});\n", "matcher-loosened", "FAIL", "adds"},
    {"deepStrictEqual -> deepEqual", "calc.test.mjs",
     "test('list', () => {\n  assert.deepStrictEqual(list(), [1]);\n});\n",
     "test('list', () => {\n  assert.deepEqual(list(), [1]);\n});\n", "matcher-loosened", "FAIL", "list"},
    {"toStrictEqual -> toEqual", "calc.test.ts", "test('o', () => {\n  expect(o()).toStrictEqual({ a: 1 });\n});\n",
     "test('o', () => {\n  expect(o()).toEqual({ a: 1 });\n});\n", "matcher-loosened", "FAIL", "o"},
    {"toBeCloseTo fewer digits", "calc.test.js", "test('pi', () => {\n  expect(pi()).toBeCloseTo(3.14159, 5);\n});\n",
     "test('pi', () => {\n  expect(pi()).toBeCloseTo(3.14159, 1);\n});\n", "matcher-loosened", "FAIL", "pi"},
    {"toHaveBeenCalledWith -> toHaveBeenCalled", "calc.test.js",
     "test('calls', () => {\n  run(spy);\n  expect(spy).toHaveBeenCalledWith(1);\n});\n",
     "test('calls', () => {\n  run(spy);\n  expect(spy).toHaveBeenCalled();\n});\n", "matcher-loosened", "FAIL",
     "calls"},
    /* an exact check rewritten as a boolean of a looser comparison */
    {"toBe(3) -> expect(x >= 0).toBe(true)", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  expect(add(1, 2) >= 0).toBe(true);\n});\n", "matcher-loosened", "FAIL", "adds"},
    {"toBe(3) -> expect(0 <= x).toBeTruthy()", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  expect(0 <= add(1, 2)).toBeTruthy();\n});\n", "matcher-loosened", "FAIL", "adds"},
    {"assert.equal -> assert.ok(x >= 0)", "calc.test.js", "test('adds', () => {\n  assert.equal(add(1, 2), 3);\n});\n",
     "test('adds', () => {\n  assert.ok(add(1, 2) >= 0);\n});\n", "matcher-loosened", "FAIL", "adds"},
    {"strictEqual -> assert(x !== null)", "calc.test.mjs", NODE,
     "const test = require('node:test');\nconst assert = require('node:assert');\n"
     "test('adds', (t) => {\n  assert(add(1, 2) !== null);\n});\n",
     "matcher-loosened", "FAIL", "adds"},
    {"toEqual -> a disjunction with the old check", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  expect(add(1, 2) === 3 || add(1, 2) === 4).toBe(true);\n});\n", "matcher-loosened",
     "FAIL", "adds"},
    {"chai to.equal -> expect(x > 0).to.be.true", "calc.spec.js", CHAI,
     "describe('calc', function () {\n  it('adds', function () {\n    expect(add(1, 2) > 0).to.be.true;\n  });\n});\n",
     "matcher-loosened", "FAIL", "calc > adds"},
    {"ava t.is -> t.true(x != 4)", "calc.test.js", AVA,
     "import test from 'ava';\ntest('adds', t => {\n  t.true(add(1, 2) != 4);\n});\n", "matcher-loosened", "FAIL", "adds"},
    {"assert.ok(x === 3) -> assert.ok(x >= 0)", "calc.test.js", "test('adds', () => {\n  assert.ok(add(1, 2) === 3);\n});\n",
     "test('adds', () => {\n  assert.ok(add(1, 2) >= 0);\n});\n", "matcher-loosened", "FAIL", "adds"},
    {"chai to.equal -> to.be.ok", "calc.spec.js", CHAI,
     "describe('calc', function () {\n  it('adds', function () {\n    expect(add(1, 2)).to.be.ok;\n  });\n});\n",
     "matcher-loosened", "FAIL", "calc > adds"},
    {"ava t.is -> t.truthy", "calc.test.js", AVA,
     "import test from 'ava';\ntest('adds', t => {\n  t.truthy(add(1, 2));\n});\n", "matcher-loosened", "FAIL", "adds"},
    {"ts ava t.is -> t.truthy", "calc.test.ts", TS_AVA,
     "import test, { ExecutionContext } from 'ava';\n"
     "test('adds', (t: ExecutionContext): void => {\n  t.truthy(add(1, 2) as number);\n});\n",
     "matcher-loosened", "FAIL", "adds"},
    {"toEqual -> toEqual(expect.anything())", "calc.test.js",
     "test('o', () => {\n  expect(o()).toEqual({ a: 1 });\n});\n",
     "test('o', () => {\n  expect(o()).toEqual(expect.anything());\n});\n", "matcher-loosened", "FAIL", "o"},
    {"tsx toBe -> toBeTruthy", "Button.test.tsx",
     "import { render } from '@testing-library/react';\ntest('renders', () => {\n  const { container } = "
     "render(<Button label=\"hi\" />);\n  expect(container.textContent).toBe('hi');\n});\n",
     "import { render } from '@testing-library/react';\ntest('renders', () => {\n  const { container } = "
     "render(<Button label=\"hi\" />);\n  expect(container.textContent).toBeTruthy();\n});\n",
     "matcher-loosened", "FAIL", "renders"},
    /* assertion-negated */
    {"toBe -> not.toBe", "calc.test.js", ADD_JEST, "test('adds', () => {\n  expect(add(1, 2)).not.toBe(3);\n});\n",
     "assertion-negated", "FAIL", "adds"},
    {"assert.equal -> notEqual", "calc.test.mjs", "test('adds', () => {\n  assert.equal(add(1, 2), 3);\n});\n",
     "test('adds', () => {\n  assert.notEqual(add(1, 2), 3);\n});\n", "assertion-negated", "FAIL", "adds"},
    {"t.is -> t.not", "calc.test.js", AVA,
     "import test from 'ava';\ntest('adds', t => {\n  t.not(add(1, 2), 3);\n});\n", "assertion-negated", "FAIL",
     "adds"},
    {"chai to.equal -> to.not.equal", "calc.spec.js", CHAI,
     "describe('calc', function () {\n  it('adds', function () {\n    expect(add(1, 2)).to.not.equal(3);\n  });\n});\n",
     "assertion-negated", "FAIL", "calc > adds"},
    /* expected-value-changed */
    {"toBe(3) -> toBe(4)", "calc.test.js", ADD_JEST, "test('adds', () => {\n  expect(add(1, 2)).toBe(4);\n});\n",
     "expected-value-changed", "WARN", "adds"},
    {"t.is(x, 3) -> t.is(x, 4)", "calc.test.js", AVA,
     "import test from 'ava';\ntest('adds', t => {\n  t.is(add(1, 2), 4);\n});\n", "expected-value-changed", "WARN",
     "adds"},
    /* assertion-removed / test-lost-every-assertion */
    {"one of two removed", "calc.test.js",
     "test('adds', () => {\n  expect(add(1, 2)).toBe(3);\n  expect(add(2, 2)).toBe(4);\n});\n", ADD_JEST,
     "assertion-removed", "FAIL", "adds"},
    {"every assertion removed", "calc.test.js", ADD_JEST, "test('adds', () => {\n  add(1, 2);\n});\n",
     "test-lost-every-assertion", "FAIL", "adds"},
    {"matcher call dropped", "calc.test.js", ADD_JEST, "test('adds', () => {\n  expect(add(1, 2));\n});\n",
     "test-lost-every-assertion", "FAIL", "adds"},
    {"expect.assertions removed", "calc.test.js",
     "test('a', async () => {\n  expect.assertions(1);\n  await expect(f()).resolves.toBe(1);\n});\n",
     "test('a', async () => {\n  await expect(f()).resolves.toBe(1);\n});\n", "assertion-removed", "FAIL", "a"},
    {"chai assertion removed", "calc.spec.js",
     "describe('c', () => {\n  it('a', () => {\n    expect(a()).to.be.true;\n    expect(b()).to.equal(2);\n  "
     "});\n});\n",
     "describe('c', () => {\n  it('a', () => {\n    expect(b()).to.equal(2);\n  });\n});\n", "assertion-removed",
     "FAIL", "c > a"},
    /* assertion-unreachable */
    {"return before expect", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  return;\n  expect(add(1, 2)).toBe(3);\n});\n", "assertion-unreachable", "FAIL", "adds"},
    {"if (false)", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  if (false) {\n    expect(add(1, 2)).toBe(3);\n  }\n});\n", "assertion-unreachable",
     "FAIL", "adds"},
    {"while (0)", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  while (0) {\n    expect(add(1, 2)).toBe(3);\n  }\n});\n", "assertion-unreachable", "FAIL",
     "adds"},
    {"if (!true)", "calc.test.ts", ADD_JEST, "test('adds', () => {\n  if (!true) expect(add(1, 2)).toBe(3);\n});\n",
     "assertion-unreachable", "FAIL", "adds"},
    /* failure-swallowed */
    {"try/catch {}", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  try {\n    expect(add(1, 2)).toBe(3);\n  } catch (e) {}\n});\n", "failure-swallowed",
     "FAIL", "adds"},
    {"try/catch that logs", "calc.spec.js", CHAI,
     "describe('calc', function () {\n  it('adds', function () {\n    try {\n      expect(add(1, 2)).to.equal(3);\n    "
     "} catch (e) {\n      console.log(e);\n    }\n  });\n});\n",
     "failure-swallowed", "FAIL", "calc > adds"},
    {".catch(() => {})", "calc.test.js", "test('a', async () => {\n  await expect(f()).resolves.toBe(1);\n});\n",
     "test('a', async () => {\n  await expect(f()).resolves.toBe(1).catch(() => {});\n});\n", "failure-swallowed",
     "FAIL", "a"},
    {"assert.rejects().catch(noop)", "calc.test.mjs",
     "test('a', async () => {\n  await assert.rejects(f(), TypeError);\n});\n",
     "test('a', async () => {\n  await assert.rejects(f(), TypeError).catch(() => null);\n});\n", "failure-swallowed",
     "FAIL", "a"},
    /* unit-under-test-mocked */
    {"jest.mock of the unit", "src/calc.test.ts", "import { add } from './calc';\n" ADD_JEST,
     "import { add } from './calc';\njest.mock('./calc');\n" ADD_JEST, "unit-under-test-mocked", "FAIL", NULL},
    {"vi.mock of the unit with extension", "test/calc.spec.ts", "import { add } from '../src/calc.js';\n" ADD_JEST,
     "import { add } from '../src/calc.js';\nvi.mock('../src/calc.js', () => ({ add: () => 3 }));\n" ADD_JEST,
     "unit-under-test-mocked", "FAIL", NULL},
    {"mock of the unit's index", "calc.test.js", ADD_JEST, "jest.doMock('../calc/index');\n" ADD_JEST,
     "unit-under-test-mocked", "FAIL", NULL},
    /* a weakened node:test subtest */
    {"node:test subtest loosened", "calc.test.mjs",
     "test('calc', async (t) => {\n  await t.test('adds', () => {\n    assert.strictEqual(add(1, 2), 3);\n  });\n});\n",
     "test('calc', async (t) => {\n  await t.test('adds', () => {\n    assert.ok(add(1, 2));\n  });\n});\n",
     "matcher-loosened", "FAIL", "calc > adds"},
    /* checks generalised into rows (a1_rows.h): a row dropped / changed, hidden, elsewhere */
    {"rows: a row dropped from test.each", "calc.test.js", ROWS_PRE, ROWS_EACH("[[1, 2, 3]]", ROWS_BODY), "test-deleted", "FAIL", "a"},
    {"rows: a row's expected value changed", "calc.test.js", ROWS_PRE, ROWS_EACH("[[1, 2, 3], [2, 2, 5]]", ROWS_BODY),
     "test-deleted", "FAIL", "a"},
    {"rows: test.each asserting nothing", "calc.test.js", ROWS_PRE, ROWS_EACH("[[1, 2, 3], [2, 2, 4]]", "  add(a, b);\n"),
     "test-deleted", "FAIL", "a"},
    {"rows: test.each asserting a tautology", "calc.test.js", ROWS_PRE,
     ROWS_EACH("[[1, 2, 3], [2, 2, 4]]", "  expect(want).toBe(want);\n"), "test-deleted", "FAIL", "a"},
    {"rows: a row in a comment", "calc.test.js", ROWS_PRE, ROWS_EACH("[[1, 2, 3] /* [2, 2, 4] */]", ROWS_BODY),
     "test-deleted", "FAIL", "a"},
    {"rows: a row only in another test's table", "calc.test.js", ROWS_PRE,
     ROWS_EACH("[[1, 2, 3]]", ROWS_BODY) "test.each([[2, 2, 4]])('mul', (a, b, want) => {\n  expect(mul(a, b)).toBe(want);\n});\n",
     "test-deleted", "FAIL", "a"},
    {"rows: a row removed from a test.each table kept", "calc.test.js", ROWS_EACH("[[1, 2, 3], [2, 2, 4]]", ROWS_BODY),
     ROWS_EACH("[[1, 2, 3]]", ROWS_BODY), "test-case-removed", "FAIL", "add(%i, %i)"},
    {"rows: a row of a test.each table changed", "calc.test.js", ROWS_EACH("[[1, 2, 3], [2, 2, 4]]", ROWS_BODY),
     ROWS_EACH("[[1, 2, 3], [2, 2, 5]]", ROWS_BODY), "test-case-removed", "FAIL", "add(%i, %i)"},
    {"rows: the only check turned into a for-of row with its expected value changed", "calc.test.js",
     "test('a', () => {\n  expect(add(1, 2)).toBe(3);\n});\n",
     "test('a', () => {\n  for (const [a, b, want] of [[1, 2, 4]]) {\n    expect(add(a, b)).toBe(want);\n  }\n});\n",
     "assertion-removed", "FAIL", "a"},
    {"rows: a row dropped from a for-of loop", "calc.test.js", ROWS_PRE,
     "test('a', () => {\n  for (const [a, b, want] of [[1, 2, 3]]) {\n    expect(add(a, b)).toBe(want);\n  }\n});\n",
     "assertion-removed", "FAIL", "a"},
};

/* The judge of pre -> post gives `finding` with `status`, `cause` (NULL: null) and `function`
 * (NULL: null). */
static void expect_finding(const char *what, const char *path, const char *pre, const char *post, const char *finding,
			   const char *status, const char *cause, const char *function)
{
	cJSON *out = judge(path, pre, post);
	char *txt = cJSON_Print(out);
	const cJSON *f = find(out, finding);
	cr_expect(f != NULL, "%s: no %s in %s", what, finding, txt);
	if (f) {
		cr_expect_str_eq(cJSON_GetObjectItem(f, "status")->valuestring, status, "%s: %s", what, txt);
		const cJSON *fn = cJSON_GetObjectItem(f, "function"), *c = cJSON_GetObjectItem(f, "cause");
		if (function)
			cr_expect(cJSON_IsString(fn) && !strcmp(fn->valuestring, function), "%s: function in %s", what, txt);
		else
			cr_expect(cJSON_IsNull(fn), "%s: function in %s", what, txt);
		if (cause)
			cr_expect(cJSON_IsString(c) && !strcmp(c->valuestring, cause), "%s: cause in %s", what, txt);
		else
			cr_expect(cJSON_IsNull(c), "%s: cause in %s", what, txt);
	}
	free(txt);
	cJSON_Delete(out);
}

Test(a1_js, cheats_are_found)
{
	for (size_t i = 0; i < sizeof cheats / sizeof *cheats; i++) {
		const struct cheat *c = &cheats[i];
		expect_finding(c->what, c->path, c->pre, c->post, c->finding, c->status, NULL, c->function);
	}
}

struct honest {
	const char *what, *path, *pre, *post;
	int quiet; /* no finding at all (else: no FAIL and no UNVERIFIED) */
};

static const struct honest honest[] = {
    {"unchanged", "calc.test.js", TWO_JEST, TWO_JEST, 1},
    {"strictEqual -> equal under node's strict assert", "calc.test.mjs",
     "import assert from 'node:assert/strict';\nimport test from 'node:test';\ntest('adds', () => {\n  assert.strictEqual(add(1, 2), 3);\n});\n",
     "import assert from 'node:assert/strict';\nimport test from 'node:test';\ntest('adds', () => {\n  assert.equal(add(1, 2), 3);\n});\n", 1},
    {"deepStrictEqual -> deepEqual under require('assert').strict", "calc.test.js",
     "const assert = require('assert').strict;\ntest('adds', () => {\n  assert.deepStrictEqual(pair(), [1, 2]);\n});\n",
     "const assert = require('assert').strict;\ntest('adds', () => {\n  assert.deepEqual(pair(), [1, 2]);\n});\n", 1},
    {"a branch that always runs", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  if (1) {\n    expect(add(1, 2)).toBe(3);\n  }\n});\n", 1},
    {"a branch that always runs (hex)", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  if (0x10) {\n    expect(add(1, 2)).toBe(3);\n  }\n});\n", 1},
    {"a new test", "calc.test.js", ADD_JEST, TWO_JEST, 1},
    {"a test split in two (issue 32)", "calc.test.js",
     "test('adds', () => {\n  expect(add(1, 2)).toBe(3);\n  expect(add(0, 0)).toBe(0);\n});\n",
     ADD_JEST "test('adds zero', () => {\n  expect(add(0, 0)).toBe(0);\n});\n", 1},
    {"a new assertion", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  expect(add(1, 2)).toBe(3);\n  expect(add(0, 0)).toBe(0);\n});\n", 1},
    {"a stricter matcher", "calc.test.js", "test('adds', () => {\n  expect(add(1, 2)).toBeTruthy();\n});\n", ADD_JEST,
     1},
    {"toThrow() -> toThrow(X)", "calc.test.js", "test('t', () => {\n  expect(() => f()).toThrow();\n});\n",
     "test('t', () => {\n  expect(() => f()).toThrow(TypeError);\n});\n", 1},
    {"a rename with its assertions", "calc.test.js", TWO_JEST,
     "test('adds two numbers', () => {\n  expect(add(1, 2)).toBe(3);\n});\ntest('subs', () => {\n  expect(sub(2, "
     "1)).toBe(1);\n});\n",
     1},
    {"an assertion moved into a helper", "calc.test.js",
     "test('adds', () => {\n  expect(add(1, 2)).toBe(3);\n  expect(add(2, 2)).toBe(4);\n});\n",
     "function check() {\n  expect(add(2, 2)).toBe(4);\n}\ntest('adds', () => {\n  expect(add(1, 2)).toBe(3);\n  "
     "check();\n});\n",
     1},
    {"assertions moved into an arrow helper two calls away", "calc.test.ts", ADD_JEST,
     "const inner = () => {\n  expect(add(1, 2)).toBe(3);\n};\nconst outer = () => inner();\ntest('adds', () => {\n  "
     "outer();\n});\n",
     1},
    {"reformatted", "calc.test.js", "test('list', () => {\n  expect(list(1, 2)).toEqual([1, 2]);\n});\n",
     "test(\"list\", () => {\n  expect(\n    list(\n      1,\n      2,\n    ),\n  ).toEqual([\n    1,\n    2,\n  "
     "])\n})\n",
     1},
    {"comments added", "calc.test.js", ADD_JEST,
     "// the sum\ntest('adds', () => {\n  /* 1 + 2 */ expect(add(1, /* one */ 2)).toBe(3); // three\n});\n", 1},
    {"quote style", "calc.test.js", "test('greets', () => {\n  expect(greet('bob')).toBe('hi bob');\n});\n",
     "test(\"greets\", () => {\n  expect(greet(\"bob\")).toBe(\"hi bob\");\n});\n", 1},
    {"moved inside a describe", "calc.test.js", TWO_JEST,
     "describe('calc', () => {\n" ADD_JEST "});\ntest('subs', () => {\n  expect(sub(2, 1)).toBe(1);\n});\n", 1},
    {"describe renamed", "calc.spec.js", CHAI,
     "describe('calculator', function () {\n  it('adds', function () {\n    expect(add(1, 2)).to.equal(3);\n  "
     "});\n});\n",
     1},
    {"an added file", "new.test.ts", NULL, TWO_JEST, 1},
    {"an added file that mocks something else", "calc.test.ts", NULL, "jest.mock('./db');\n" ADD_JEST, 1},
    {"a skipped test deleted", "calc.test.js", "test.skip('old', () => {\n  expect(1 + f()).toBe(2);\n});\n" ADD_JEST,
     ADD_JEST, 1},
    {"a skip removed", "calc.test.js", "test.skip('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n", ADD_JEST, 1},
    {"an .only removed", "calc.test.js", "test.only('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n", ADD_JEST, 1},
    {"a message changed", "calc.test.mjs", "test('adds', () => {\n  assert.strictEqual(add(1, 2), 3, 'sum');\n});\n",
     "test('adds', () => {\n  assert.strictEqual(add(1, 2), 3, 'the sum');\n});\n", 1},
    {"assert.strict.equal -> strictEqual", "calc.test.mjs",
     "test('adds', () => {\n  assert.strict.equal(add(1, 2), 3);\n});\n",
     "test('adds', () => {\n  assert.strictEqual(add(1, 2), 3);\n});\n", 1},
    {"a try whose catch rethrows", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  try {\n    expect(add(1, 2)).toBe(3);\n  } catch (e) {\n    log(e);\n    throw e;\n  "
     "}\n});\n",
     1},
    {"a try whose catch asserts", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  try {\n    expect(add(1, 2)).toBe(3);\n  } catch (e) {\n    expect(e).toBeUndefined();\n "
     " }\n});\n",
     1},
    {"if (true)", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  if (true) {\n    expect(add(1, 2)).toBe(3);\n  }\n});\n", 1},
    {"a return after the assertion", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  expect(add(1, 2)).toBe(3);\n  return;\n});\n", 1},
    {"a test file of TypeScript types", "calc.test.ts", TS_AVA, TS_AVA, 1},
    {"ts reformatted", "calc.test.ts", TS_AVA,
     "import test, {ExecutionContext} from \"ava\"\n"
     "test(\"adds\", (t: ExecutionContext): void => { t.is(add(1, 2) as number, 3) })\n",
     1},
    {"tsx unchanged but reformatted", "Button.test.tsx",
     "test('renders', () => {\n  expect(render(<Button label='hi' />).text).toBe('hi');\n});\n",
     "test(\"renders\", () => {\n  expect(render(<Button label=\"hi\" />).text).toBe(\"hi\")\n})\n", 1},
    {"a mock of a dependency", "calc.test.js", ADD_JEST, "jest.mock('./logger');\n" ADD_JEST, 1},
    {"expect(x) chain moved to await", "calc.test.js",
     "test('a', () => {\n  return expect(f()).resolves.toBe(1);\n});\n",
     "test('a', async () => {\n  await expect(f()).resolves.toBe(1);\n});\n", 1},
    {"expected value changed is only a warning", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  expect(add(1, 2)).toBe(30);\n});\n", 0},
    {"an identical file with duplicate names", "calc.test.js", ADD_JEST ADD_JEST, ADD_JEST ADD_JEST, 1},
    /* the boolean form of the same check, a stricter one, one added beside */
    {"toBe(3) -> expect(x === 3).toBe(true)", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  expect(add(1, 2) === 3).toBe(true);\n});\n", 1},
    {"expect(x === 3).toBe(true) -> toBe(3)", "calc.test.js",
     "test('adds', () => {\n  expect(add(1, 2) === 3).toBe(true);\n});\n", ADD_JEST, 1},
    {"assert.equal -> assert.ok(x === 3)", "calc.test.js", "test('adds', () => {\n  assert.equal(add(1, 2), 3);\n});\n",
     "test('adds', () => {\n  assert.ok(add(1, 2) === 3);\n});\n", 1},
    {"assert.ok(x >= 0) -> toBe(3) (stricter)", "calc.test.js",
     "test('adds', () => {\n  assert.ok(add(1, 2) >= 0);\n});\n", ADD_JEST, 1},
    {"a boolean comparison added beside the exact check", "calc.test.js", ADD_JEST,
     "test('adds', () => {\n  expect(add(1, 2)).toBe(3);\n  expect(add(1, 2) >= 0).toBe(true);\n});\n", 1},
    {"the same boolean comparison kept", "calc.test.js", "test('adds', () => {\n  assert.ok(add(1, 2) >= 0);\n});\n",
     "test('adds', () => {\n  assert.ok(add(1, 2) >= 0);\n  expect(sub(2, 1)).toBe(1);\n});\n", 1},
    {"rows: test.each", "calc.test.js", ROWS_PRE, ROWS_EACH("[[1, 2, 3], [2, 2, 4]]", ROWS_BODY), 1},
    {"rows: it.each in TypeScript", "calc.test.ts", ROWS_PRE, ROWS_EACH_FN("it", "[[1, 2, 3], [2, 2, 4]]", ROWS_BODY), 1},
    {"rows: a for-of loop in the same test", "calc.test.js", ROWS_PRE,
     "test('a', () => {\n  for (const [a, b, want] of [[1, 2, 3], [2, 2, 4]]) {\n    expect(add(a, b)).toBe(want);\n  }\n});\n", 1},
    {"rows: a row added to a test.each table", "calc.test.js", ROWS_EACH("[[1, 2, 3]]", ROWS_BODY),
     ROWS_EACH("[\n  [1, 2, 3],\n  [2, 2, 4],\n]", ROWS_BODY), 1},
    {"rows: a helper called per row", "calc.test.js", ROWS_PRE,
     "function check(a, b, want) {\n  expect(add(a, b)).toBe(want);\n}\ntest('a', () => {\n  check(1, 2, 3);\n  check(2, 2, 4);\n});\n", 1},
};

/* Each edit gives no FAIL and no UNVERIFIED; a quiet one no finding at all. */
static void expect_honest(const struct honest *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct honest *h = &v[i];
		cJSON *out = judge(h->path, h->pre, h->post);
		char *txt = cJSON_Print(out);
		if (h->quiet)
			cr_expect_eq(cJSON_GetArraySize(out), 0, "%s: %s", h->what, txt);
		cr_expect_eq(count_status(out, "FAIL") + count_status(out, "UNVERIFIED"), 0, "%s: %s", h->what, txt);
		free(txt);
		cJSON_Delete(out);
	}
}

Test(a1_js, honest_edits_are_not_weakening)
{
	expect_honest(honest, sizeof honest / sizeof *honest);
}

/* What was a blind spot (a cheat that passed silently) and is now a finding: FAIL where the
 * change decides it, else UNVERIFIED ASSERTION_UNDECIDABLE naming the test. */
struct blind {
	const char *what, *path, *pre, *post, *finding, *status, *cause, *function;
};

#define HOOK_PRE                                                                                                       \
	"describe('calc', () => {\n  beforeEach(() => {\n    expect(db.ready()).toBe(true);\n  });\n" ADD_JEST "});\n"
#define CHAI_IT "  it('adds', function () {\n    expect(add(1, 2)).to.equal(3);\n  });\n"
#define HELPER_PRE "function check(x) {\n  expect(x).toBe(3);\n}\ntest('adds', () => {\n  check(add(1, 2));\n});\n"
#define IMPORTED_PRE "import { expectSum } from './helpers';\ntest('adds', () => {\n  expectSum(add(1, 2), 3);\n});\n"

static const struct blind blind[] = {
    {"skipIf with a condition not known", "calc.test.ts", ADD_JEST,
     "test.skipIf(process.env.CI)('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n", "conditional-skip-added",
     "UNVERIFIED", "ASSERTION_UNDECIDABLE", "adds"},
    {"runIf with a condition not known", "calc.test.js", ADD_JEST,
     "it.runIf(isLinux())('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n", "conditional-skip-added",
     "UNVERIFIED", "ASSERTION_UNDECIDABLE", "adds"},
    {"describe.skipIf with a condition not known", "calc.test.js", "describe('calc', () => {\n" ADD_JEST "});\n",
     "describe.skipIf(flag)('calc', () => {\n" ADD_JEST "});\n", "conditional-skip-added", "UNVERIFIED",
     "ASSERTION_UNDECIDABLE", "calc > adds"},
    {"the call of an asserting helper dropped", "calc.test.js", HELPER_PRE,
     "function check(x) {\n  expect(x).toBe(3);\n}\ntest('adds', () => {\n  add(1, 2);\n});\n",
     "test-lost-every-assertion", "FAIL", NULL, "adds"},
    {"one of two asserting helpers' calls dropped", "calc.test.js",
     "function check(x) {\n  expect(x).toBe(3);\n}\nfunction positive(x) {\n  expect(x > 0).toBe(true);\n}\n"
     "test('adds', () => {\n  check(add(1, 2));\n  positive(add(1, 2));\n});\n",
     "function check(x) {\n  expect(x).toBe(3);\n}\nfunction positive(x) {\n  expect(x > 0).toBe(true);\n}\n"
     "test('adds', () => {\n  check(add(1, 2));\n});\n",
     "assertion-helper-call-removed", "UNVERIFIED", "ASSERTION_UNDECIDABLE", "adds"},
    {"the call of an imported assertion helper dropped", "calc.test.ts", IMPORTED_PRE,
     "import { expectSum } from './helpers';\ntest('adds', () => {\n  add(1, 2);\n});\n",
     "assertion-helper-call-removed", "UNVERIFIED", "ASSERTION_UNDECIDABLE", "adds"},
    {"beforeEach's assertion removed", "calc.test.js", HOOK_PRE,
     "describe('calc', () => {\n  beforeEach(() => {\n    db.ready();\n  });\n" ADD_JEST "});\n",
     "test-lost-every-assertion", "FAIL", NULL, "calc > (beforeEach hook)"},
    {"one of afterEach's assertions removed", "calc.spec.js",
     "describe('calc', function () {\n  afterEach(function () {\n    expect(db.open()).to.equal(0);\n    "
     "expect(log.errors()).to.be.empty;\n  });\n" CHAI_IT "});\n",
     "describe('calc', function () {\n  afterEach(function () {\n    expect(db.open()).to.equal(0);\n  });\n" CHAI_IT
     "});\n",
     "assertion-removed", "FAIL", NULL, "calc > (afterEach hook)"},
    {"a top-level before hook deleted", "calc.spec.js",
     "before(function () {\n  assert.ok(server.listening);\n});\n" CHAI, CHAI, "test-lost-every-assertion", "FAIL",
     NULL, "(before hook)"},
    {"beforeEach's assertion moved into the test", "calc.test.js", HOOK_PRE,
     "describe('calc', () => {\n  beforeEach(() => {\n    db.ready();\n  });\n"
     "  test('adds', () => {\n    expect(db.ready()).toBe(true);\n    expect(add(1, 2)).toBe(3);\n  });\n});\n",
     "hook-assertion-moved", "UNVERIFIED", "ASSERTION_UNDECIDABLE", "calc > (beforeEach hook)"},
};

Test(a1_js, blind_spots_are_not_passed)
{
	for (size_t i = 0; i < sizeof blind / sizeof *blind; i++) {
		const struct blind *c = &blind[i];
		expect_finding(c->what, c->path, c->pre, c->post, c->finding, c->status, c->cause, c->function);
	}
}

/* The honest counterparts of the blind spots: no finding. */
static const struct honest honest_blind[] = {
    {"skipIf(cond) kept", "calc.test.ts", "test.skipIf(process.env.CI)('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n",
     "test.skipIf(process.env.CI)('adds', () => {\n  expect(add(1, 2)).toBe(4 - 1);\n});\n", 0},
    {"skipIf(cond) removed", "calc.test.ts",
     "test.skipIf(process.env.CI)('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n", ADD_JEST, 1},
    {"the asserting helper renamed", "calc.test.js", HELPER_PRE,
     "function expectThree(x) {\n  expect(x).toBe(3);\n}\ntest('adds', () => {\n  expectThree(add(1, 2));\n});\n", 1},
    {"the asserting helper reached through another", "calc.test.js", HELPER_PRE,
     "function check(x) {\n  expect(x).toBe(3);\n}\nconst sum = (a, b) => check(add(a, b));\n"
     "test('adds', () => {\n  sum(1, 2);\n});\n",
     1},
    {"the imported helper's call kept", "calc.test.ts", IMPORTED_PRE,
     "import { expectSum } from './helpers';\ntest('adds', () => {\n  expectSum(add(1, 2), 3);\n  expect(add(0, 0)).toBe(0);\n});\n",
     1},
    {"another call dropped", "calc.test.js", "test('adds', () => {\n  setup();\n  expect(add(1, 2)).toBe(3);\n});\n",
     ADD_JEST, 1},
    {"a hook reformatted", "calc.test.js", HOOK_PRE,
     "describe('calc', () => {\n  beforeEach(() => expect(db.ready()).toBe(true));\n" ADD_JEST "});\n", 1},
    {"two beforeEach hooks merged", "calc.test.js",
     "describe('calc', () => {\n  beforeEach(() => {\n    expect(db.ready()).toBe(true);\n  });\n"
     "  beforeEach(() => {\n    expect(cache.size).toBe(0);\n  });\n" ADD_JEST "});\n",
     "describe('calc', () => {\n  beforeEach(() => {\n    expect(db.ready()).toBe(true);\n    "
     "expect(cache.size).toBe(0);\n  });\n" ADD_JEST "});\n",
     1},
    {"a describe with a hook renamed", "calc.test.js", HOOK_PRE,
     "describe('calculator', () => {\n  beforeEach(() => {\n    expect(db.ready()).toBe(true);\n  });\n" ADD_JEST
     "});\n",
     1},
    {"a hook without assertions deleted", "calc.test.js",
     "describe('calc', () => {\n  beforeEach(() => {\n    db.reset();\n  });\n" ADD_JEST "});\n",
     "describe('calc', () => {\n" ADD_JEST "});\n", 1},
    {"a hook's assertion made stricter", "calc.test.js", HOOK_PRE,
     "describe('calc', () => {\n  beforeEach(() => {\n    expect(db.ready()).toBe(true);\n    "
     "expect(db.size()).toBe(0);\n  });\n" ADD_JEST "});\n",
     1},
};

Test(a1_js, honest_counterparts_of_blind_spots)
{
	expect_honest(honest_blind, sizeof honest_blind / sizeof *honest_blind);
}

Test(a1_js, findings_have_the_contract_shape)
{
	cJSON *out = judge("calc.test.js", TWO_JEST, "test('adds', () => {\n  expect(true).toBe(true);\n});\n");
	cr_assert_eq(cJSON_GetArraySize(out), 2);
	const cJSON *f;
	cJSON_ArrayForEach(f, out)
	{
		static const char *const keys[] = {"function", "finding", "status", "cause", "pre", "post"};
		int k = 0;
		for (const cJSON *m = f->child; m; m = m->next, k++)
			cr_assert_str_eq(m->string, keys[k]);
		cr_assert_eq(k, 6);
	}
	const cJSON *t = find(out, "replaced-by-tautology");
	cr_assert_str_eq(cJSON_GetObjectItem(t, "pre")->valuestring, "expect(add(1,2)).toBe(3)");
	cr_assert_str_eq(cJSON_GetObjectItem(t, "post")->valuestring, "expect(true).toBe(true)");
	cJSON_Delete(out);
}

Test(a1_js, dialects)
{
	cr_assert_eq(a1_js_dialect("a/b.test.js"), A1_JS_JAVASCRIPT);
	cr_assert_eq(a1_js_dialect("b.jsx"), A1_JS_JAVASCRIPT);
	cr_assert_eq(a1_js_dialect("b.mjs"), A1_JS_JAVASCRIPT);
	cr_assert_eq(a1_js_dialect("b.cjs"), A1_JS_JAVASCRIPT);
	cr_assert_eq(a1_js_dialect("b.spec.ts"), A1_JS_TYPESCRIPT);
	cr_assert_eq(a1_js_dialect("b.mts"), A1_JS_TYPESCRIPT);
	cr_assert_eq(a1_js_dialect("b.cts"), A1_JS_TYPESCRIPT);
	cr_assert_eq(a1_js_dialect("b.test.tsx"), A1_JS_TSX);
	cr_assert_eq(a1_js_dialect("b.py"), A1_JS_NONE);
	cr_assert_eq(a1_js_dialect("Makefile"), A1_JS_NONE);
	cr_assert_eq(a1_js_dialect(".ts"), A1_JS_NONE);
	cr_assert_eq(a1_js_dialect(NULL), A1_JS_NONE);
}

Test(a1_js, counts)
{
	int t = -5, a = -5;
	const char *src =
	    "describe('c', () => {\n" TWO_JEST "  it('x', () => { expect.assertions(1); assert.ok(y); });\n});\n"
	    "function helper() { expect(z).toBe(1); }\n";
	cr_assert_eq(a1_js_count(A1_JS_JAVASCRIPT, src, strlen(src), &t, &a), 0);
	cr_assert_eq(t, 3);
	cr_assert_eq(a, 5);
	cr_assert_eq(a1_js_count(A1_JS_JAVASCRIPT, "test('x', () => {", 17, &t, &a), BELAY_EINVAL);
	cr_assert_eq(a1_js_count(A1_JS_TYPESCRIPT, "", 0, &t, &a), 0);
	cr_assert_eq(t, 0);
}

/* ---- hostile input ---- */

static void expect_unverified(const char *what, cJSON *out, const char *finding, const char *cause, const char *side)
{
	char *txt = cJSON_PrintUnformatted(out);
	const cJSON *f = find(out, finding);
	cr_assert(f, "%s: no %s in %.400s", what, finding, txt);
	cr_assert_str_eq(cJSON_GetObjectItem(f, "status")->valuestring, "UNVERIFIED", "%s", what);
	cr_assert_str_eq(cJSON_GetObjectItem(f, "cause")->valuestring, cause, "%s", what);
	const cJSON *s = cJSON_GetObjectItem(f, side);
	cr_assert(cJSON_IsString(s) && !strncmp(s->valuestring, side, strlen(side)), "%s: the %s side is not named: %s",
		  what, side, txt);
	free(txt);
	cJSON_Delete(out);
}

Test(a1_js, syntax_error_names_side_and_line)
{
	cJSON *out = judge("calc.test.js", ADD_JEST, "test('adds', () => {\n  expect(add(1, 2).toBe(3);\n});\n");
	const cJSON *f = find(out, "unparseable-source");
	cr_assert(f);
	cr_assert(strstr(cJSON_GetObjectItem(f, "post")->valuestring, "post: line "), "%s",
		  cJSON_GetObjectItem(f, "post")->valuestring);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(f, "pre")));
	expect_unverified("syntax error", out, "unparseable-source", "ASSERTION_FILE_UNREADABLE", "post");
	expect_unverified("typescript in a .js", judge("calc.test.js", "let x: number = 1;\n", ADD_JEST),
			  "unparseable-source", "ASSERTION_FILE_UNREADABLE", "pre");
}

Test(a1_js, deep_brackets_refused)
{
	size_t n = 100000;
	char *s = malloc(n + 1);
	memset(s, '[', n);
	s[n] = 0;
	expect_unverified("100k [", judge("calc.test.js", ADD_JEST, s), "too-deeply-nested", "ASSERTION_UNDECIDABLE",
			  "post");
	memset(s, '(', n);
	expect_unverified("100k ( in ts", judge("calc.test.ts", s, ADD_JEST), "too-deeply-nested",
			  "ASSERTION_UNDECIDABLE", "pre");
	/* inside a string or a comment they are not brackets */
	char *w = malloc(n + 64);
	snprintf(w, n + 64, "const s = '%.*s';\n", 5000, s);
	int t, a;
	cr_assert_eq(a1_js_count(A1_JS_JAVASCRIPT, w, strlen(w), &t, &a), 0);
	snprintf(w, n + 64, "/* %.*s */\nconst r = /[(]/;\n", 5000, s);
	cr_assert_eq(a1_js_count(A1_JS_JAVASCRIPT, w, strlen(w), &t, &a), 0);
	free(w);
	free(s);
}

Test(a1_js, deep_trees_without_brackets_refused)
{
	/* 1+1+...: no bracket, a tree as deep as the chain */
	size_t k = 200000;
	char *s = malloc(2 * k + 64);
	size_t o = (size_t)sprintf(s, "const x = 1");
	for (size_t i = 0; i < k; i++)
		o += (size_t)sprintf(s + o, "+1");
	sprintf(s + o, ";\n");
	cJSON *out = judge("calc.test.js", ADD_JEST, s);
	cr_assert(find(out, "too-deeply-nested") || find(out, "unparseable-source"));
	cr_assert_eq(count_status(out, "FAIL"), 0);
	cJSON_Delete(out);
	/* <a><a>...: JSX elements nest without brackets */
	o = 0;
	for (size_t i = 0; i < 30000; i++)
		o += (size_t)sprintf(s + o, "<a>");
	out = judge("x.test.tsx", s, ADD_JEST);
	cr_assert(cJSON_GetArraySize(out) >= 1);
	cJSON_Delete(out);
	free(s);
}

/* Debian's runtime frees memory twice when it recovers from a syntax error with ~65,535
 * symbols on its stack; brackets are not the only way there. Each of these, 70,000 deep and
 * ending in an error, must be refused (or read), never crash. */
Test(a1_js, unbracketed_nesting_refused)
{
	static const struct {
		const char *path, *head, *unit, *tail;
	} shapes[] = {
	    {"a.test.js", "x = ", "!", " @"},
	    {"a.test.js", "x = ", "!\n", " @"},
	    {"a.test.js", "x = ", "a ? ", " @"},
	    {"a.test.js", "x = ", "y => ", " @"},
	    {"a.test.js", "", "if (a) ", " @"},
	    {"a.test.js", "", "while (a) ", " @"},
	    {"a.test.js", "", "if (a) {} else ", " @"},
	    {"a.test.js", "x = ", "new ", " @"},
	    {"a.test.js", "x = ", "typeof\n", " @"},
	    {"a.test.js", "x = ", "- ", " @"},
	    {"a.test.js", "", "do ", " @"},
	    {"a.test.js", "x = ", "a ? ;", " @"},
	    {"a.test.js", "x = ", "! )", " @"},
	    {"a.test.js", "f(", "a ? a )", " @"},
	    {"a.test.jsx", "x = ", "<a>", ""},
	    {"a.test.jsx", "x = <a>'", "<a>", ""},
	    {"a.test.tsx", "x = ", "<a>;,)", ""},
	    {"a.test.ts", "type X = ", "keyof ", " @"},
	    {"a.test.ts", "type X = ", "A extends B ? ", " @"},
	    {"a.test.ts", "let x: ", "A<", " @"},
	    {"a.test.ts", "type X = ", "A extends B ? A\n", " @"},
	    {"a.test.js", "", "if (a) a\nelse ", " @"},
	    {"a.test.js", "x = ", "a ? a\n", " @"},
	};
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
		size_t k = 70000, u = strlen(shapes[i].unit);
		size_t cap = strlen(shapes[i].head) + k * u + strlen(shapes[i].tail) + 1;
		if (cap > A1_JS_MAX_BYTES)
			k = (A1_JS_MAX_BYTES - 64) / u;
		char *s = malloc(cap);
		size_t o = (size_t)sprintf(s, "%s", shapes[i].head);
		for (size_t j = 0; j < k; j++, o += u)
			memcpy(s + o, shapes[i].unit, u);
		strcpy(s + o, shapes[i].tail);
		cJSON *out = judge(shapes[i].path, s, ADD_JEST);
		char *txt = cJSON_PrintUnformatted(out);
		cr_expect_eq(count_status(out, "UNVERIFIED"), 1, "%s x %zu: %.300s", shapes[i].unit, k, txt);
		cr_expect_eq(count_status(out, "FAIL"), 0, "%s: %.300s", shapes[i].unit, txt);
		free(txt);
		cJSON_Delete(out);
		free(s);
	}
}

Test(a1_js, long_flat_input_is_read)
{
	/* a 70,000-element array and 1,000 statements without semicolons are not nesting */
	size_t k = 70000;
	char *s = malloc(k * 40 + 200);
	size_t o = (size_t)sprintf(s, "const data = [");
	for (size_t i = 0; i < k; i++)
		o += (size_t)sprintf(s + o, "%zu,", i);
	o += (size_t)sprintf(s + o, "]\n");
	for (size_t i = 0; i < 1000; i++)
		o += (size_t)sprintf(s + o, "const v%zu = data[%zu] + 1\n", i, i);
	sprintf(s + o, "%s", ADD_JEST);
	int t, a;
	cr_assert_eq(a1_js_count(A1_JS_JAVASCRIPT, s, strlen(s), &t, &a), 0);
	cr_assert_eq(t, 1);
	cr_assert_eq(a, 1);
	free(s);
}

Test(a1_js, nul_and_invalid_utf8_refused)
{
	const char nul[] = "test('a', () => {\n  expect(f()).toBe('\0');\n});\n";
	cJSON *out = a1_js_judge(A1_JS_JAVASCRIPT, "a.test.js", nul, sizeof nul - 1, nul, sizeof nul - 1);
	cr_assert_eq(cJSON_GetArraySize(out), 2);
	expect_unverified("NUL", out, "unparseable-source", "ASSERTION_FILE_UNREADABLE", "pre");
	const char bad[] = "test('a', () => {\n  expect(f()).toBe('\xff\xfe');\n});\n";
	out = a1_js_judge(A1_JS_JAVASCRIPT, "a.test.js", ADD_JEST, strlen(ADD_JEST), bad, sizeof bad - 1);
	char *txt = cJSON_PrintUnformatted(out);
	cr_assert(strstr(txt, "line 2"), "%s", txt);
	free(txt);
	expect_unverified("invalid UTF-8", out, "unparseable-source", "ASSERTION_FILE_UNREADABLE", "post");
}

Test(a1_js, oversize_refused)
{
	size_t n = 3u << 20;
	char *s = malloc(n);
	for (size_t i = 0; i < n; i++)
		s[i] = i % 64 == 63 ? '\n' : ' ';
	cJSON *out = a1_js_judge(A1_JS_JAVASCRIPT, "a.test.js", s, n, ADD_JEST, strlen(ADD_JEST));
	expect_unverified("3 MiB", out, "unparseable-source", "ASSERTION_FILE_UNREADABLE", "pre");
	free(s);
}

Test(a1_js, empty_and_absent)
{
	cJSON *out = a1_js_judge(A1_JS_JAVASCRIPT, "a.test.js", "", 0, "", 0);
	cr_assert_eq(cJSON_GetArraySize(out), 0);
	cJSON_Delete(out);
	out = a1_js_judge(A1_JS_TYPESCRIPT, "a.test.ts", NULL, 0, NULL, 0);
	cr_assert_eq(cJSON_GetArraySize(out), 0);
	cJSON_Delete(out);
	out = judge("a.test.js", ADD_JEST, "");
	cr_assert(find(out, "test-deleted"));
	cJSON_Delete(out);
	out = judge("a.test.js", "", ADD_JEST);
	cr_assert_eq(cJSON_GetArraySize(out), 0);
	cJSON_Delete(out);
	out = a1_js_judge(A1_JS_NONE, "notes.txt", "x", 1, "y", 1);
	cr_assert(find(out, "unparseable-source"));
	cJSON_Delete(out);
}

Test(a1_js, long_forms_are_clipped)
{
	size_t n = 5000;
	char *s = malloc(n * 2 + 200), *t = malloc(n * 2 + 200);
	size_t o = (size_t)sprintf(s, "test('a', () => {\n  expect(f()).toEqual([");
	for (size_t i = 0; i < n; i++)
		o += (size_t)sprintf(s + o, "%s1", i ? "," : "");
	sprintf(s + o, "]);\n});\n");
	sprintf(t, "test('a', () => {\n  f();\n});\n");
	cJSON *out = judge("a.test.js", s, t);
	const cJSON *f = find(out, "test-lost-every-assertion");
	cr_assert(f);
	cr_assert_leq(strlen(cJSON_GetObjectItem(f, "pre")->valuestring), 403);
	cJSON_Delete(out);
	free(s);
	free(t);
}

/* The post side parsed incrementally against the pre side's edited tree reads exactly as a
 * fresh parse does, wherever the edit falls (start, middle, end, a deletion, an insertion
 * spanning lines, a change of every line). */
#include "assertions/a1_js_facts.h"

static void same_side(const struct a1_js_side *x, const struct a1_js_side *y, const char *what)
{
	cr_assert_eq(x->status, y->status, "%s: status", what);
	cr_assert_eq(x->ntests, y->ntests, "%s: tests %zu vs %zu", what, x->ntests, y->ntests);
	for (size_t i = 0; i < x->ntests; i++) {
		cr_assert_str_eq(x->tests[i].name, y->tests[i].name, "%s", what);
		cr_assert_eq(x->tests[i].mods, y->tests[i].mods, "%s: %s", what, x->tests[i].name);
		cr_assert_eq(x->tests[i].facts.n, y->tests[i].facts.n, "%s: %s", what, x->tests[i].name);
		for (size_t k = 0; k < x->tests[i].facts.n; k++) {
			cr_assert_str_eq(x->tests[i].facts.v[k].form, y->tests[i].facts.v[k].form, "%s", what);
			cr_assert_eq(x->tests[i].facts.v[k].line, y->tests[i].facts.v[k].line, "%s", what);
			cr_assert_eq(x->tests[i].facts.v[k].dead, y->tests[i].facts.v[k].dead, "%s", what);
			cr_assert_eq(x->tests[i].facts.v[k].swallowed, y->tests[i].facts.v[k].swallowed, "%s", what);
		}
	}
	cr_assert_eq(x->nfocus, y->nfocus, "%s", what);
	cr_assert_eq(x->nmocks, y->nmocks, "%s", what);
}

Test(a1_js, incremental_parse_reads_as_a_fresh_one)
{
	static const char *const pre = "describe('calc', () => {\n  test('add', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n\n"
				       "  test('sub', () => {\n    expect(sub(2, 1)).toBe(1);\n  });\n});\n";
	static const char *const posts[] = {
	    "jest.mock('./calc');\ndescribe('calc', () => {\n  test('add', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n\n"
	    "  test('sub', () => {\n    expect(sub(2, 1)).toBe(1);\n  });\n});\n",
	    "describe('calc', () => {\n  test.only('add', () => {\n    return;\n    expect(add(1, 2)).toBe(3);\n  });\n\n"
	    "  test('sub', () => {\n    expect(sub(2, 1)).toBe(1);\n  });\n});\n",
	    "describe('calc', () => {\n  test('add', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n});\n",
	    "describe('calc', () => {\n  test('add', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n\n"
	    "  test('sub', () => {\n    try { expect(sub(2, 1)).toBe(1); } catch (e) {}\n  });\n});\ntest('new', () => {});\n",
	    "describe('other', function () {\n  it('x', function () {\n    assert.equal(f(), 1);\n  });\n});\n",
	    "",
	};
	for (size_t i = 0; i < sizeof posts / sizeof posts[0]; i++) {
		struct a1_js_side a = {0}, b = {0}, fa = {0}, fb = {0};
		a1_js_extract_pair(A1_JS_JAVASCRIPT, pre, strlen(pre), posts[i], strlen(posts[i]), &a, &b);
		a1_js_extract(A1_JS_JAVASCRIPT, pre, strlen(pre), &fa);
		a1_js_extract(A1_JS_JAVASCRIPT, posts[i], strlen(posts[i]), &fb);
		char what[32];
		snprintf(what, sizeof what, "post %zu", i);
		same_side(&a, &fa, what);
		same_side(&b, &fb, what);
		a1_js_side_free(&a);
		a1_js_side_free(&b);
		a1_js_side_free(&fa);
		a1_js_side_free(&fb);
	}
}
