import Type from '#typebox';
import { EMBEDDED_MODEL, OffsetUnitField } from '../kernel/fields.js';
import { PipelineStep, STEP_COUNT } from './pipelines.js';
import { CONNECTION_NAME } from './stores.js';
import { MAX_DOCUMENT_ID_LENGTH } from '../kernel/handshake.js';
import { SEARCH_MODES } from '../kernel/search-mode.js';

/** Wire shapes of POST /v1/evaluate. */

const Summary = Type.Object(
  { mean: Type.Number(), std: Type.Number({ description: 'Population standard deviation over the questions.' }) },
  { description: 'In percent.' },
);

export const EvaluateDocument = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: MAX_DOCUMENT_ID_LENGTH, description: 'How references name this document.', examples: ['handbook'] }),
    text: Type.Optional(Type.String({ description: 'The document text; or `file`.' })),
    file: Type.Optional(
      Type.String({
        description: 'An uploaded file, by the name POST /v1/files answered: its extracted text (GET /v1/files/{name}/text) is the document.',
        examples: ['file_0123456789abcdef0123456789abcdef'],
      }),
    ),
  },
  { additionalProperties: false },
);

export const EvaluateReference = Type.Object(
  {
    document: Type.String({ description: 'The id of one of the documents.' }),
    start_index: Type.Integer({ minimum: 0, description: 'Start of the evidence, in the request’s offset_unit.' }),
    end_index: Type.Integer({ minimum: 0, description: 'End (exclusive).' }),
  },
  { additionalProperties: true },
);

export const EvaluateQuestion = Type.Object(
  {
    question: Type.String({ minLength: 1 }),
    references: Type.Array(EvaluateReference, { description: 'Where the answer lies: spans of the documents.' }),
  },
  { additionalProperties: true },
);

export const EvaluateRequest = Type.Object(
  {
    documents: Type.Array(EvaluateDocument, {
      minItems: 1,
      description: 'The documents, each as text or an uploaded file. Every candidate chunks all of them into one index.',
    }),
    questions: Type.Array(EvaluateQuestion, { minItems: 1 }),
    candidates: Type.Array(Type.Union([Type.Array(PipelineStep, STEP_COUNT), Type.String({ minLength: 1, description: 'A stored pipeline’s id.' })]), {
      minItems: 1,
      description: 'What to compare: inline steps (one chunk step, then any refine steps, checked as a pipeline’s) or stored pipeline ids.',
    }),
    retriever: Type.Union(
      [
        Type.Literal('bm25'),
        Type.Literal('embeddings'),
        Type.Literal('hybrid'),
        Type.String({
          pattern: `^store:${CONNECTION_NAME.source.slice(1, -1)}(:(${SEARCH_MODES.join('|')}))?$`,
          description: 'store: and the name of one of the server’s store connections (GET /v1/stores), then optionally : and a search mode.',
          examples: ['store:default', 'store:default:hybrid'],
        }),
      ],
      {
        default: 'bm25',
        description:
          `bm25: Okapi BM25 (k1 1.2, b 0.75, Lucene idf, lowercase word tokens). embeddings: exact cosine with embedding_model, through the embeddings refinery. hybrid: both fused as a store’s hybrid search fuses them for embedding_model (kernel/fusion.ts): for the built-in model, BM25’s ranking with the vector hits after it (no vector weight held out); for other models, equal-weight reciprocal-rank fusion, 1 / (60 + rank). ` +
          'store:NAME or store:NAME:MODE: through the real index of that store connection, in the search mode MODE (text, vector or hybrid, as POST /v1/stores/{name}/search; default: the collection’s, by embedding_model: text for the built-in model, measured best held out; hybrid for others, not measured): each candidate’s chunks, embedded with embedding_model in its pool task, are written to a scratch collection of the store, each question searches it (k at most 1000), and the scratch collection is removed afterwards, also on failure or abort; each candidate then has rows for the store, labelled store:NAME:MODE with the mode that ran, and, beside them, rows for the exact retriever of that mode (text: bm25, vector: embeddings, hybrid: hybrid). A mode the store’s handshake cannot serve is a 422 naming those it can. The store must be writable from this server.',
      },
    ),
    embedding_model: Type.String({
      default: EMBEDDED_MODEL,
      description: 'Any model the embeddings refinery serves; for embeddings, hybrid and a store retriever.',
    }),
    k: Type.Union([Type.Integer(), Type.Array(Type.Integer(), { minItems: 1, maxItems: 20 })], {
      default: [5],
      description: 'Chunks retrieved per question: one k or several (each ≥ 1).',
    }),
    locate: Type.Union([Type.Literal('text'), Type.Literal('offsets')], {
      default: 'text',
      description: 'text: score a chunk where its text first occurs in its document (the benchmark’s way); offsets: at its own offsets.',
    }),
    offset_unit: OffsetUnitField,
    detail: Type.Boolean({ default: false, description: 'Add per-question scores and retrieved spans to each result.' }),
  },
  {
    additionalProperties: true,
    examples: [
      {
        documents: [{ id: 'notes', text: 'Cats sleep most of the day. Dogs like long walks. Parrots can learn words.' }],
        questions: [{ question: 'What do dogs like?', references: [{ document: 'notes', start_index: 28, end_index: 50 }] }],
        candidates: [
          [{ type: 'chunk', chunker: 'sentence', config: { chunk_size: 8, min_sentences_per_chunk: 1 } }],
          [{ type: 'chunk', chunker: 'token', config: { chunk_size: 32 } }],
        ],
        retriever: 'bm25',
        k: [1, 2],
      },
      {
        documents: [{ id: 'notes', text: 'Cats sleep most of the day. Dogs like long walks. Parrots can learn words.' }],
        questions: [{ question: 'What do dogs like?', references: [{ document: 'notes', start_index: 28, end_index: 50 }] }],
        candidates: [[{ type: 'chunk', chunker: 'sentence', config: { chunk_size: 8, min_sentences_per_chunk: 1 } }]],
        retriever: 'store:default',
        k: [1, 2],
      },
    ],
  },
);

