/**
 * The conformance suite: every registered plugin, built-in or dropped into a plugins folder, is
 * held to the wire contract here with no plugin-specific code. A new plugin folder is tested by
 * this file as soon as it exists.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Chunk } from '../kernel/chunk.js';
import { discover } from '../kernel/discovery.js';
import type { RoutedPlugin as Plugin } from '../kernel/registry.js';
import { loadTokenizer } from '../kernel/tokenizers/index.js';
import type { TestApp } from './helpers/app.js';
import { startAppWithFakeLlm } from './helpers/fake-llm.js';
import { BLANK_TEXTS, FIXTURES } from './helpers/fixtures.js';
import { sliceIn } from './helpers/units.js';
import { chunkWith, refineWith } from './helpers/run.js';

const registry = await discover();
const UNITS = ['codepoint', 'utf16', 'utf8'] as const;
const KEY_ORDER = ['id', 'text', 'start_index', 'end_index', 'token_count', 'context', 'embedding', 'metadata'];
/** Tokenizers whose counts are additive over any cut at a token boundary: there token_count must equal a recount. */
const ADDITIVE = new Set(['character', 'byte', 'word']);

/** A document with every kind of structure, in CRLF, with CJK and emoji, and text that repeats. */
const STRUCTURED =
  '# 日本語 🦛 Title\r\n\r\nIntro 👨‍👩‍👧‍👦 text. Intro 👨‍👩‍👧‍👦 text.\r\n\r\n## Install 🇯🇵\r\n\r\n| a | 表 |\r\n|---|---|\r\n| 1 | 🦛 |\r\n\r\n' +
  '```py\r\nprint("🦛")\r\n```\r\n\r\n![alt 🦛](img/x.png)\r\n\r\n### 再び\r\n\r\nSame sentence again. Same sentence again.\r\n';

let app: TestApp;
// Plugins that call an LLM (slumber) run against a local fake chat-completions server, configured as an operator would.
before(async () => (app = await startAppWithFakeLlm()));
after(() => app.close());

/** Config variants a chunker is run with: its defaults, and small sizes that force many chunks. */
function variants(plugin: Plugin): Record<string, unknown>[] {
  const keys = new Set(plugin.configKeys);
  const out: Record<string, unknown>[] = [{}];
  if (keys.has('chunk_size')) out.push({ chunk_size: 16 }, { chunk_size: 3 });
  if (keys.has('chunk_size') && keys.has('tokenizer')) out.push({ chunk_size: 8, tokenizer: 'cl100k_base' }, { chunk_size: 12, tokenizer: 'word' });
  return out;
}

const fieldDefault = (plugin: Plugin, key: string) => (plugin.manifest.config.properties[key] as { default?: unknown } | undefined)?.default;

function checkKeyOrder(chunk: Record<string, unknown>): void {
  const known = Object.keys(chunk).filter((k) => KEY_ORDER.includes(k));
  assert.deepEqual(
    known,
    KEY_ORDER.filter((k) => k in chunk),
    `chunk keys out of wire order: ${Object.keys(chunk).join(', ')}`,
  );
}

