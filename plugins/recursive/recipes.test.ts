import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { isChunkdError } from '../../kernel/errors.js';
import { startApp } from '../../test/helpers/app.js';
import { listRecipes, loadRecipe, toRules, type RecipeFile } from '../../kernel/split/recipes.js';

const levels = (...l: RecipeFile['recipe']['recursive_rules']['levels']): RecipeFile => ({ recipe: { recursive_rules: { levels: l } } });

afterEach(() => {
  delete process.env.CHUNKD_RECIPES_DIR;
});

function recipesDir(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-recipes-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

describe('shipped recipes', () => {
  for (const [name, langs] of listRecipes()) {
    for (const lang of langs) {
      const asked = lang || 'en';
      test(`${name} (${lang || 'every language'}) loads, and ends with the token level`, () => {
        const recipe = loadRecipe(name, asked);
        assert.ok(recipe.rules.length >= 2);
        assert.equal(recipe.rules.at(-1), null);
        assert.ok(recipe.rules.slice(0, -1).every((r) => r !== null && r.delimiters.length > 0));
        assert.ok(Object.isFrozen(recipe) && Object.isFrozen(recipe.rules), 'a shared recipe cannot be mutated');
      });
    }
  }

  test('default_en is the reference rule set', () => {
    const [paragraphs, sentences, pauses, words, tokens] = loadRecipe('default', 'en').rules;
    assert.deepEqual(paragraphs?.delimiters, ['\n\n', '\r\n', '\n', '\r']);
    assert.deepEqual(sentences?.delimiters, ['. ', '! ', '? ']);
    assert.deepEqual(pauses?.delimiters, ['{', '}', '"', '[', ']', '<', '>', '(', ')', ':', ';', ',', '—', '|', '~', '-', '...', '`', "'"]);
    assert.deepEqual(words?.delimiters, [' ']);
    assert.equal(tokens, null);
  });
});

describe("Chonkie's level format", () => {
  const cases: [string, RecipeFile, ReturnType<typeof toRules>][] = [
    ['a list of delimiters, prev', levels({ delimiters: ['\n'], include_delim: 'prev' }, {}), [{ delimiters: ['\n'], includeDelim: 'prev' }, null]],
    ['a single delimiter string', levels({ delimiters: '\n' }), [{ delimiters: ['\n'], includeDelim: 'prev' }, null]],
    ['include_delim next', levels({ delimiters: ['# '], include_delim: 'next' }), [{ delimiters: ['# '], includeDelim: 'next' }, null]],
    ['include_delim null keeps the text (prev)', levels({ delimiters: ['; '], include_delim: null }), [{ delimiters: ['; '], includeDelim: 'prev' }, null]],
    ['whitespace cuts after spaces', levels({ whitespace: true }), [{ delimiters: [' '], includeDelim: 'prev' }, null]],
    [
      'whitespace with include_delim next cuts before spaces (as Chonkie)',
      levels({ whitespace: true, include_delim: 'next' }),
      [{ delimiters: [' '], includeDelim: 'next' }, null],
    ],
    ['null delimiters and no whitespace: the token level', levels({ delimiters: null, whitespace: false }), [null]],
    [
      'a missing token level is added',
      levels({ delimiters: ['\n'] }, { whitespace: true }),
      [{ delimiters: ['\n'], includeDelim: 'prev' }, { delimiters: [' '], includeDelim: 'prev' }, null],
    ],
    ['levels after the token level never apply', levels({}, { delimiters: ['\n'] }), [null]],
  ];
  for (const [name, file, rules] of cases) {
    test(name, () => assert.deepEqual(toRules(file), rules));
  }

  test('a level with both delimiters and whitespace is a 400', () => {
    assert.throws(
      () => toRules(levels({ delimiters: ['\n'], whitespace: true })),
      (e) => isChunkdError(e) && e.status === 400,
    );
  });
});

describe('recipes from --recipes-dir', () => {
  const lines = levels({ delimiters: ['\n'] }, {});
  const cases: [string, Record<string, unknown>, string, string, RegExp | ReturnType<typeof toRules>][] = [
    ['a new recipe for one language', { 'lines_en.json': lines }, 'lines', 'en', [{ delimiters: ['\n'], includeDelim: 'prev' }, null]],
    ['a new recipe for every language', { 'lines.json': lines }, 'lines', 'zh', [{ delimiters: ['\n'], includeDelim: 'prev' }, null]],
    ['a user recipe overrides a shipped one', { 'default_en.json': lines }, 'default', 'en', [{ delimiters: ['\n'], includeDelim: 'prev' }, null]],
    ['a language only a user recipe has', { 'lines_eo.json': lines }, 'lines', 'eo', [{ delimiters: ['\n'], includeDelim: 'prev' }, null]],
    [
      'a recipe without that language lists the ones it has',
      { 'lines_en.json': lines },
      'lines',
      'de',
      /recipe 'lines' has no rules for lang 'de'\. It has: en\./,
    ],
    ['malformed JSON names the file', { 'bad_en.json': '{"recipe": ' }, 'bad', 'en', /bad_en\.json is not valid JSON/],
    [
      'a file that is not a recipe names the file and the format',
      { 'bad_en.json': { levels: [] } },
      'bad',
      'en',
      /bad_en\.json does not follow the recipe format/,
    ],
    ['an empty level list', { 'bad_en.json': levels() }, 'bad', 'en', /bad_en\.json does not follow the recipe format/],
  ];
  for (const [name, files, recipe, lang, want] of cases) {
    test(name, () => {
      process.env.CHUNKD_RECIPES_DIR = recipesDir(files);
      if (want instanceof RegExp)
        assert.throws(
          () => loadRecipe(recipe, lang),
          (e) => isChunkdError(e) && e.status === 400 && want.test(String(e.detail)),
        );
      else assert.deepEqual(loadRecipe(recipe, lang).rules, want);
    });
  }

  test('a recipes directory that does not exist is a 400 naming the setting', () => {
    process.env.CHUNKD_RECIPES_DIR = join(tmpdir(), 'chunkd-no-such-dir');
    assert.throws(
      () => loadRecipe('default', 'en'),
      (e) => isChunkdError(e) && /--recipes-dir/.test(String(e.detail)),
    );
  });

  test('the --recipes-dir setting reaches the recursive route', async () => {
    const dir = recipesDir({ 'lines.json': lines });
    const app = await startApp({ 'recipes-dir': dir });
    try {
      const ok = await app.post('/v1/chunk/recursive', {
        text: 'one line here\ntwo line here\n',
        recipe: 'lines',
        chunk_size: 14,
        min_characters_per_chunk: 1,
      });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.deepEqual(
        ok.body.map((c: { text: string }) => c.text),
        ['one line here\n', 'two line here\n'],
      );
      const unknown = await app.post('/v1/chunk/recursive', { text: 'x y', recipe: 'nope' });
      assert.equal(unknown.status, 400);
      assert.match(unknown.body.detail, /Unknown recipe 'nope'.*lines/);
    } finally {
      await app.close();
    }
  });
});
