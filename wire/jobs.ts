import { UserMetadata } from './metadata.js';
import Type from '#typebox';
import { OffsetUnitField } from '../kernel/fields.js';
import { MAX_DOCUMENT_ID_LENGTH } from '../kernel/handshake.js';
import { PipelineStep } from './pipelines.js';

/** Wire shapes of the jobs routes. */

export const JobDocumentInput = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        maxLength: MAX_DOCUMENT_ID_LENGTH,
        description: "The client's id for the document, echoed as document_id on its result; default: its index.",
      }),
    ),
    text: Type.Optional(Type.String({ description: 'The text to chunk; or `file`.' })),
    file: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          "An uploaded file instead of `text`, by the name POST /v1/files answered: its extracted text (and its name, as metadata.name) is read when the job is submitted, under the jobs' quota.",
        examples: ['file_0123456789abcdef0123456789abcdef'],
      }),
    ),
    metadata: Type.Optional(UserMetadata),
  },
  { additionalProperties: true },
);

const header = {
  pipeline_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: "A stored pipeline's id (GET /v1/pipelines); its steps as they are now run the whole job." }),
  ),
  steps: Type.Optional(
    Type.Array(PipelineStep, {
      minItems: 1,
      maxItems: 100,
      description: 'Inline steps instead of pipeline_id, validated exactly as a pipeline create validates them.',
    }),
  ),
  offset_unit: OffsetUnitField,
};

/** The first line of an NDJSON job body: everything but the documents, which follow one per line. */
export const JobHeader = Type.Object(header, { additionalProperties: true, examples: [{ pipeline_id: '0b6f…' }] });

/** A line of an NDJSON job body: the header first, then one document per line. */
export const JobNdjsonLine = Type.Union([JobHeader, JobDocumentInput], {
  description: 'The first line is the header (pipeline_id or steps, offset_unit); each later line is one document.',
});

export const JobCreate = Type.Object(
  {
    ...header,
    documents: Type.Array(JobDocumentInput, { description: 'The documents, in order; results come back in this order. At most --max-job-documents.' }),
  },
  {
    additionalProperties: true,
    required: ['documents'],
    examples: [
      {
        steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 512 } }],
        documents: [
          { id: 'a', text: 'First document.' },
          { id: 'b', text: 'Second document.' },
        ],
      },
    ],
  },
);

export const JobStatusValue = Type.Union(
  ['queued', 'running', 'done', 'failed', 'cancelled'].map((s) => Type.Literal(s)),
  {
    description: 'queued → running → done (every document has a result; failures listed) or failed (every document failed); cancelled by DELETE.',
  },
);

export const JobAccepted = Type.Object({ id: Type.String({ format: 'uuid' }), status: JobStatusValue });

export const JobStatusBody = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: JobStatusValue,
  pipeline_id: Type.Union([Type.String(), Type.Null()]),
  documents: Type.Object({
    total: Type.Integer(),
    done: Type.Integer({ description: 'Documents chunked.' }),
    failed: Type.Integer({ description: 'Documents that failed (their reasons in failures and in the results).' }),
  }),
  failures: Type.Array(
    Type.Object({ index: Type.Integer(), document_id: Type.String(), error: Type.Object({ code: Type.String(), detail: Type.Unknown() }) }),
    { description: 'The first failures by index (at most 20); each failed document also has an error line in the results.' },
  ),
  created_at: Type.String({ format: 'date-time' }),
  started_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the job and its results are deleted (--job-result-ttl-s after it finished).',
  }),
});

/** Most result lines in one answer: a client pages on with `after`. */
export const RESULTS_PAGE_MAX = 10_000;

/** The largest `after`: a document index is a 32-bit integer in the store, and the largest index is 2^31 - 1. */
export const AFTER_MAX = 2 ** 31 - 2;

export const JobResultsQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({
      minimum: -1,
      maximum: AFTER_MAX,
      default: -1,
      description: 'Send the lines after this document index (the index of the last line received); -1 (default): from the start.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: RESULTS_PAGE_MAX, default: RESULTS_PAGE_MAX, description: `Most lines in this answer (1–${RESULTS_PAGE_MAX}).` }),
  ),
});
