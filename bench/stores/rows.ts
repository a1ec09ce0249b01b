/** The corpus's chunks as the rows a handshake is given (ids as the Stores service makes them), batch by batch. */
import type pg from 'pg';
import { storeChunkId, type StoreRow } from '../../kernel/handshake.js';
import { batches, type CorpusInfo } from './corpus.js';
import { pgVector } from './measure.js';

export interface DocBatch {
  docs: { document: string; rows: StoreRow[] }[];
  rows: number;
}

/**
 * The first `limit` chunks as batches of about `size` rows, whole documents each (a document's
 * chunks are never split across two calls, as a job's batch holds whole documents).
 */
export function* docBatches(info: CorpusInfo, limit: number, size: number): Generator<DocBatch> {
  let docs: DocBatch['docs'] = [];
  let rows = 0;
  for (const part of batches(info, limit, 1000)) {
    for (const { chunk, vector } of part) {
      const last = docs.at(-1);
      if (last?.document !== chunk.document) {
        if (rows >= size) {
          yield { docs, rows };
          docs = [];
          rows = 0;
        }
        docs.push({ document: chunk.document, rows: [] });
      }
      docs.at(-1)!.rows.push({
        id: storeChunkId(chunk.document, chunk),
        document: chunk.document,
        text: chunk.text,
        start_index: chunk.start_index,
        end_index: chunk.end_index,
        token_count: chunk.token_count,
        metadata: chunk.metadata,
        embedding: vector,
      });
      rows++;
    }
  }
  if (rows) yield { docs, rows };
}

/** A row as a user of LanceDB hands it to `table.add`: plain values, the vector as an array, metadata as JSON text. */
export const lanceRecord = (r: StoreRow) => ({
  id: r.id,
  document: r.document,
  text: r.text,
  start_index: r.start_index,
  end_index: r.end_index,
  token_count: r.token_count,
  metadata: JSON.stringify(r.metadata),
  vector: Array.from(r.embedding),
});

/**
 * Rows into a pgvector table (`table` quoted) as the raw engine takes them: one INSERT … SELECT
 * unnest of the columns as arrays, without chunkd's upsert and replacement.
 */
export async function pgRawInsert(client: pg.Client, table: string, rows: StoreRow[]): Promise<void> {
  await client.query(
    `INSERT INTO ${table} (id, document, text, start_index, end_index, token_count, metadata, embedding) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::jsonb[], $8::vector[])`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.document),
      rows.map((r) => r.text),
      rows.map((r) => r.start_index),
      rows.map((r) => r.end_index),
      rows.map((r) => r.token_count),
      rows.map((r) => JSON.stringify(r.metadata)),
      rows.map((r) => pgVector(r.embedding)),
    ],
  );
}
