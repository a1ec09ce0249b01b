import Type from '#typebox';
import { orderChunk, type Chunk } from '../../kernel/chunk.js';
import { CHUNKER_REQUEST_FIELDS } from '../../kernel/body-schema.js';
import { bodyCheck, type ExecuteBody } from '../../wire/body-check.js';
import { DocumentField } from '../../wire/pipelines.js';

/**
 * A slug pipeline run (POST /v1/pipeline/{slug}) as Chonkie's Python client reads it: its
 * `Pipeline.run` turns every item of `chunks` into one Chunk, so a list of texts answers one flat
 * list, in input order, each chunk's `metadata.document` the index of its text. One list per text,
 * as /v1/pipelines/{id}/execute answers, is there for whoever asks with `nested: true`.
 */
export const SlugRunRequest = Type.Object(
  {
    ...CHUNKER_REQUEST_FIELDS,
    document: DocumentField,
    nested: Type.Boolean({
      default: false,
      description:
        'For a list of texts: false (the default, what Chonkie\'s Python client reads) answers one flat list in input order, each chunk\'s metadata.document the index of its text (texts only with return_type "texts"); true answers one list per text. A single text answers its list either way.',
    }),
  },
  { required: ['text'], additionalProperties: true, examples: [{ text: ['First text. Its second sentence.', 'Second text.'] }] },
);

export type SlugRunBody = ExecuteBody & { nested: boolean };
export const checkSlugRun = bodyCheck<SlugRunBody>(SlugRunRequest);

/** Whether a run's answer is flattened: a list of texts, unless the client asked for one list per text. */
export const flattens = (body: Pick<SlugRunBody, 'text' | 'nested'>): boolean => Array.isArray(body.text) && !body.nested;

/**
 * Lists of chunks (one per text, the first being text `from`) as one list in order, each chunk
 * marked with its text's index in `metadata.document`; lists of texts (return_type "texts") as one
 * list of texts.
 */
export function flatRun(lists: readonly (Chunk[] | string[])[], from = 0): (Chunk | string)[] {
  return lists.flatMap((list, i) =>
    (list as (Chunk | string)[]).map((c) => (typeof c === 'string' ? c : orderChunk({ ...c, metadata: { ...c.metadata, document: from + i } }))),
  );
}
