import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import type { Node } from 'web-tree-sitter';
import type { Chunk } from '../../kernel/chunk.js';
import { discover } from '../../kernel/discovery.js';
import { isChunkdError } from '../../kernel/errors.js';
import { loadTokenizer } from '../../kernel/tokenizers/index.js';
import { startApp, type TestApp } from '../../test/helpers/app.js';
import { grammarDir, parserFor } from './grammars.js';
import { LANGUAGES, UNLOADABLE, findLanguage } from './languages.js';
import { errorRanges } from './tree-errors.js';
import { chunkWith } from '../../test/helpers/run.js';

// This file compiles ~30 grammars: V8's optimizing tier spends seconds on each grammar's lexer
// (13 of this file's 19 s here), the baseline compiler milliseconds. The checks are the same either way.
setFlagsFromString('--liftoff-only');

const registry = await discover();
const code = registry.get('chunker', 'code');
const chunk = async (text: string, config: Record<string, unknown> = {}) =>
  (await chunkWith(code, code.validateConfig({ ...config }), text, 'codepoint')) as Chunk[];

const fixture = (file: string) => readFileSync(new URL(`./fixtures/${file}.txt`, import.meta.url), 'utf8');
const SAMPLES = JSON.parse(readFileSync(new URL('./fixtures/samples.json', import.meta.url), 'utf8')) as Record<string, string>;

/** Realistic source files, one per language: [language, file]. Each holds non-ASCII identifiers or strings and emoji. */
const FILES: [string, string][] = [
  ['python', 'inventory.py'],
  ['javascript', 'router.js'],
  ['typescript', 'cache.ts'],
  ['tsx', 'Counter.tsx'],
  ['java', 'BankAccount.java'],
  ['go', 'worker.go'],
  ['rust', 'tokenizer.rs'],
  ['c', 'ring_buffer.c'],
  ['cpp', 'matrix.cpp'],
  ['c_sharp', 'OrderService.cs'],
  ['ruby', 'markdown_toc.rb'],
  ['php', 'UserController.php'],
  ['bash', 'backup.sh'],
  ['kotlin', 'Geometry.kt'],
  ['lua', 'inventory.lua'],
];
const crlf = (s: string) => s.replace(/\n/g, '\r\n');
const SOURCES = FILES.flatMap(([language, file]): [string, string, string][] => [
  [language, file, fixture(file)],
  [language, `${file} (CRLF)`, crlf(fixture(file))],
]);

/** Offsets are code points; the chunks tile the source; counts are the source's own tokens. */
async function assertTiles(source: string, chunks: Chunk[], size: number, tokenizer: string): Promise<void> {
  const cps = [...source];
  let at = 0;
  for (const c of chunks) {
    assert.equal(c.start_index, at, `gap or overlap before ${JSON.stringify(c.text.slice(0, 30))}`);
    assert.equal(cps.slice(c.start_index, c.end_index).join(''), c.text);
    assert.ok(c.token_count <= size || [...c.text].length === 1, `${c.token_count} tokens > ${size}: ${JSON.stringify(c.text)}`);
    at = c.end_index;
  }
  assert.equal(at, cps.length);
  const total = chunks.reduce((n, c) => n + c.token_count, 0);
  assert.equal(total, (await loadTokenizer(tokenizer)).count(source), 'every token of the source is counted once');
}

/** Named nodes of a parse, depth first. */
function* nodes(n: Node): Generator<Node> {
  yield n;
  for (const c of n.namedChildren) if (c) yield* nodes(c);
}

