import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Chunk } from '../../kernel/chunk.js';
import { discover } from '../../kernel/discovery.js';
import { isChunkdError } from '../../kernel/errors.js';
import { loadTokenizer } from '../../kernel/tokenizers/index.js';
import { knownLanguages, listRecipes } from '../../kernel/split/recipes.js';
import { chunkWith } from '../../test/helpers/run.js';

const registry = await discover();
const recursive = registry.get('chunker', 'recursive');
const chunk = async (text: string, config: Record<string, unknown> = {}) =>
  (await chunkWith(recursive, recursive.validateConfig({ ...config }), text, 'codepoint')) as Chunk[];
const texts = (chunks: Chunk[]) => chunks.map((c) => c.text);
type Row = [string, number, number, number];
const rows = (chunks: Chunk[]): Row[] => chunks.map((c) => [c.text, c.start_index, c.end_index, c.token_count]);

/**
 * The contract every recursive answer keeps: chunks tile the input and none exceeds chunk_size —
 * unless it cannot be cut: no token of the input's encoding ends inside it (one emoji of 4 bytes,
 * or BPE tokens that all end on one character).
 */
function assertTiles(text: string, chunks: Chunk[], size: number, ends?: Uint32Array): void {
  const cps = [...text];
  let at = 0;
  let u16 = 0;
  for (const c of chunks) {
    assert.equal(c.start_index, at, 'chunks tile the input');
    assert.equal(cps.slice(c.start_index, c.end_index).join(''), c.text);
    const start = u16;
    const end = (u16 += c.text.length);
    const uncuttable = ends ? !ends.some((e) => e > start && e < end) : [...c.text].length === 1;
    assert.ok(c.token_count <= size || uncuttable, `token_count ${c.token_count} > ${size} for ${JSON.stringify(c.text)}`);
    at = c.end_index;
  }
  assert.equal(at, cps.length);
}