// Handshakes have no route: test/handshake-conformance.test.ts holds them to the store contract.
for (const plugin of registry.routed()) {
  describe(`conformance: ${plugin.kind} ${plugin.name}`, () => {
    test('manifest: every config field has a default and a description; extras name packages', () => {
      for (const [key, field] of Object.entries(plugin.manifest.config.properties)) {
        const f = field as { default?: unknown; description?: string };
        assert.notEqual(f.default, undefined, `${key} has no default`);
        assert.ok(f.description && f.description.length > 10, `${key} has no description`);
        assert.match(key, /^[a-z][a-z0-9_]*$/, `${key} is not snake_case`);
      }
      for (const extra of plugin.manifest.extras) assert.ok(extra.packages.length > 0 && extra.reason.length > 0);
    });

    test('the manifest examples are valid requests that succeed', async () => {
      for (const example of plugin.manifest.examples ?? []) {
        const body = plugin.kind !== 'refinery' ? example : { chunks: await sampleChunks('ascii'), ...example };
        const res = await app.post(plugin.route, body);
        assert.equal(res.status, 200, JSON.stringify(res.body));
      }
    });

    if (plugin.missing.length) {
      test('a missing extra answers 501 with the install command', async () => {
        const body = plugin.kind !== 'refinery' ? { text: FIXTURES.ascii } : { chunks: await sampleChunks('ascii') };
        const res = await app.post(plugin.route, body);
        assert.equal(res.status, 501);
        assert.equal(res.body.code, 'MISSING_EXTRA');
        assert.match(res.body.detail, /npm install /);
      });
      return;
    }

    if (plugin.kind === 'chunker') chunkerSuite(plugin);
    else if (plugin.kind === 'chef') chefSuite(plugin);
    else refinerySuite(plugin);
  });
}

interface WireSpan {
  start_index: number;
  end_index: number;
  text?: string;
}

function chefSuite(plugin: Plugin): void {
  if (plugin.manifest.bytesOnly) {
    test('a text sent to a chef that reads files only → 422 that says to upload', async () => {
      const res = await app.post(plugin.route, { text: FIXTURES.ascii });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.match(res.body.detail, /reads files, not text/);
    });
    return;
  }
  const texts = { ...FIXTURES, structured: STRUCTURED };

  test('every span is exact in every unit: the same slice of the answered text as in UTF-16', async () => {
    for (const [name, text] of Object.entries(texts)) {
      const base = await app.post(plugin.route, { text, offset_unit: 'utf16' });
      assert.equal(base.status, 200, `${name}: ${JSON.stringify(base.body)}`);
      const doc = base.body as { text: string; structure: Record<string, WireSpan[]>; metadata: object };
      assert.equal(typeof doc.text, 'string');
      assert.deepEqual(Object.keys(doc.structure).sort(), ['code', 'headings', 'images', 'pages', 'tables']);
      const slices = (d: typeof doc, unit: (typeof UNITS)[number]) =>
        Object.values(d.structure)
          .flat()
          .map((s) => sliceIn(d.text, s.start_index, s.end_index, unit));
      const expected = slices(doc, 'utf16');
      for (const s of Object.values(doc.structure).flat()) {
        assert.ok(s.start_index <= s.end_index && s.end_index <= doc.text.length, `${name}: span out of range ${JSON.stringify(s)}`);
        if (s.text !== undefined) assert.ok(doc.text.slice(s.start_index, s.end_index).includes(s.text), `${name}: heading text not inside its span`);
      }
      for (const unit of ['codepoint', 'utf8'] as const) {
        const res = await app.post(plugin.route, { text, offset_unit: unit });
        assert.equal(res.status, 200);
        assert.equal(res.body.text, doc.text);
        assert.deepEqual(slices(res.body as typeof doc, unit), expected, `${name}/${unit}: spans differ from UTF-16`);
      }
    }
  });

  test('deterministic: the same document twice gives the same answer', async () => {
    for (const text of Object.values(texts)) {
      const [a, b] = [await app.post(plugin.route, { text }), await app.post(plugin.route, { text })];
      assert.deepEqual(a.body, b.body);
    }
  });

  test('an empty or blank text is a document without structure, not an error', async () => {
    for (const text of BLANK_TEXTS) {
      const res = await app.post(plugin.route, { text });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.text.trim(), '');
      assert.deepEqual(
        Object.values(res.body.structure)
          .flat()
          .filter(
            (s) =>
              (s as WireSpan).end_index > (s as WireSpan).start_index &&
              res.body.text.slice((s as WireSpan).start_index, (s as WireSpan).end_index).trim() !== '',
          ),
        [],
      );
    }
  });

  test('a body without text → 422 naming the field', async () => {
    const res = await app.post(plugin.route, {});
    assert.equal(res.status, 422);
  });
}