describe('grammars', () => {
  test('every grammar tree-sitter-wasms ships is either supported or known not to load', () => {
    const shipped = readdirSync(grammarDir())
      .filter((f) => f.endsWith('.wasm'))
      .map((f) => f.replace(/^tree-sitter-|\.wasm$/g, ''));
    const known = new Set([...LANGUAGES.map((l) => l.name), ...Object.keys(UNLOADABLE)]);
    assert.deepEqual(
      shipped.filter((n) => !known.has(n)),
      [],
    );
    assert.deepEqual(
      [...known].filter((n) => !shipped.includes(n)),
      [],
    );
  });

  test('every supported language loads and parses a real program without a syntax error', async () => {
    const programs = new Map([...FILES.map(([l, f]): [string, string] => [l, fixture(f)]), ...Object.entries(SAMPLES)]);
    // Every grammar is loaded before the first parse: on this Node (V8 11.3), a grammar loaded into a
    // runtime that has already parsed can take minutes to compile (scala after swift: ~200 s, against
    // ~0.1 s before any parse). That cost belongs to web-tree-sitter's runtime, not to this check.
    for (const { name } of LANGUAGES) await parserFor(name);
    for (const { name } of LANGUAGES) {
      const program = programs.get(name);
      assert.ok(program, `no sample program for ${name}`);
      const tree = (await parserFor(name)).parse(program)!;
      try {
        assert.deepEqual(errorRanges(tree.rootNode), [], `${name} parsed with errors`);
      } finally {
        tree.delete();
      }
    }
  });

  test('a grammar loads once: every request for a language shares one parser', async () => {
    assert.equal(parserFor('go'), parserFor('go'));
    assert.equal(await parserFor('rust'), await parserFor('rust'));
    assert.notEqual(await parserFor('go'), await parserFor('rust'));
  });

  test('names and aliases are unique and case-insensitive', () => {
    const keys = LANGUAGES.flatMap((l) => [l.name, ...l.aliases].map((k) => k.toLowerCase().replace(/-/g, '_')));
    assert.equal(new Set(keys).size, keys.length);
    const cases: [string, string][] = [
      ['py', 'python'],
      ['JS', 'javascript'],
      ['ts', 'typescript'],
      ['c++', 'cpp'],
      ['C#', 'c_sharp'],
      ['cs', 'c_sharp'],
      ['sh', 'bash'],
      ['rb', 'ruby'],
      ['c-sharp', 'c_sharp'],
      ['Kotlin', 'kotlin'],
    ];
    for (const [alias, name] of cases) assert.equal(findLanguage(alias)?.name, name, alias);
  });
});

describe('tiling and offsets on real code', () => {
  const configs: Record<string, unknown>[] = [
    {},
    { chunk_size: 200 },
    { chunk_size: 40 },
    { chunk_size: 64, tokenizer: 'cl100k_base' },
    { chunk_size: 8, tokenizer: 'cl100k_base' },
  ];
  for (const [language, name, source] of SOURCES) {
    test(`${name}: chunks tile the source in code points at every size`, async () => {
      assert.match(source, /[^\x00-\x7f]/, 'the fixture holds non-ASCII text');
      for (const config of configs) {
        const chunks = await chunk(source, { language, ...config });
        await assertTiles(source, chunks, Number(config.chunk_size ?? 512), String(config.tokenizer ?? 'character'));
      }
    });
  }
});

