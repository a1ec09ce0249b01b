import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeChunkId, type HandshakeImpl, type StoreHit, type StoreRow } from '../../kernel/handshake.js';
import type { Plugin, Registry } from '../../kernel/registry.js';
import { fuse, fusionFor } from '../../kernel/fusion.js';
import { modesOf, SEARCH_MODES } from '../../kernel/search-mode.js';
import { Stores } from '../../service/stores/stores.js';

/** A running engine for a handshake: the connection config that reaches it, and how to stop it. */
export interface Engine {
  config: Record<string, unknown>;
  stop(): Promise<void>;
}

const DIM = 4;
const META = { model: 'test-model', dimension: DIM };

/** A unit vector per word list, so that a query's nearest row is known: the axis of its first word. */
const AXES: Record<string, number> = { hippo: 0, river: 1, code: 2, 日本: 3 };
function vector(text: string): number[] {
  const v = Array.from({ length: DIM }, () => 0.05);
  for (const [word, axis] of Object.entries(AXES)) if (text.includes(word)) v[axis]! += 1;
  return v;
}

const TEXT = 'The hippo swims. The river is wide. Some code here. 日本 🦛 text.';
/** The document's chunks, with offsets into TEXT (UTF-16 and code points agree up to the emoji, the last chunk is checked by text). */
function rows(document: string, text = TEXT): StoreRow[] {
  const parts = text.match(/[^.]+\./g)!;
  let at = 0;
  return parts.map((part, i) => {
    const start = text.indexOf(part, at);
    at = start + part.length;
    const chunk = { text: part, start_index: start, end_index: at };
    return {
      id: storeChunkId(document, chunk),
      document,
      ...chunk,
      token_count: part.split(/\s+/).filter(Boolean).length,
      metadata: { n: i, heading: ['Intro', 'Ünïcode 🦛'] },
      embedding: vector(part),
    };
  });
}

const countOf = async (impl: HandshakeImpl, collection: string) => (await impl.collections()).find((c) => c.name === collection)?.count ?? 0;

function checkHits(hits: StoreHit[], document?: string): void {
  for (const [i, hit] of hits.entries()) {
    assert.equal(typeof hit.score, 'number');
    assert.ok(Number.isFinite(hit.score), `score ${hit.score}`);
    if (i > 0) assert.ok(hits[i - 1]!.score >= hit.score, 'best first');
    assert.equal(typeof hit.id, 'string');
    assert.equal(hit.metadata.document, hit.document, 'metadata.document names the document');
    assert.equal(TEXT.slice(hit.start_index, hit.end_index), hit.text, 'offsets stored as given');
    assert.ok(Number.isInteger(hit.token_count));
    if (document) assert.equal(hit.document, document);
  }
}

/**
 * The store contract, run on one handshake against its real engine (`start` brings one up).
 * Every handshake is held to the same rows, counts and orderings.
 */
