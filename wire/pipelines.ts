import { UserMetadata } from './metadata.js';
import Type from '#typebox';
import { CHUNKER_REQUEST_FIELDS } from '../kernel/body-schema.js';
import { MAX_DOCUMENT_ID_LENGTH } from '../kernel/handshake.js';

/** Wire shapes of the pipeline routes; named once in the OpenAPI document (wire/responses.ts). */

export const PipelineStep = Type.Object(
  {
    type: Type.Union([Type.Literal('process'), Type.Literal('chunk'), Type.Literal('refine'), Type.Literal('write')], {
      description:
        "'process' runs a chef on the text (at most one, before the chunk step); 'chunk' runs a chunker on the text; 'refine' runs a refinery on the chunks so far; " +
        "'write' (last) writes the chunks to a collection of one of the server's store connections, each document's replacing what it held (embedding them first when no step before does).",
    }),
    chef: Type.Optional(
      Type.String({
        description:
          'For a process step: the chef (GET /v1/plugins lists them), or "auto": each document read by the chef its type needs, as an upload is (an uploaded or ingested file by its type, a text as text).',
        examples: ['markdown', 'auto'],
      }),
    ),
    chunker: Type.Optional(Type.String({ description: 'For a chunk step: the chunker (GET /v1/plugins lists them).', examples: ['token'] })),
    refinery: Type.Optional(Type.String({ description: 'For a refine step: the refinery.' })),
    store: Type.Optional(
      Type.String({
        description: 'For a write step: one of the server’s store connections (GET /v1/stores lists them); never a URL, host, path or credential.',
        examples: ['default'],
      }),
    ),
    config: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          default: {},
          description:
            "The plugin's config fields, as its endpoint takes them. Checked against the plugin's schema when the pipeline is written, and stored with the defaults filled in. " +
            'A write step: {"collection": …} (and optionally "embedding_model", used when no step before it embeds).',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Unique name of the pipeline.', examples: ['docs-512'] });
export const Description = (options: { default?: null } = {}) =>
  Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()], { description: 'Free text for people.', ...options });
/** How many steps a pipeline has, in either API. */
export const STEP_COUNT = { minItems: 1, maxItems: 100 } as const;
const Steps = Type.Array(PipelineStep, {
  ...STEP_COUNT,
  description: 'At most one process step, then one chunk step, then any refine steps, then at most one write step, run in this order.',
});

export const PipelineCreate = Type.Object(
  { name: Name, description: Type.Optional(Description({ default: null })), steps: Steps },
  {
    additionalProperties: true,
    examples: [{ name: 'docs-512', description: 'Token windows of 512.', steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 512 } }] }],
  },
);

export const PipelineUpdate = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description()), steps: Type.Optional(Steps) },
  {
    additionalProperties: true,
    description: 'Any of name, description and steps; the others stay as they are.',
    examples: [{ description: 'Now with smaller chunks.' }],
  },
);

export const Pipeline = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Name,
  description: Description(),
  steps: Type.Array(PipelineStep),
  created_at: Type.String({ format: 'date-time', description: 'ISO 8601, UTC.' }),
  updated_at: Type.String({ format: 'date-time', description: 'ISO 8601, UTC; changes on every update.' }),
});

/** The id under which a run's documents are written by a write step. */
export const DocumentField = Type.Optional(
  Type.Union([Type.String({ minLength: 1, maxLength: MAX_DOCUMENT_ID_LENGTH }), Type.Array(Type.String({ minLength: 1, maxLength: MAX_DOCUMENT_ID_LENGTH }))], {
    description:
      "For a pipeline with a write step: the document's id in the store (a list: one per text), whose chunks a new run replaces. Without it, an uploaded file's id, else the SHA-256 of the text.",
    examples: ['doc-1'],
  }),
);

export const PipelineExecute = Type.Object(
  { ...CHUNKER_REQUEST_FIELDS, document: DocumentField, metadata: Type.Optional(UserMetadata) },
  { required: ['text'], additionalProperties: true, examples: [{ text: 'First sentence. Second sentence.' }] },
);

/** Most pipelines on one page of the list: with --max-pipeline-bytes, it bounds the size of a list answer. */
export const PAGE_MAX = 100;

export const PipelineListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: PAGE_MAX, description: `Most pipelines on this page (1–${PAGE_MAX}).` })),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Where this page starts: the cursor of the previous answer\'s Link rel="next" header. Without it, the newest pipelines.',
    }),
  ),
});