function chunkerSuite(plugin: Plugin): void {
  for (const config of variants(plugin)) {
    const label = JSON.stringify(config);
    const overlapping = Number(config.chunk_overlap ?? fieldDefault(plugin, 'chunk_overlap') ?? 0) > 0;
    const tokenizerName = String(config.tokenizer ?? fieldDefault(plugin, 'tokenizer') ?? '');

    test(`offsets are exact in every unit, chunks in order, content covered — ${label}`, async () => {
      for (const [name, text] of Object.entries(FIXTURES)) {
        for (const unit of UNITS) {
          const res = await app.post(plugin.route, { text, offset_unit: unit, ...config });
          assert.equal(res.status, 200, `${name}/${unit}: ${JSON.stringify(res.body)}`);
          const chunks = res.body as Chunk[];
          assert.ok(chunks.length > 0, `${name}: no chunks`);
          let covered = 0; // UTF-16 end of what the chunks covered so far (utf16 pass only)
          let prevStart = -1;
          for (const c of chunks) {
            checkKeyOrder(c);
            assert.equal(sliceIn(text, c.start_index, c.end_index, unit), c.text, `${name}/${unit}: slice ≠ text for ${JSON.stringify(c)}`);
            assert.ok(c.text.length > 0, `${name}: empty chunk`);
            assert.ok(c.start_index >= prevStart, `${name}: chunks out of order`);
            if (plugin.manifest.embeds)
              assert.ok(
                Array.isArray(c.embedding) && c.embedding.length > 0 && c.embedding.every(Number.isFinite),
                `${name}: an embedding chunker left a chunk without a vector`,
              );
            else assert.equal(c.embedding, undefined, 'a chunker that does not declare embeds never sets embedding');
            assert.ok(Number.isInteger(c.token_count) && c.token_count >= 0);
            prevStart = c.start_index;
            if (unit === 'utf16') {
              if (!overlapping) assert.ok(c.start_index >= covered, `${name}: chunks overlap at ${c.start_index}`);
              assert.equal(text.slice(covered, c.start_index).trim(), '', `${name}: content skipped before ${c.start_index}`);
              covered = Math.max(covered, c.end_index);
            }
          }
          if (unit === 'utf16') assert.equal(text.slice(covered).trim(), '', `${name}: content after the last chunk was skipped`);
        }
      }
    });

    test(`token_count matches the tokenizer — ${label}`, async () => {
      if (!tokenizerName) return; // a chunker without a tokenizer field counts with its own model
      const tokenizer = await loadTokenizer(tokenizerName);
      for (const [name, text] of Object.entries(FIXTURES)) {
        const chunks = (await app.post(plugin.route, { text, ...config })).body as Chunk[];
        for (const c of chunks) {
          const recount = tokenizer.count(c.text);
          // BPE counts are not additive over cuts: a window may differ from a recount by one token per cut.
          const slack = ADDITIVE.has(tokenizerName) ? 0 : 2;
          assert.ok(Math.abs(recount - c.token_count) <= slack, `${name}: token_count ${c.token_count}, recount ${recount} for ${JSON.stringify(c.text)}`);
        }
      }
    });

    test(`deterministic ids and output; a batch equals the per-item map — ${label}`, async () => {
      const texts = Object.values(FIXTURES);
      const batch = await app.post(plugin.route, { text: texts, ...config });
      assert.equal(batch.status, 200);
      assert.equal(batch.body.length, texts.length);
      for (const [i, text] of texts.entries()) {
        const one = await app.post(plugin.route, { text, ...config });
        assert.deepEqual(batch.body[i], one.body, `batch item ${i} differs from a single request`);
      }
      const again = await app.post(plugin.route, { text: texts, ...config });
      assert.deepEqual(again.body, batch.body);
      const ids = (batch.body as Chunk[][]).flat().map((c) => c.id);
      assert.ok(ids.every((id) => typeof id === 'string' && id.length > 0));
    });
  }

  test('empty and whitespace-only texts give [] on every path', async () => {
    for (const text of BLANK_TEXTS) {
      assert.deepEqual((await app.post(plugin.route, { text })).body, [], JSON.stringify(text));
    }
    assert.deepEqual((await app.post(plugin.route, { text: [] })).body, []);
    assert.deepEqual(
      (await app.post(plugin.route, { text: BLANK_TEXTS })).body,
      BLANK_TEXTS.map(() => []),
    );
    const mixed = await app.post(plugin.route, { text: ['', FIXTURES.ascii, ' '] });
    assert.deepEqual(mixed.body[0], []);
    assert.ok(mixed.body[1].length > 0);
    assert.deepEqual(mixed.body[2], []);
  });

  test('the kernel path does not mutate its input', async () => {
    const input = Object.values(FIXTURES);
    const copy = structuredClone(input);
    const config = plugin.validateConfig(structuredClone({}));
    await chunkWith(plugin, config, input, 'codepoint');
    assert.deepEqual(input, copy);
  });

  test('a non-string text is a 422 naming the field', async () => {
    for (const text of [7, null, { a: 1 }, [1, 2], ['ok', 3]]) {
      const res = await app.post(plugin.route, { text });
      assert.equal(res.status, 422, JSON.stringify(text));
      assert.equal(res.body.code, 'VALIDATION');
      assert.deepEqual(res.body.detail[0].loc.slice(0, 2), ['body', 'text']);
    }
  });
}

