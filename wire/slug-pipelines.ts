import Type from '#typebox';
import { Description, Pipeline, STEP_COUNT } from './pipelines.js';
import { SLUG_PATTERN, SLUG_RULE } from './slug.js';

/**
 * Wire shapes of the slug-based pipeline API (/v1/pipeline, singular), as Chonkie's cloud clients
 * send and read them. The pipelines are the very ones of /v1/pipelines: a slug is a stored name.
 */

export const FlatStep = Type.Object(
  {
    type: Type.Union([Type.Literal('process'), Type.Literal('chunk'), Type.Literal('refine'), Type.Literal('write')], {
      description:
        "'process' runs a chef on the text (at most one, before the chunk step); 'chunk' runs a chunker on the text; 'refine' runs a refinery on the chunks so far; " +
        "'write' (last) writes the chunks to the collection `table_name` (or `collection_name`) of the server's first store connection of the handshake `component`.",
    }),
    component: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'The chef of a process step, the chunker of a chunk step, the refinery of a refine step, the handshake of a write step (GET /v1/plugins lists them).',
      examples: ['recursive'],
    }),
  },
  {
    additionalProperties: true,
    description:
      "A step as Chonkie's clients send it: the component's parameters sit beside type and component (not under config). They are checked against the component's schema, " +
      'stored with the defaults filled in, and shown so (every parameter, given or default).',
  },
);

const Slug = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: SLUG_PATTERN,
  description: `The pipeline's name (its name in /v1/pipelines): ${SLUG_RULE}.`,
  examples: ['docs-512'],
});
const FlatSteps = Type.Array(FlatStep, {
  ...STEP_COUNT,
  description: 'At most one process step, then one chunk step, then any refine steps, then at most one write step, run in this order.',
});
const EXAMPLE_STEPS = [{ type: 'chunk', component: 'recursive', chunk_size: 512 }];

export const SlugPipelineCreate = Type.Object(
  { slug: Slug, description: Type.Optional(Description({ default: null })), steps: FlatSteps },
  { additionalProperties: true, examples: [{ slug: 'docs-512', description: 'Recursive chunks of 512 tokens.', steps: EXAMPLE_STEPS }] },
);

export const SlugPipelineUpdate = Type.Object(
  { slug: Type.Optional(Slug), description: Type.Optional(Description()), steps: Type.Optional(FlatSteps) },
  {
    additionalProperties: true,
    description: 'Any of description and steps (and slug, to rename it); the others stay as they are.',
    examples: [{ description: 'Now with smaller chunks.' }],
  },
);

const { id, created_at, updated_at } = Pipeline.properties;
export const SlugPipeline = Type.Object({ id, slug: Slug, description: Description(), steps: Type.Array(FlatStep), created_at, updated_at });

/** Most pipelines on one page of the slug list: clients read one page only, so it is large; the byte bound of /v1/pipelines still holds. */
export const SLUG_PAGE_MAX = 1000;

export const SlugPipelineListQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: SLUG_PAGE_MAX, default: SLUG_PAGE_MAX, description: `Most pipelines on this page (1–${SLUG_PAGE_MAX}).` }),
  ),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Where this page starts: the `next` of the previous page. Without it, the newest pipelines.' }),
  ),
});

export const SlugPipelineList = Type.Object({
  pipelines: Type.Array(SlugPipeline, {
    description: 'Newest first. Pipelines whose names are not slugs (made through /v1/pipelines) are left out: the clients refuse them.',
  }),
  next: Type.Union([Type.String(), Type.Null()], { description: 'The cursor of the next page (GET /v1/pipeline?cursor=…), or null on the last page.' }),
});

/** Documents the body; the route reads it itself, so that invalid steps are its 200 answer, never a 422. */
export const StepsValidate = Type.Object({ steps: FlatSteps }, { additionalProperties: true, examples: [{ steps: EXAMPLE_STEPS }] });

export const StepsValidation = Type.Object({
  valid: Type.Boolean(),
  message: Type.String({ description: 'One line for people.' }),
  errors: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Each problem, naming its step and field; null when valid.' }),
  steps: Type.Optional(Type.Array(FlatStep, { description: 'When valid: the steps as they would be stored, defaults filled in.' })),
});
