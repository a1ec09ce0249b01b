/** An evaluation's compact rows: what goes in (texts, contexts, offsets, vectors) comes out as the store's chunks, row for row. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { documentChunks, evalRows, rowBytes, rowCount } from '../service/evaluation/eval-rows.js';

const documents = [{ id: 'a' }, { id: 'b' }];
const chunks = [
  { range: { doc: 'a', start: 0, end: 5 }, own: [0, 5] as [number, number], text: '東京タワー', context: '# 見出し' },
  { range: { doc: 'b', start: 0, end: 3 }, own: [0, 3] as [number, number], text: 'x😀y' },
  { range: { doc: 'a', start: 5, end: 7 }, own: [5, 7] as [number, number], text: '\r\n', context: '' },
  { range: { doc: 'a', start: 7, end: 7 }, own: [7, 7] as [number, number], text: '' },
  { range: { doc: 'b', start: 3, end: 6 }, own: [3, 6] as [number, number], text: 'x😀y', context: 'before 😀' },
];
const vectors = chunks.map((_, i) => [i, i + 0.5]);

test('every row comes back as its own chunk: text, context, offsets, row index and vector', async () => {
  const rows = evalRows(chunks, (id) => documents.findIndex((d) => d.id === id), vectors);
  assert.equal(rowCount(rows), chunks.length);
  const out: { document: string; text: string; context?: string; start: number; end: number; row: unknown; vector: number[] }[] = [];
  for await (const doc of documentChunks(rows, documents)) {
    for (const c of doc.chunks) {
      out.push({
        document: doc.document,
        text: c.text,
        ...(c.context !== undefined ? { context: c.context } : {}),
        start: c.start_index,
        end: c.end_index,
        row: c.metadata?.eval_row,
        vector: Array.from(c.embedding!),
      });
    }
  }
  const expected = [0, 2, 3, 1, 4].map((i) => {
    const c = chunks[i]!;
    return {
      document: c.range.doc,
      text: c.text,
      ...(c.context ? { context: c.context } : {}), // an empty context is none
      start: c.own[0],
      end: c.own[1],
      row: i,
      vector: vectors[i]!,
    };
  });
  assert.deepEqual(out, expected);
});

test('the rows are counted at their UTF-8 bytes, as the cap on a candidate reads them', () => {
  const rows = evalRows(chunks, (id) => documents.findIndex((d) => d.id === id), vectors);
  const strings = chunks.reduce((n, c) => n + Buffer.byteLength(c.text) + Buffer.byteLength(c.context ?? ''), 0);
  assert.equal(rowBytes(rows), rows.spans.byteLength + rows.vectors.byteLength + strings);
});
