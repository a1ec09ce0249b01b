/** A LanceDB connection's config, and where its rows are kept. */
import Type from '#typebox';

export const LanceDbConfig = Type.Object({
  path: Type.String({
    minLength: 1,
    description: 'Directory of the database (created on first write), or an object-store URI (s3://, gs://, az://) that every replica reaches.',
  }),
  vector_index_rows: Type.Integer({
    minimum: 0,
    default: 50_000,
    description:
      'Rows past which a collection gets an approximate vector index (IVF-PQ), built when its writes settle; below it, and at 0, vector search is exact.',
  }),
  exact_text_rows: Type.Integer({
    minimum: 0,
    default: 10_000,
    description:
      "Rows up to which a text search counts a word the query repeats as often as the query holds it, ranking as chunkd eval's bm25; past them, and at 0, a repeated word counts once, which keeps the full-text index's pruning of common words fast.",
  }),
  settle_ms: Type.Integer({
    minimum: 0,
    default: 2000,
    description:
      "Quiet time after a collection's last write before its upkeep runs: compaction, new rows folded into the full-text and vector indexes, the vector index built past vector_index_rows.",
  }),
});

/** A path with a scheme is object storage, reachable from any replica; anything else is this machine's disk. */
const OBJECT_STORE = /^[a-z][a-z0-9+.-]*:\/\//i;
export const isLocal = ({ path }: { path: string }): boolean => !OBJECT_STORE.test(path);