const QuestionDetail = Type.Object({
  recall: Type.Number(),
  precision: Type.Number(),
  iou: Type.Number(),
  precision_omega: Type.Number(),
  retrieved: Type.Array(Type.Object({ document: Type.String(), start_index: Type.Integer(), end_index: Type.Integer() })),
});

export const EvaluateResult = Type.Object({
  candidate: Type.Unknown({ description: 'The candidate as sent: its steps or its pipeline id.' }),
  retriever: Type.String({ description: 'The retriever of this row: as requested, or embeddings for the exact-cosine rows beside a store’s.' }),
  k: Type.Integer(),
  recall: Summary,
  precision: Summary,
  iou: Summary,
  precision_omega: Summary,
  chunks: Type.Integer({ description: 'Chunks the candidate made of all the documents.' }),
  mean_tokens: Type.Number({ description: 'Mean token_count of those chunks.' }),
  time_ms: Type.Integer({ description: 'Wall time of the candidate: chunking, embedding, scoring.' }),
  questions: Type.Optional(Type.Array(QuestionDetail, { description: 'With detail: per question, in request order.' })),
});

export const EvaluateResponse = Type.Object({ results: Type.Array(EvaluateResult, { description: 'One per candidate and k, candidates in request order.' }) });

export const EvaluateLine = Type.Union(
  [
    Type.Object({ progress: Type.Object({ done: Type.Integer(), total: Type.Integer(), stage: Type.String(), candidate: Type.Optional(Type.Integer()) }) }),
    EvaluateResponse,
    Type.Object({ error: Type.Object({ detail: Type.Unknown(), code: Type.String(), message: Type.String() }) }),
  ],
  { description: 'Progress lines as candidates are chunked, embedded and scored; then the result (`{"results": …}`) or an `error` line.' },
);