describe('recursive chunks (REFERENCE.md examples and more)', () => {
  const cases: [string, string, Record<string, unknown>, Row[]][] = [
    [
      'a long word is cut by tokens (reference)',
      'Supercalifragilisticexpialidocious word',
      { chunk_size: 10, min_characters_per_chunk: 1 },
      [
        ['Supercalif', 0, 10, 10],
        ['ragilistic', 10, 20, 10],
        ['expialidoc', 20, 30, 10],
        ['ious ', 30, 35, 5],
        ['word', 35, 39, 4],
      ],
    ],
    [
      'unicode and emoji in code points (reference)',
      'héllo wörld 🦛🦛 ünïcode text',
      { chunk_size: 12, min_characters_per_chunk: 1 },
      [
        ['héllo wörld ', 0, 12, 12],
        ['🦛🦛 ünïcode ', 12, 23, 11],
        ['text', 23, 27, 4],
      ],
    ],
    ['text that fits is one chunk', 'Short text.', { chunk_size: 512 }, [['Short text.', 0, 11, 11]]],
    [
      'paragraphs first',
      'First paragraph.\n\nSecond paragraph.',
      { chunk_size: 20, min_characters_per_chunk: 1 },
      [
        ['First paragraph.\n\n', 0, 18, 18],
        ['Second paragraph.', 18, 35, 17],
      ],
    ],
    [
      'then sentences',
      'One sentence here. Another one here.',
      { chunk_size: 20, min_characters_per_chunk: 1 },
      [
        ['One sentence here. ', 0, 19, 19],
        ['Another one here.', 19, 36, 17],
      ],
    ],
    [
      'CRLF stays whole: \\r\\n is one paragraph delimiter',
      'Line one here.\r\nLine two here.\r\n',
      { chunk_size: 16, min_characters_per_chunk: 1 },
      [
        ['Line one here.\r\n', 0, 16, 16],
        ['Line two here.\r\n', 16, 32, 16],
      ],
    ],
    [
      'CJK with the zh rules cuts at 。',
      '这是第一句话。这是第二句话。',
      { chunk_size: 8, lang: 'zh', min_characters_per_chunk: 1 },
      [
        ['这是第一句话。', 0, 7, 7],
        ['这是第二句话。', 7, 14, 7],
      ],
    ],
    [
      'a run of emoji is cut between code points, never inside one',
      '🦛'.repeat(7),
      { chunk_size: 3, min_characters_per_chunk: 1 },
      [
        ['🦛🦛🦛', 0, 3, 3],
        ['🦛🦛🦛', 3, 6, 3],
        ['🦛', 6, 7, 1],
      ],
    ],
    [
      'byte tokens: a window ends before a character it would split',
      'ééé',
      { chunk_size: 3, tokenizer: 'byte', min_characters_per_chunk: 1 },
      [
        ['é', 0, 1, 2],
        ['é', 1, 2, 2],
        ['é', 2, 3, 2],
      ],
    ],
    // Chonkie's minimum rule at every level: a piece joins the running piece when either is short,
    // so a run of short words becomes one piece, which the token level then cuts (issue 18).
    [
      'the minimum swallows a run of words; tokens cut it (Chonkie, issue example)',
      'Query paragraph river quick water.',
      { chunk_size: 32, min_characters_per_chunk: 12 },
      [
        ['Query paragraph river quick wate', 0, 32, 32],
        ['r.', 32, 34, 2],
      ],
    ],
    [
      'short words join the run before them (min_characters_per_chunk)',
      'a b c d e f ghijklmnop',
      { chunk_size: 8, min_characters_per_chunk: 6 },
      [
        ['a b c d ', 0, 8, 8],
        ['e f ', 8, 12, 4],
        ['ghijklmn', 12, 20, 8],
        ['op', 20, 22, 2],
      ],
    ],
    // The opt-in rule keeps words whole: short words gather into runs of at least the minimum.
    [
      'forward: the same text ends chunks at word boundaries',
      'Query paragraph river quick water.',
      { chunk_size: 32, min_characters_per_chunk: 12, min_characters_rule: 'forward' },
      [
        ['Query paragraph ', 0, 16, 16],
        ['river quick water.', 16, 34, 18],
      ],
    ],
    [
      'forward: short words gather into runs of the minimum',
      'a b c d e f ghijklmnop',
      { chunk_size: 8, min_characters_per_chunk: 6, min_characters_rule: 'forward' },
      [
        ['a b c ', 0, 6, 6],
        ['d e f ', 6, 12, 6],
        ['ghijklmn', 12, 20, 8],
        ['op', 20, 22, 2],
      ],
    ],
    [
      'a long last word stays its own piece',
      'tiny words here aaaaaaaaaaaaaaaaaaaa',
      { chunk_size: 20, min_characters_per_chunk: 6 },
      [
        ['tiny words here ', 0, 16, 16],
        ['aaaaaaaaaaaaaaaaaaaa', 16, 36, 20],
      ],
    ],
    [
      'without the minimum, words pack greedily',
      'a b c d e f ghijklmnop',
      { chunk_size: 8, min_characters_per_chunk: 1 },
      [
        ['a b c d ', 0, 8, 8],
        ['e f ', 8, 12, 4],
        ['ghijklmn', 12, 20, 8],
        ['op', 20, 22, 2],
      ],
    ],
    [
      'repeated text keeps each occurrence at its own offset',
      'Same words. Same words. ',
      { chunk_size: 12, min_characters_per_chunk: 1 },
      [
        ['Same words. ', 0, 12, 12],
        ['Same words. ', 12, 24, 12],
      ],
    ],
    [
      'word tokenizer counts words',
      'one two three four five six',
      { chunk_size: 3, tokenizer: 'word', min_characters_per_chunk: 1 },
      [
        ['one two three ', 0, 14, 3],
        ['four five six', 14, 27, 3],
      ],
    ],
  ];
  for (const [name, text, config, expected] of cases) {
    test(name, async () => assert.deepEqual(rows(await chunk(text, config)), expected));
  }
});

