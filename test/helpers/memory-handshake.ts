import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A plugins directory holding `memory`, a handshake written as a user would drop one in: plain
 * JavaScript, no import from chunkd, rows kept in a Map per connection `space` (so two connections
 * of it can share rows, as two connections to one server would). Exact cosine; text search by the
 * Okapi BM25 over each row's index_text (else its text).
 */
export function memoryHandshakeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-memory-'));
  mkdirSync(join(dir, 'memory'));
  writeFileSync(
    join(dir, 'memory', 'index.mjs'),
    `export default { name: 'memory', kind: 'handshake', summary: 'Keeps chunks in memory.', extras: [],
      capabilities: { vector: true, text: true },
      config: { type: 'object', properties: {
        space: { type: 'string', minLength: 1, default: 'shared', description: 'Connections naming the same space share their rows.' },
        token: { type: 'string', default: '', secret: true, description: 'A credential this store ignores (tests check it is never shown).' } } },
      load: () => import('./impl.mjs') };`,
  );
  writeFileSync(join(dir, 'memory', 'impl.mjs'), MEMORY_IMPL);
  return dir;
}

const MEMORY_IMPL = `
const spaces = globalThis.__chunkdMemorySpaces ??= new Map();
const cosine = (a, b) => { let d = 0, x = 0, y = 0; for (let i = 0; i < a.length; i++) { d += a[i] * b[i]; x += a[i] * a[i]; y += b[i] * b[i]; } return x && y ? d / Math.sqrt(x * y) : 0; };
// The filter contract (kernel/store-filter.ts), written again as a drop-in would: no import from chunkd.
const holds = (r, filter) => (filter?.document === undefined || r.document === filter.document) &&
  Object.entries(filter?.metadata ?? {}).every(([key, c]) => (c !== null && typeof c === 'object' ? c.in : [c]).some((v) => v === r.metadata[key]));
const words = (s) => s.toLowerCase().match(/[\\p{L}\\p{N}]+/gu) ?? [];
// Okapi BM25 (k1 1.2, b 0.75, Lucene idf) over what the row's full-text index would read: index_text, else text.
const bm25 = (rows, text) => {
  const docs = rows.map((r) => words(r.index_text ?? r.text));
  const avg = docs.reduce((n, d) => n + d.length, 0) / (docs.length || 1);
  const terms = new Set(words(text));
  const df = new Map([...terms].map((t) => [t, docs.filter((d) => d.includes(t)).length]));
  return rows.map((r, i) => {
    const d = docs[i];
    let score = 0;
    for (const t of terms) {
      const tf = d.filter((w) => w === t).length;
      if (!tf) continue;
      const idf = Math.log(1 + (docs.length - df.get(t) + 0.5) / (df.get(t) + 0.5));
      score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * d.length) / avg));
    }
    return { r, score };
  });
};
export function create({ space }) {
  if (!spaces.has(space)) spaces.set(space, new Map());
  const cols = spaces.get(space);
  const write = async (collection, document, rows, meta) => {
    if (!cols.has(collection)) cols.set(collection, { model: meta.model, dimension: meta.dimension, rows: new Map() });
    const col = cols.get(collection);
    for (const [id, row] of col.rows) if (row.document === document) col.rows.delete(id);
    for (const row of rows) col.rows.set(row.id, { ...row, embedding: Array.from(row.embedding) });
  };
  return {
    async collections() { return [...cols].map(([name, c]) => ({ name, count: c.rows.size, model: c.model, dimension: c.dimension })); },
    write,
    async writeMany(collection, docs, meta) { for (const d of docs) await write(collection, d.document, d.rows, meta); },
    async delete(collection, document) {
      const col = cols.get(collection); if (!col) return 0;
      let n = 0; for (const [id, row] of col.rows) if (row.document === document) { col.rows.delete(id); n++; }
      return n;
    },
    async search(collection, q) {
      const col = cols.get(collection); if (!col) return [];
      const rows = [...col.rows.values()].filter((r) => holds(r, q.filter));
      const scored = q.embedding ? rows.map((r) => ({ r, score: cosine(q.embedding, r.embedding) })) : bm25(rows, q.text);
      return scored.filter((s) => q.embedding || s.score > 0).sort((a, b) => b.score - a.score).slice(0, q.k)
        .map(({ r, score }) => ({ id: r.id, document: r.document, text: r.text, start_index: r.start_index, end_index: r.end_index, token_count: r.token_count, metadata: { ...r.metadata, document: r.document }, score }));
    },
    async drop(collection) { cols.delete(collection); },
    async documents(collection, { after, limit }) {
      const col = cols.get(collection); if (!col) return [];
      const found = new Map();
      for (const r of col.rows.values()) {
        if (after !== undefined && r.document <= after) continue;
        const d = found.get(r.document) ?? { document: r.document, name: typeof r.metadata.name === 'string' ? r.metadata.name : null, chunks: 0 };
        d.chunks++; found.set(r.document, d);
      }
      return [...found.values()].sort((a, b) => (a.document < b.document ? -1 : a.document > b.document ? 1 : 0)).slice(0, limit);
    },
    async close() {},
  };
}
`;