describe('syntax boundaries', () => {
  const SIZE = 300;
  const DEFINITION = /function|method|class|struct|impl_item|interface|enum|record|constructor|object_declaration|module/;
  for (const [language, name, source] of SOURCES) {
    test(`${name}: every definition that fits in half a chunk is in one chunk`, async () => {
      const chunks = await chunk(source, { language, chunk_size: SIZE });
      assert.ok(chunks.length > 1, 'the fixture is split');
      const tree = (await parserFor(language)).parse(source)!;
      try {
        let checked = 0;
        for (const n of nodes(tree.rootNode)) {
          if (!DEFINITION.test(n.type) || n.endIndex - n.startIndex > SIZE / 2) continue;
          const [start, end] = [[...source.slice(0, n.startIndex)].length, [...source.slice(0, n.endIndex)].length];
          assert.ok(
            chunks.some((c) => c.start_index <= start && end <= c.end_index),
            `${n.type} at line ${n.startPosition.row + 1} was cut`,
          );
          checked++;
        }
        assert.ok(checked > 0, 'no definition checked');
      } finally {
        tree.delete();
      }
    });
  }

  const body = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('');
  const OVERSIZE: [string, string, string, RegExp][] = [
    [
      'python',
      'a decorated function',
      `import math\n\n\n# Sums a long series.\n@cached\ndef série(n: int) -> float:\n    total = 0.0\n${body(60, (i) => `    total += math.sqrt(n * ${i}) / ${i + 1}  # étape ${i} 🦛\n`)}    return total\n\n\ndef after():\n    return 1\n`,
      /# Sums a long series\.\n@cached\ndef série\(n: int\) -> float:\n    total = 0\.0\n/,
    ],
    [
      'javascript',
      'a function',
      `// Sums a long series.\nfunction série(n) {\n  let total = 0;\n${body(60, (i) => `  total += Math.sqrt(n * ${i}) / ${i + 1}; // étape ${i} 🦛\n`)}  return total;\n}\n`,
      /\/\/ Sums a long series\.\nfunction série\(n\) \{\n  let total = 0;\n/,
    ],
    [
      'go',
      'a function',
      `package main\n\n// Sum adds a long series.\nfunc Sum(n float64) float64 {\n\ttotal := 0.0\n${body(60, (i) => `\ttotal += n * ${i} / ${i + 1} // étape ${i} 🦛\n`)}\treturn total\n}\n`,
      /\/\/ Sum adds a long series\.\nfunc Sum\(n float64\) float64 \{\n\ttotal := 0\.0\n/,
    ],
  ];
  for (const [language, what, source, head] of OVERSIZE) {
    test(`${language}: ${what} too big for a chunk is split between statements, its header with its first statement`, async () => {
      const size = 400;
      const chunks = await chunk(source, { language, chunk_size: size });
      await assertTiles(source, chunks, size, 'character');
      assert.ok(chunks.length >= 4);
      assert.match(chunks.find((c) => head.test(c.text))?.text ?? '', head, 'the comment, decorator and signature are in one chunk with the first statement');
      for (const c of chunks) assert.ok(c.text.endsWith('\n'), `a chunk ends mid-line: ${JSON.stringify(c.text.slice(-40))}`);
    });
  }

  test('a string literal longer than a chunk is cut at lines, then by tokens', async () => {
    const lines = body(30, (i) => `ligne ${i} — 日本語のテキスト 🦛\n`);
    const source = `TEXT = """\n${lines}"""\nLONG = "${'x'.repeat(500)}"\n`;
    for (const size of [100, 30]) {
      const chunks = await chunk(source, { language: 'python', chunk_size: size });
      await assertTiles(source, chunks, size, 'character');
      let end = 0; // UTF-16 end of each chunk, to see which ones lie in the multi-line string
      for (const c of chunks) {
        end += c.text.length;
        if (size === 100 && end < source.indexOf('LONG')) assert.ok(c.text.endsWith('\n'), `whole lines while a line fits: ${JSON.stringify(c.text)}`);
      }
    }
  });

  test('source nested thousands of levels deep is cut without overflowing the stack', async () => {
    const cases: [string, string][] = [
      ['python', `x = ${'('.repeat(3000)}1${')'.repeat(3000)}\n`],
      ['javascript', `const a = ${'['.repeat(5000)}${']'.repeat(5000)};\n`],
      ['json', `${'{"k": '.repeat(3000)}1${'}'.repeat(3000)}\n`],
    ];
    for (const [language, source] of cases) {
      const chunks = await chunk(source, { language, chunk_size: 3, include_nodes: true });
      await assertTiles(source, chunks, 3, 'character');
    }
  });

  test('source that does not parse is still chunked, and tiles', async () => {
    const source = 'def ok():\n    return 1\n\n\ndef broken(:\n    pass )]\n\n\ndef fine():\n    return "✓"\n';
    for (const size of [512, 30, 5]) await assertTiles(source, await chunk(source, { chunk_size: size }), size, 'character');
  });
});

describe('include_nodes metadata', () => {
  const lineOf = (text: string, i: number) => text.slice(0, i).split('\n').length;

  for (const [language, name, source] of SOURCES) {
    test(`${name}: node types, 1-based lines of the first and last non-blank characters, no error`, async () => {
      const chunks = await chunk(source, { language, chunk_size: 250, include_nodes: true });
      const units = [...source];
      for (const c of chunks) {
        const m = c.metadata as { node_types: string[]; start_line: number; end_line: number; has_error: boolean; language: string };
        const before = units.slice(0, c.start_index).join('');
        const first = before.length + c.text.search(/\S/);
        const last = before.length + c.text.trimEnd().length - 1;
        assert.deepEqual([m.start_line, m.end_line], [lineOf(source, first), lineOf(source, last)], JSON.stringify(c.text.slice(0, 40)));
        assert.ok(m.node_types.length > 0 && m.node_types.every((t) => /^[\w$]+$/.test(t)), JSON.stringify(m.node_types));
        assert.equal(m.has_error, false);
        assert.equal(m.language, language);
      }
    });
  }

  test('a chunk names the constructs it covers; without include_nodes there is no metadata', async () => {
    const source = fixture('inventory.py');
    const chunks = await chunk(source, { include_nodes: true, chunk_size: 600 });
    const types = (c: Chunk) => (c.metadata as { node_types: string[] }).node_types;
    assert.ok(chunks.some((c) => c.text.includes('class Inventario') && types(c).includes('class_definition')));
    assert.ok(chunks.some((c) => c.text.includes('@dataclass') && types(c).includes('decorated_definition')));
    assert.ok((await chunk(source)).every((c) => c.metadata === undefined));
  });

  test('has_error marks exactly the chunks holding a syntax error', async () => {
    const source = 'def ok():\n    return 1\n\n\ndef broken(:\n    pass\n\n\ndef fine():\n    return 2\n';
    const chunks = await chunk(source, { include_nodes: true, chunk_size: 25 });
    const flagged = chunks.filter((c) => (c.metadata as { has_error: boolean }).has_error).map((c) => c.text);
    assert.ok(flagged.length > 0 && flagged.every((t) => t.includes('broken') || t.includes('pass')), JSON.stringify(flagged));
    assert.ok(chunks.some((c) => c.text.includes('ok') && !(c.metadata as { has_error: boolean }).has_error));
  });
});

describe('language: auto', () => {
  const language = async (text: string, config: Record<string, unknown> = {}) =>
    ((await chunk(text, { include_nodes: true, ...config }))[0]!.metadata as { language: string }).language;

  for (const [expected, name, source] of SOURCES) {
    test(`${name} is detected as ${expected}`, async () => assert.equal(await language(source, { language: 'auto' }), expected));
  }

  const cases: [string, string, string][] = [
    ['every other supported language, from its sample', '', ''],
    ['a #! line decides', '#!/usr/bin/env python3\nprint("hi")\n', 'python'],
    ['a #! line naming a shell', '#!/bin/sh\necho "$HOME"\n', 'bash'],
    ['a #! line naming node', '#!/usr/bin/env node\nconsole.log(1)\n', 'javascript'],
    ['nothing recognisable: the default language', 'hello there\n', 'python'],
  ];
  for (const [what, text, expected] of cases.slice(1)) test(what, async () => assert.equal(await language(text, { language: 'auto' }), expected));

  test(cases[0]![0], async () => {
    for (const [expected, source] of Object.entries(SAMPLES)) assert.equal(await language(source, { language: 'AUTO' }), expected, expected);
  });

  test('an alias names the same grammar as its language', async () => {
    const aliases: [string, string, string][] = [
      ['js', 'javascript', 'router.js'],
      ['ts', 'typescript', 'cache.ts'],
      ['c++', 'cpp', 'matrix.cpp'],
      ['cs', 'c_sharp', 'OrderService.cs'],
      ['sh', 'bash', 'backup.sh'],
      ['rb', 'ruby', 'markdown_toc.rb'],
    ];
    for (const [alias, name, file] of aliases) {
      const source = fixture(file);
      assert.deepEqual(await chunk(source, { language: alias, chunk_size: 100 }), await chunk(source, { language: name, chunk_size: 100 }), alias);
      assert.equal(await language(source, { language: alias }), name);
    }
  });
});

describe('errors', () => {
  test('an unknown language is a 400 that suggests the closest and lists the supported ones', async () => {
    const cases: [string, RegExp][] = [
      ['javscript', /Unknown language 'javscript'\. Did you mean 'javascript'\?/],
      ['pyhton', /Did you mean 'python'\?/],
      ['cobol', /Unknown language 'cobol'\. Valid: python, javascript, .*kotlin, swift, scala, lua.*, auto; aliases/],
    ];
    for (const [language, message] of cases) {
      await assert.rejects(chunk('x = 1\n', { language }), (e) => isChunkdError(e) && e.status === 400 && message.test(String(e.detail)), language);
    }
  });

  describe('over HTTP', () => {
    let app: TestApp;
    before(async () => (app = await startApp()));
    after(async () => app.close());

    test('a chunk request answers with code-point offsets and metadata', async () => {
      const text = 'def café():\n    return "🦛"\n';
      const res = await app.post('/v1/chunk/code', { text, language: 'py', include_nodes: true });
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.map((c: Chunk) => [c.text, c.start_index, c.end_index]),
        [[text, 0, [...text].length]],
      );
      assert.equal(res.body[0].metadata.start_line, 1);
      assert.equal(res.body[0].metadata.end_line, 2);
    });

    test('an unknown language is a 400 on the wire', async () => {
      const res = await app.post('/v1/chunk/code', { text: 'x', language: 'klingon' });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'BAD_REQUEST');
    });

    const hidden: [string, string][] = [
      ['web-tree-sitter', 'web-tree-sitter'],
      ['tree-sitter-wasms', 'tree-sitter-wasms'],
      ['web-tree-sitter,tree-sitter-wasms', 'web-tree-sitter tree-sitter-wasms'],
    ];
    for (const [hide, install] of hidden) {
      test(`without ${hide} the route answers 501 naming the packages and the install command`, async () => {
        process.env.CHUNKD_HIDE_PACKAGES = hide;
        try {
          const res = await app.post('/v1/chunk/code', { text: 'def f():\n    pass\n' });
          assert.equal(res.status, 501);
          assert.equal(res.body.code, 'MISSING_EXTRA');
          assert.ok(res.body.detail.includes(`Install them: npm install ${install}`), res.body.detail);
          const plugins = (await app.request('GET', '/v1/plugins')).body as { name: string; available: boolean }[];
          assert.equal(plugins.find((p) => p.name === 'code')?.available, false);
        } finally {
          delete process.env.CHUNKD_HIDE_PACKAGES;
        }
      });
    }
  });
});