describe('every language cuts at its own sentence ends', () => {
  // [lang, sentences]: with chunk_size = the longest sentence, each sentence is one chunk.
  const cases: [string, string[]][] = [
    ['en', ['This is the first sentence. ', 'Is this the second one? ', 'It is!']],
    ['de', ['Das ist der erste Satz. ', 'Und hier kommt der zweite.']],
    ['fr', ['Voici la première phrase ! ', 'Et voici la seconde.']],
    ['es', ['¿Dónde está la biblioteca? ', 'Está aquí mismo.']],
    ['it', ['Questa è la prima frase. ', 'Questa è la seconda.']],
    ['pt', ['Esta é a primeira frase. ', 'Esta é a segunda.']],
    ['nl', ['Dit is de eerste zin. ', 'Dit is de tweede zin.']],
    ['sv', ['Det här är första meningen. ', 'Här är den andra.']],
    ['da', ['Dette er den første sætning. ', 'Her er den anden.']],
    ['no', ['Dette er den første setningen. ', 'Her er den andre.']],
    ['fi', ['Tämä on ensimmäinen lause. ', 'Tässä on toinen.']],
    ['pl', ['To jest pierwsze zdanie. ', 'A to jest drugie.']],
    ['cs', ['Toto je první věta. ', 'A toto je druhá.']],
    ['ro', ['Aceasta este prima propoziție. ', 'Iar aceasta este a doua.']],
    ['hu', ['Ez az első mondat. ', 'Ez pedig a második.']],
    ['ru', ['Это первое предложение. ', 'А это второе.']],
    ['uk', ['Це перше речення. ', 'А це друге речення.']],
    ['el', ['Τι ώρα είναι\u037e ', 'Είναι πέντε η ώρα.']],
    ['tr', ['Bu birinci cümledir. ', 'Bu da ikincisi.']],
    ['zh', ['这是第一句话。', '这是第二句话！', '这是第三句话吗？']],
    ['ja', ['これは最初の文です。', '二番目の文ですか？', 'はい！']],
    ['ko', ['이것은 첫 문장입니다。', '두 번째 문장입니까？', '네！']],
    ['hi', ['यह पहला वाक्य है। ', 'यह दूसरा वाक्य है।']],
    ['ar', ['هل هذه هي الجملة الأولى؟ ', 'هذه هي الجملة الثانية۔ ', 'والثالثة.']],
  ];
  test('the table covers every language a recipe ships', () => {
    assert.deepEqual(cases.map(([lang]) => lang).sort(), knownLanguages());
  });
  for (const [lang, sentences] of cases) {
    test(lang, async () => {
      const size = Math.max(...sentences.map((s) => [...s].length));
      assert.deepEqual(texts(await chunk(sentences.join(''), { lang, chunk_size: size, min_characters_per_chunk: 1 })), sentences);
    });
  }
});

describe('markdown: headings start chunks', () => {
  const doc =
    '# Title\n\nIntro paragraph with some words.\n\n## Install\n\nRun the installer and wait.\n\n## Usage\n\nCall the function with a text.\n\n### Details\n\nMore details follow here.';
  const cases: [string, number][] = [
    ['sections fit one by one', 48],
    ['small chunks', 30],
  ];
  for (const [name, size] of cases) {
    test(name, async () => {
      const chunks = await chunk(doc, { recipe: 'markdown', chunk_size: size });
      assertTiles(doc, chunks, size);
      for (const heading of ['## Install', '## Usage', '### Details']) {
        assert.ok(
          chunks.some((c) => c.text.startsWith(`\n${heading}`)),
          `a chunk starts with ${heading}: ${JSON.stringify(texts(chunks))}`,
        );
      }
    });
  }
});