/** Chunks from the token chunker (always built in) for a fixture: the input refineries are tested on. */
async function sampleChunks(fixture: keyof typeof FIXTURES, chunkSize = 16): Promise<Chunk[]> {
  const token = registry.get('chunker', 'token');
  return (await chunkWith(token, token.validateConfig({ chunk_size: chunkSize }), FIXTURES[fixture]!, 'codepoint')) as Chunk[];
}

function refinerySuite(plugin: Plugin): void {
  test('keeps the count, order, ids and offsets of every chunk, for every fixture', async () => {
    for (const name of Object.keys(FIXTURES)) {
      const chunks = await sampleChunks(name);
      const res = await app.post(plugin.route, { chunks });
      assert.equal(res.status, 200, `${name}: ${JSON.stringify(res.body)}`);
      const out = res.body as Chunk[];
      assert.equal(out.length, chunks.length);
      out.forEach((c, i) => {
        checkKeyOrder(c);
        assert.equal(c.id, chunks[i]!.id);
        assert.equal(c.start_index, chunks[i]!.start_index);
        assert.equal(c.end_index, chunks[i]!.end_index);
      });
    }
  });

  test('[] gives []; a list of lists gives one list per list', async () => {
    assert.deepEqual((await app.post(plugin.route, { chunks: [] })).body, []);
    const lists = [await sampleChunks('ascii'), [], await sampleChunks('cjk')];
    const res = await app.post(plugin.route, { chunks: lists });
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 3);
    for (const [i, list] of lists.entries()) {
      const one = await app.post(plugin.route, { chunks: list });
      assert.deepEqual(res.body[i], one.body);
    }
  });

  test('the kernel path does not mutate its input and is deterministic', async () => {
    const chunks = await sampleChunks('emoji');
    const copy = structuredClone(chunks);
    const config = plugin.validateConfig({});
    const a = await refineWith(plugin, config, chunks);
    const b = await refineWith(plugin, config, chunks);
    assert.deepEqual(chunks, copy);
    assert.deepEqual(a, b);
  });

  test('a chunk missing a required field is a 422 naming its index', async () => {
    const chunks = await sampleChunks('ascii');
    const broken = chunks.map((c, i) => (i === 1 ? { ...c, start_index: undefined } : c));
    const res = await app.post(plugin.route, { chunks: broken });
    assert.equal(res.status, 422);
    assert.ok(res.body.detail[0].loc.includes(1), JSON.stringify(res.body.detail));
  });
}