export function handshakeSuite(plugin: Plugin, start: () => Promise<Engine>): void {
  describe(`handshake conformance: ${plugin.name}`, () => {
    let engine: Engine;
    let impl: HandshakeImpl;
    const caps = plugin.manifest.capabilities!;
    before(async () => {
      engine = await start();
      impl = await plugin.connect(engine.config);
    });
    after(async () => {
      await impl?.close();
      await engine?.stop();
    });

    test('manifest: capabilities declared, connection fields described', () => {
      assert.ok(caps.vector || caps.text, 'it searches by something');
      for (const [key, field] of Object.entries(plugin.manifest.config.properties)) {
        assert.ok((field as { description?: string }).description, `${key} has no description`);
        assert.match(key, /^[a-z][a-z0-9_]*$/);
      }
    });

    test('writing the same document twice leaves one copy; collections() reports count, model, dimension', async () => {
      const mine = rows('doc-1');
      await impl.write('twice', 'doc-1', mine, META);
      await impl.write('twice', 'doc-1', mine, META);
      const info = (await impl.collections()).find((c) => c.name === 'twice');
      assert.deepEqual(info, { name: 'twice', count: mine.length, model: META.model, dimension: DIM });
    });

    test('a re-write replaces the document; other documents stay', async () => {
      await impl.write('replace', 'doc-1', rows('doc-1'), META);
      await impl.write('replace', 'doc-2', rows('doc-2'), META);
      const shorter = rows('doc-1', 'The hippo swims. Some code here.');
      await impl.write('replace', 'doc-1', shorter, META);
      assert.equal(await countOf(impl, 'replace'), shorter.length + rows('doc-2').length);
      if (caps.vector) {
        const hits = await impl.search('replace', { embedding: vector('river'), k: 20, filter: { document: 'doc-1' } });
        assert.deepEqual(hits.map((h) => h.id).sort(), shorter.map((r) => r.id).sort(), 'only the new rows of doc-1');
      }
    });

    test('delete removes a document and says how many rows; a second delete removes none', async () => {
      await impl.write('delete', 'doc-1', rows('doc-1'), META);
      await impl.write('delete', 'doc-2', rows('doc-2'), META);
      assert.equal(await impl.delete('delete', 'doc-1'), rows('doc-1').length);
      assert.equal(await impl.delete('delete', 'doc-1'), 0);
      assert.equal(await countOf(impl, 'delete'), rows('doc-2').length);
      const query = caps.vector ? { embedding: vector('hippo') } : { text: 'hippo' };
      const hits = await impl.search('delete', { ...query, k: 20 });
      assert.ok(hits.length > 0 && hits.every((h) => h.document === 'doc-2'), 'doc-1 is gone from search');
    });

    if (caps.vector) {
      test('vector search: best first, numeric score, offsets, metadata, the nearest row first; filter by document', async () => {
        await impl.write('search', 'doc-1', rows('doc-1'), META);
        await impl.write('search', 'doc-2', rows('doc-2'), META);
        const hits = await impl.search('search', { embedding: vector('river'), k: 3 });
        assert.equal(hits.length, 3);
        checkHits(hits);
        assert.equal(hits[0]!.text, ' The river is wide.');
        assert.deepEqual(hits[0]!.metadata.heading, ['Intro', 'Ünïcode 🦛'], 'metadata round-trips');
        const filtered = await impl.search('search', { embedding: vector('日本'), k: 10, filter: { document: 'doc-2' } });
        assert.equal(filtered.length, rows('doc-2').length);
        checkHits(filtered, 'doc-2');
        assert.equal(filtered[0]!.text, ' 日本 🦛 text.');
        assert.ok(filtered[0]!.score > filtered.at(-1)!.score);
      });
    }

    if (caps.text) {
      test('text search: the chunk holding the word first; filter by document', async () => {
        await impl.write('text', 'doc-1', rows('doc-1'), META);
        await impl.write('text', 'doc-2', rows('doc-2'), META);
        const hits = await impl.search('text', { text: 'river', k: 5 });
        assert.ok(hits.length >= 1);
        checkHits(hits);
        assert.equal(hits[0]!.text, ' The river is wide.');
        const filtered = await impl.search('text', { text: 'code', k: 5, filter: { document: 'doc-1' } });
        assert.ok(filtered.length >= 1);
        checkHits(filtered, 'doc-1');
      });
    }

    test('an unknown collection: search finds nothing, delete removes nothing, it is not listed', async () => {
      const query = caps.vector ? { embedding: vector('hippo') } : { text: 'hippo' };
      assert.deepEqual(await impl.search('nothing-here', { ...query, k: 5 }), []);
      assert.equal(await impl.delete('nothing-here', 'doc-1'), 0);
      assert.ok(!(await impl.collections()).some((c) => c.name === 'nothing-here'));
    });

    test('a collection is what it is named: the longest names and names alike but for their end are kept apart', async () => {
      // 63 characters (the most a name has), alike up to the last; 58, alike up to character 57 (where a 63-byte identifier with a 6-byte prefix ends); and a name that a suffix of another's index would make.
      const long = 'L'.repeat(62);
      const pairs: [string, string][] = [
        [`${long}a`, `${long}b`],
        [`${'n'.repeat(57)}A`, `${'n'.repeat(57)}B`],
        ['x', 'x_document'],
      ];
      const query = caps.vector ? { embedding: vector('hippo') } : { text: 'hippo' };
      for (const [a, b] of pairs) {
        await impl.write(a, 'doc-a', rows('doc-a'), META);
        await impl.write(b, 'doc-b', rows('doc-b', 'The hippo swims.'), META);
        const listed = new Map((await impl.collections()).map((c) => [c.name, c.count]));
        assert.equal(listed.get(a), rows('doc-a').length, `${a} keeps its own rows`);
        assert.equal(listed.get(b), 1, `${b} keeps its own rows`);
        assert.deepEqual(
          [...new Set((await impl.search(b, { ...query, k: 20 })).map((h) => h.document))],
          ['doc-b'],
          `a search of ${b} finds its document only`,
        );
        assert.equal(await impl.delete(b, 'doc-a'), 0, `a delete through ${b} leaves ${a}'s document`);
        assert.equal(await countOf(impl, a), rows('doc-a').length);
        assert.equal(await impl.delete(b, 'doc-b'), 1);
        assert.equal(await countOf(impl, a), rows('doc-a').length, `emptying ${b} leaves ${a}`);
        assert.ok(
          (await impl.search(a, { ...query, k: 20 })).every((h) => h.document === 'doc-a'),
          `${a} holds its document only`,
        );
      }
    });

    test('writeMany (when offered) replaces each document of the batch', async () => {
      if (!impl.writeMany) return;
      await impl.writeMany(
        'many',
        [
          { document: 'a', rows: rows('a') },
          { document: 'b', rows: rows('b') },
        ],
        META,
      );
      await impl.writeMany(
        'many',
        [
          { document: 'a', rows: rows('a') },
          { document: 'b', rows: rows('b', 'The hippo swims.') },
        ],
        META,
      );
      assert.equal(await countOf(impl, 'many'), rows('a').length + 1);
    });

    test('drop (when offered) removes the collection, its rows and its model; others stay; a missing one is no error', async () => {
      if (!impl.drop) return;
      await impl.write('scratch', 'doc-1', rows('doc-1'), META);
      await impl.write('kept', 'doc-1', rows('doc-1'), META);
      await impl.drop('scratch');
      await impl.drop('scratch');
      const names = (await impl.collections()).map((c) => c.name);
      assert.ok(!names.includes('scratch') && names.includes('kept'), names.join(', '));
      // Written again, it is a new collection: another model is no conflict, the old rows are gone.
      await impl.write(
        'scratch',
        'doc-2',
        rows('doc-2').map((r) => ({ ...r, embedding: [...r.embedding, 0] })),
        { model: 'other-model', dimension: DIM + 1 },
      );
      assert.deepEqual(
        (await impl.collections()).find((c) => c.name === 'scratch'),
        { name: 'scratch', count: rows('doc-2').length, model: 'other-model', dimension: DIM + 1 },
      );
    });

    /** Rows of `document` carrying the document's name and the user's metadata, as the stores service writes them. */
    const tagged = (document: string, meta: Record<string, unknown>) =>
      rows(document).map((r) => ({ ...r, metadata: { ...r.metadata, name: `${document}.pdf`, ...meta } }));

    test('a metadata filter keeps the chunks whose fields are equal to a value or in a list, every field holding; a hit carries name and metadata', async () => {
      await impl.write('meta', 'en-docs', tagged('en-docs', { team: 'docs', lang: 'en', year: 2024, draft: false }), META);
      await impl.write('meta', 'fr-docs', tagged('fr-docs', { team: 'docs', lang: 'fr', year: 2025, draft: true }), META);
      await impl.write('meta', 'de-ops', tagged('de-ops', { team: 'ops', lang: 'de', year: 2024, draft: false }), META);
      const query = caps.vector ? { embedding: vector('hippo') } : { text: 'hippo' };
      const search = async (metadata: Record<string, unknown>, document?: string) =>
        new Set(
          (await impl.search('meta', { ...query, k: 50, filter: { ...(document ? { document } : {}), metadata: metadata as never } })).map((h) => h.document),
        );
      assert.deepEqual(await search({ team: 'docs' }), new Set(['en-docs', 'fr-docs']));
      assert.deepEqual(await search({ team: 'docs', lang: 'fr' }), new Set(['fr-docs']), 'every field must hold');
      assert.deepEqual(await search({ lang: { in: ['en', 'de'] } }), new Set(['en-docs', 'de-ops']));
      assert.deepEqual(await search({ year: 2024 }), new Set(['en-docs', 'de-ops']), 'a number');
      assert.deepEqual(await search({ year: '2024' }), new Set(), 'a string is not the number');
      assert.deepEqual(await search({ draft: true }), new Set(['fr-docs']), 'a boolean');
      assert.deepEqual(await search({ name: 'de-ops.pdf' }), new Set(['de-ops']), 'the name chunkd writes');
      assert.deepEqual(await search({ team: 'docs' }, 'en-docs'), new Set(['en-docs']), 'with the document');
      assert.deepEqual(await search({ team: 'nobody' }), new Set());
      const [hit] = await impl.search('meta', { ...query, k: 1, filter: { metadata: { team: 'ops' } } });
      assert.equal(hit!.metadata.name, 'de-ops.pdf');
      assert.equal(hit!.metadata.lang, 'de');
      assert.equal(hit!.metadata.year, 2024);
    });

    test('a filter value is a literal: quotes, wildcards and SQL in it match only the same text', async () => {
      const odd = ["o'brien", '50%', 'a_b', 'back\\slash', 'q"uote', "x' OR '1'='1", 'docs"} OR 1=1 --'];
      for (const [i, team] of odd.entries()) await impl.write('odd', `odd-${i}`, tagged(`odd-${i}`, { team }), META);
      await impl.write('odd', 'plain', tagged('plain', { team: 'docs', note: '50x aXb' }), META);
      const query = caps.vector ? { embedding: vector('hippo') } : { text: 'hippo' };
      for (const [i, team] of odd.entries()) {
        const hits = await impl.search('odd', { ...query, k: 50, filter: { metadata: { team } } });
        assert.deepEqual([...new Set(hits.map((h) => h.document))], [`odd-${i}`], JSON.stringify(team));
      }
      const none = await impl.search('odd', { ...query, k: 50, filter: { metadata: { team: "' OR 1=1 --" } } });
      assert.deepEqual(none, []);
      const wild = await impl.search('odd', { ...query, k: 50, filter: { metadata: { team: '%' } } });
      assert.deepEqual(wild, [], 'a % matches only a %');
    });

    test('documents (when offered) lists each document by id with its name and chunk count, page after page', async () => {
      // The stores the project ships for collections it manages (and the drop-in memory) offer both; another may not.
      if (['lancedb', 'pgvector', 'memory'].includes(plugin.name))
        assert.ok(impl.documents && impl.drop, `${plugin.name} lists documents and drops collections`);
      if (!impl.documents) return;
      for (const d of ['d-a', 'd-b', 'd-c']) await impl.write('listing', d, tagged(d, {}), META);
      await impl.write('listing', 'd-d', rows('d-d').slice(0, 1), META);
      const first = await impl.documents('listing', { limit: 2 });
      assert.deepEqual(first, [
        { document: 'd-a', name: 'd-a.pdf', chunks: rows('d-a').length },
        { document: 'd-b', name: 'd-b.pdf', chunks: rows('d-b').length },
      ]);
      const next = await impl.documents('listing', { after: 'd-b', limit: 10 });
      assert.deepEqual(next, [
        { document: 'd-c', name: 'd-c.pdf', chunks: rows('d-c').length },
        { document: 'd-d', name: null, chunks: 1 },
      ]);
      assert.deepEqual(await impl.documents('nothing-here', { limit: 5 }), []);
    });

    /**
     * Search modes, through the Stores service (which picks the mode and fuses hybrid once for every
     * handshake) on this handshake's own connection. Each query is sent with its vector, as an
     * evaluation sends it, so no embedding model is needed.
     */
    describe('search modes through the Stores service', () => {
      const modes = modesOf(caps);
      // the service over this suite's connection (re-opened by a later test: read at each call; closed by the suite)
      const service = () => {
        const own = {
          collections: () => impl.collections(),
          write: (...a: Parameters<HandshakeImpl['write']>) => impl.write(...a),
          delete: (c: string, d: string) => impl.delete(c, d),
          search: (c: string, q: Parameters<HandshakeImpl['search']>[1]) => impl.search(c, q),
          close: async () => {},
        } satisfies HandshakeImpl;
        const wrapped = { manifest: plugin.manifest, connect: async () => own };
        const registry = { get: () => wrapped } as unknown as Registry;
        return new Stores(registry, [{ name: 'conf', handshake: plugin.name, config: engine.config, secrets: [] }], { replicaSet: false });
      };
      const rare = (document: string): StoreRow[] => {
        const text = 'The quokka smiles. The river is wide. Some code here.';
        return rows(document, text).map((r) => ({ ...r, index_text: r.text.includes('code') ? `Setup > Install\n${r.text}` : r.text }));
      };

      test('a mode that is none, or one the handshake cannot serve: 422 naming the modes it serves', async () => {
        await impl.write('modes', 'doc-1', rows('doc-1'), META);
        const stores = service();
        for (const mode of ['nope', ...SEARCH_MODES.filter((m) => !modes.includes(m))])
          await assert.rejects(
            stores.search('conf', { collection: 'modes', query: 'hippo', embedding: vector('hippo'), k: 3, mode }),
            (e: { status: number; message: string; detail?: { loc: unknown[]; msg: string }[] }) =>
              e.status === 422 &&
              e.detail![0]!.loc.join('.') === 'body.mode' &&
              e.detail![0]!.msg.includes(`serves${mode === 'nope' ? ':' : ''} ${modes.join(', ')}`),
            mode,
          );
      });

      if (caps.text) {
        test('text mode: the chunk holding a rare word first; the index text is what is matched, the span what comes back', async () => {
          await impl.write('modes', 'doc-1', rows('doc-1'), META);
          await impl.write('modes', 'rare', rare('rare'), META);
          const stores = service();
          const { mode, hits } = await stores.searchWithMode('conf', { collection: 'modes', query: 'quokka', k: 3, mode: 'text' });
          assert.equal(mode, 'text');
          assert.equal(hits[0]!.document, 'rare');
          assert.equal(hits[0]!.text, 'The quokka smiles.');
          // a question: any of its words matches (not all of them), the rarer the word the more it counts
          const asked = await stores.search('conf', { collection: 'modes', query: "Where's the quokka's smile?", k: 3, mode: 'text' });
          assert.equal(asked[0]?.text, 'The quokka smiles.', JSON.stringify(asked));
          // 'install' is in the index text of the code chunk only, never in a span
          const found = await stores.search('conf', { collection: 'modes', query: 'install', k: 3, mode: 'text' });
          assert.equal(found[0]?.text, ' Some code here.', JSON.stringify(found));
          assert.equal(found[0]!.document, 'rare');
          assert.ok(!('index_text' in found[0]!), 'a hit carries its span, not the index text');
        });
      }

      if (caps.text && caps.vector) {
        test("hybrid: the text and vector lists fused by the collection's model's rule; without a mode, that model's default", async () => {
          await impl.write('hybrid', 'doc-1', rows('doc-1'), META);
          const stores = service();
          // words point to the code chunk, the vector to the river chunk: fused, the code chunk (in both lists) leads
          const q = { collection: 'hybrid', query: 'code', embedding: vector('river'), k: 3 };
          const { mode, hits } = await stores.searchWithMode('conf', { ...q, mode: 'hybrid' });
          assert.equal(mode, 'hybrid');
          const text = await impl.search('hybrid', { text: q.query, k: 100 });
          const vec = await impl.search('hybrid', { embedding: q.embedding, k: 100 });
          assert.notEqual(text[0]!.id, vec[0]!.id, 'the two lists disagree on the first hit');
          const fused = fuse(text, vec, fusionFor(META.model), 3);
          assert.deepEqual(
            hits.map((h) => [h.id, h.score]),
            fused.map((f) => [f.id, f.score]),
          );
          assert.deepEqual(
            hits.slice(0, 2).map((h) => h.text),
            [' Some code here.', ' The river is wide.'],
          );
          // a model with no measured mode: hybrid (kernel/search-mode.ts DEFAULT_MODE)
          assert.equal((await stores.searchWithMode('conf', q)).mode, 'hybrid');
          // an embedding alone: vector
          assert.equal((await stores.searchWithMode('conf', { collection: 'hybrid', embedding: q.embedding, k: 3 })).mode, 'vector');
        });
      }
    });

    test('a connection opened again with the same config reads what the last one wrote, model and dimension included', async () => {
      await impl.write('shared', 'doc-1', rows('doc-1'), META);
      // Closed first: some engines (PGlite's socket server) take one client at a time.
      await impl.close();
      impl = await plugin.connect(engine.config);
      const info = (await impl.collections()).find((c) => c.name === 'shared');
      assert.deepEqual(info, { name: 'shared', count: rows('doc-1').length, model: META.model, dimension: DIM });
    });
  });
}