describe('code recipes cut at definitions', () => {
  // [recipe, source, definitions that start a chunk (after the line break the delimiter carries)];
  // a short piece joins the piece before it (Chonkie's minimum rule), so a short preamble (imports) or
  // opening tag may end a chunk instead of starting one.
  const cases: [string, string, string[]][] = [
    [
      'python',
      'import os\n\ndef first(a):\n    return a + 1\n\nclass Second:\n    def method(self):\n        return 2\n\nasync def third():\n    pass\n',
      ['class Second', 'async def third'],
    ],
    [
      'js',
      "import x from 'x';\n\nfunction first(a) {\n  return a + 1;\n}\n\nclass Second {\n  method() { return 2; }\n}\n\nconst third = () => 3;\n",
      ['class Second', 'const third'],
    ],
    [
      'ts',
      "import x from 'x';\n\ninterface First {\n  a: number;\n}\n\nexport function second(a: First): number {\n  return a.a;\n}\n\ntype Third = string | number;\n",
      ['export function second', 'type Third'],
    ],
    [
      'go',
      'package main\n\nimport "fmt"\n\nfunc first(a int) int {\n\treturn a + 1\n}\n\ntype Second struct {\n\tA int\n}\n\nfunc third() {\n\tfmt.Println("x")\n}\n',
      ['func first', 'type Second', 'func third'],
    ],
    [
      'rust',
      'use std::fmt;\n\npub fn first(a: i32) -> i32 {\n    a + 1\n}\n\nstruct Second {\n    a: i32,\n}\n\nimpl Second {\n    fn third(&self) -> i32 { self.a }\n}\n',
      ['struct Second', 'impl Second'],
    ],
    [
      'java',
      'package x;\n\npublic class First {\n    public int a() { return 1; }\n}\n\nclass Second {\n    private int b = 2;\n}\n\ninterface Third {\n    void c();\n}\n',
      ['class Second', 'interface Third'],
    ],
    [
      'c',
      '#include <stdio.h>\n\nstruct point {\n    int x;\n};\n\nint first(int a) {\n    return a + 1;\n}\n\nvoid second(void) {\n    puts("x");\n}\n',
      ['int first', 'void second'],
    ],
    [
      'cpp',
      '#include <vector>\n\nnamespace demo {\n\nclass First {\npublic:\n    int a();\n};\n\ntemplate <typename T>\nT second(T x) { return x; }\n\n}\n',
      ['class First', 'template <typename T>'],
    ],
    [
      'html',
      '<html><head><title>T</title></head><body><h1>Title</h1><p>First paragraph of text.</p><h2>Part</h2><p>Second paragraph.</p></body></html>',
      ['<h1>Title', '<h2>Part'],
    ],
    [
      'latex',
      '\\documentclass{article}\n\\begin{document}\n\\section{Intro}\nSome intro text here.\n\\section{Method}\nWe describe the method.\n\\subsection{Detail}\nA detail.\n\\end{document}\n',
      ['\\section{Intro}', '\\section{Method}', '\\subsection{Detail}'],
    ],
  ];
  test('the table covers every code recipe shipped', () => {
    const shipped = [...listRecipes()]
      .filter(([, langs]) => langs.has(''))
      .map(([name]) => name)
      .sort();
    assert.deepEqual(cases.map(([name]) => name).sort(), shipped);
  });
  for (const [recipe, source, definitions] of cases) {
    test(recipe, async () => {
      const size = 60;
      const chunks = await chunk(source, { recipe, chunk_size: size, lang: 'ja' }); // code recipes accept any lang
      assertTiles(source, chunks, size);
      for (const d of definitions) {
        assert.ok(
          chunks.some((c) => c.text.trimStart().startsWith(d)),
          `${recipe}: a chunk starts at ${JSON.stringify(d)}: ${JSON.stringify(texts(chunks))}`,
        );
      }
    });
  }
});

describe('config errors', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['an unknown recipe lists the recipes', { recipe: 'markdwn' }, /Unknown recipe 'markdwn'\. Did you mean 'markdown'\?.*default.*python/],
    ['an unknown lang lists the languages', { lang: 'xx' }, /Unknown lang 'xx'.*en.*zh/],
    ['an unknown tokenizer', { tokenizer: 'nope' }, /tokenizer/],
  ];
  for (const [name, config, message] of cases) {
    test(`${name} → 400`, async () => {
      await assert.rejects(chunk('Some text to chunk here.', config), (e) => isChunkdError(e) && e.status === 400 && message.test(String(e.detail)));
    });
  }
  test('min_characters_per_chunk 0 is a 422', () => {
    assert.throws(
      () => recursive.validateConfig({ min_characters_per_chunk: 0 }),
      (e) => isChunkdError(e) && e.status === 422,
    );
  });
});

describe('properties', () => {
  const alphabet = fc.constantFrom('a', 'b', ' ', '. ', '\n', '\n\n', '\r\n', ',', '🦛', 'é', '日本', '# ', '\ndef ');
  const tokenizers = ['character', 'byte', 'word', 'cl100k_base'];
  for (const tokenizer of tokenizers) {
    test(`chunks tile the input and never exceed chunk_size — ${tokenizer}`, async () => {
      const tok = await loadTokenizer(tokenizer);
      const recipes = ['default', 'markdown', 'python'];
      await fc.assert(
        fc.asyncProperty(
          fc.array(alphabet, { minLength: 1, maxLength: 60 }),
          fc.integer({ min: 1, max: 24 }),
          fc.integer({ min: 1, max: 12 }),
          fc.constantFrom(...recipes),
          async (parts, size, min, recipe) => {
            const text = parts.join('');
            fc.pre(text.trim() !== '');
            const chunks = await chunk(text, { tokenizer, chunk_size: size, min_characters_per_chunk: min, recipe });
            assertTiles(text, chunks, size, tok.ends(text));
          },
        ),
        { numRuns: 150 },
      );
    });
  }

  test('cl100k: token_count is the input encoding inside the chunk, summing to the whole count', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(40) + '\n\n' + '日本語の文章です。'.repeat(20);
    const chunks = await chunk(text, { tokenizer: 'cl100k_base', chunk_size: 50 });
    assertTiles(text, chunks, 50);
    const cl100k = await loadTokenizer('cl100k_base');
    assert.equal(
      chunks.reduce((n, c) => n + c.token_count, 0),
      cl100k.count(text),
    );
  });

  test('one instance serves many texts without keeping state', async () => {
    const a = 'First text. It has two sentences.';
    const b = 'Second text, quite different.\n\nWith a paragraph.';
    const config = { chunk_size: 12, min_characters_per_chunk: 1 };
    const first = [await chunk(a, config), await chunk(b, config)];
    const interleaved = await Promise.all([chunk(b, config), chunk(a, config)]);
    assert.deepEqual([interleaved[1], interleaved[0]], first);
  });
});

describe('keep_blocks: tables and code blocks of a processed document stay whole', () => {
  const DOC =
    '# Guide\n\nSome words before the table here.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nMore words after it.\n\n```js\nconst x = 1;\n```\n';
  const structure = {
    headings: [{ level: 1, text: 'Guide', start: 0, end: 7 }],
    tables: [{ start: DOC.indexOf('| a'), end: DOC.indexOf('| 4 |') + 5 }],
    code: [{ start: DOC.indexOf('```js'), end: DOC.lastIndexOf('```') + 3, language: 'js' }],
    images: [],
    pages: [],
  };
  const run = async (config: Record<string, unknown>, withStructure = true) =>
    (await chunkWith(recursive, recursive.validateConfig({ ...config }), DOC, 'codepoint', withStructure ? { structures: [structure] } : {})) as Chunk[];
  const table = DOC.slice(structure.tables[0]!.start, structure.tables[0]!.end);
  const code = DOC.slice(structure.code[0]!.start, structure.code[0]!.end);

  test('on: the table and the code block are chunks of their own; chunks still tile the document', async () => {
    const chunks = await run({ chunk_size: 48, keep_blocks: true });
    assert.ok(texts(chunks).includes(table), JSON.stringify(texts(chunks)));
    assert.ok(texts(chunks).includes(code));
    assert.equal(texts(chunks).join(''), DOC);
    assert.deepEqual(chunks.find((c) => c.text === table)!.metadata, { headings: ['Guide'], blocks: ['table'] });
  });

  test('off (the default): the chunks are those of the text without structure, with metadata added', async () => {
    const off = await run({ chunk_size: 48 });
    const plain = await run({ chunk_size: 48 }, false);
    assert.deepEqual(rows(off), rows(plain));
    assert.ok(!texts(off).includes(table), 'the default cuts across the table');
    assert.ok(plain.every((c) => c.metadata === undefined));
  });

  test('a block larger than chunk_size is cut as usual', async () => {
    const chunks = await run({ chunk_size: 12, keep_blocks: true });
    assert.ok(!texts(chunks).includes(table));
    assert.equal(texts(chunks).join(''), DOC);
    for (const c of chunks) assert.ok(c.token_count <= 12);
  });
});
