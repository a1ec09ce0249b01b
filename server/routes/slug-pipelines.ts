import type { Context } from 'koa';
import Type from '#typebox';
import { ChunkdError, isChunkdError, type Issue } from '../../kernel/errors.js';
import type { Registry } from '../../kernel/registry.js';
import { readObjectBody } from '../../kernel/request.js';
import { compileValidator } from '../../kernel/validation.js';
import { bodyReader, setIgnoredKeys } from '../ignored-keys.js';
import { bodyCheck } from '../../wire/body-check.js';
import { checkFlatSteps, explainIssues, issueLine, toFlat, type Flat } from '../../service/pipelines/flat-steps.js';
import { readPipeline, type PipelineWriter } from '../../service/pipelines/read.js';
import { requestSignal } from '../middleware/deadline.js';
import { listPage } from '../../service/pipelines/page.js';
import { isSlug, slugPathProblem } from '../../wire/slug.js';
import { SlugRunRequest } from '../../service/pipelines/slug-run.js';
import { type StoresService } from '../../service/stores/service.js';
import {
  SlugPipeline,
  SlugPipelineCreate,
  SlugPipelineList,
  SlugPipelineListQuery,
  SlugPipelineUpdate,
  StepsValidate,
  StepsValidation,
} from '../../wire/slug-pipelines.js';
import { answerPipelineRun } from '../pipeline-run.js';
import { queryReader } from '../query.js';
import type { RouteDef, RouteModule } from '../route.js';
import { BODY_ERRORS, ChunkResult, errorResponses } from '../../wire/responses.js';
import { type PipelinePatch, type PipelineRecord, type PipelineStore } from '../../service/storage/store.js';
import { PIPELINE_BODY_FACTOR } from './pipelines.js';
import { createPipeline, updatePipeline } from '../../service/pipelines/write.js';

type CreateBody = { slug: string; description: string | null; steps: Flat[] };
type UpdateBody = { slug?: string; description?: string | null; steps?: Flat[] };

const readCreate = bodyReader(bodyCheck<CreateBody>(SlugPipelineCreate));
const readUpdate = bodyReader(bodyCheck<UpdateBody>(SlugPipelineUpdate));
const readListQuery = queryReader<{ limit: number; cursor?: string }>(SlugPipelineListQuery);
const checkStepsShape = compileValidator<{ steps: Flat[] }>(StepsValidate);
const PipelineRun = Type.Object({ chunks: ChunkResult });
const VALIDATE_KEYS = new Set(Object.keys(StepsValidate.properties));
const VALIDATE_EXAMPLE = '{"steps": [{"type": "chunk", "component": "recursive", "chunk_size": 512}]}';

/** A stored pipeline as the slug API shows it. */
const shownWith = (registry: Registry, stores: StoresService | undefined) => (p: PipelineRecord) => ({
  id: p.id,
  slug: p.name,
  description: p.description,
  steps: p.steps.map((s) => toFlat(s, registry, stores)),
  created_at: p.created_at,
  updated_at: p.updated_at,
});

/** A 422 of the slug API: each problem names its step (service/pipelines/flat-steps.ts). */
async function explained<T>(ctx: Context, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (isChunkdError(e) && e.code === 'VALIDATION' && Array.isArray(e.detail))
      throw new ChunkdError('VALIDATION', explainIssues(e.detail, ctx.request.body), e.headers);
    throw e;
  }
}

/** The store's 409 speaks of names; here the client gave a slug. */
async function slugConflict<T>(slug: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (isChunkdError(e) && e.code === 'CONFLICT') {
      throw new ChunkdError(
        'CONFLICT',
        `A pipeline with the slug '${slug}' already exists: choose another slug, or update that one (PUT /v1/pipeline/${slug}).`,
      );
    }
    throw e;
  }
}

/**
 * Chonkie's cloud pipeline API (slug-based, `/v1/pipeline`), on the store and the checks of
 * /v1/pipelines: a slug is a stored pipeline's name, steps are converted to and from the stored
 * shape in one place (service/pipelines/flat-steps.ts), and a run goes through the document runner
 * (pooled for large bodies) as /v1/pipelines/{id}/execute does.
 */
export const slugPipelineRoutes: RouteModule = (deps) => {
  const store = () => deps.services.pipelines;
  const writeDeps = () => ({ store: store(), maxPipelineBytes: deps.settings.maxPipelineBytes });
  const stores = () => deps.services.stores;
  const shown = (p: PipelineRecord) => shownWith(deps.registry, stores())(p);
  const writer: PipelineWriter<Flat[]> = { nameKey: 'slug', checkSteps: (steps) => checkFlatSteps(deps.registry, steps, undefined, stores()) };
  const pipelineBodyLimit = PIPELINE_BODY_FACTOR * deps.settings.maxPipelineBytes;

  /**
   * The pipeline the path's slug names; unknown, or not a slug as spelled (encoded, reserved,
   * other characters), a 404 that says why, with the id to use when a pipeline has that name.
   */
  async function bySlug(ctx: Context): Promise<PipelineRecord> {
    const slug = ctx.params.slug!;
    const problem = slugPathProblem(ctx.path.split('/')[3] ?? '', slug);
    const pipeline = await store().getByName(slug);
    if (problem) {
      const hint = pipeline ? ` A pipeline has this name (made through /v1/pipelines): reach it by id, /v1/pipelines/${pipeline.id}.` : '';
      throw new ChunkdError('NOT_FOUND', `Pipeline not found: ${problem}${hint}`);
    }
    if (!pipeline) throw new ChunkdError('NOT_FOUND', `Pipeline '${slug}' not found: GET /v1/pipeline lists them, POST /v1/pipeline creates one.`);
    return pipeline;
  }

  const one = { 200: { description: 'The pipeline, its steps flat with every parameter (defaults filled in).', schema: SlugPipeline } };
  const pathErrors = ['UNAUTHORIZED', 'NOT_FOUND', 'UNAVAILABLE'] as const;
  const route = (r: Omit<RouteDef, 'tag'>): RouteDef => ({ ...r, tag: 'pipeline (slug)' });
  return [
    route({
      method: 'post',
      path: '/v1/pipeline',
      summary: "Create a pipeline by slug, with flat steps (Chonkie's cloud API); 200, as its clients expect.",
      description:
        "Checked as POST /v1/pipelines checks; a 422 names each step's problem. A slug that is taken is a 409 (Chonkie's Python client then updates it).",
      body: SlugPipelineCreate,
      bodyName: 'SlugPipelineCreate',
      maxBodyBytes: pipelineBodyLimit,
      responses: {
        200: { description: 'Created.', schema: SlugPipeline },
        ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'CONFLICT', ...BODY_ERRORS, 'TIMEOUT', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        const { slug, description, steps } = await explained(ctx, () => readPipeline(ctx.request.body, readCreate(ctx), writer));
        ctx.body = shown(await slugConflict(slug, () => createPipeline(writeDeps(), { name: slug, description, steps: steps! }, requestSignal(ctx))));
      },
    }),
    route({
      method: 'get',
      path: '/v1/pipeline',
      summary: 'The pipelines whose names are slugs, newest first, as `{pipelines, next}`.',
      description:
        'One page holds up to `limit` pipelines (default and most: 1000), and never more bytes than a page of GET /v1/pipelines; `next` continues it (`?cursor=`). ' +
        "Pipelines whose names are not slugs are left out (Chonkie's clients refuse them): X-Chunkd-Omitted says how many on this page.",
      query: SlugPipelineListQuery,
      responses: {
        200: {
          description: 'One page of pipelines.',
          schema: SlugPipelineList,
          headers: {
            'X-Chunkd-Omitted': {
              description: 'Pipelines of this page left out because their names are not slugs, when any are.',
              schema: Type.Integer({ minimum: 1 }),
            },
          },
        },
        ...errorResponses('UNAUTHORIZED', 'VALIDATION', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        const page = await listPage(store(), readListQuery(ctx), deps.settings.maxPipelineBytes, 'pass the `next` of each page');
        const slugs = page.pipelines.filter((p) => isSlug(p.name));
        if (slugs.length < page.pipelines.length) ctx.set('X-Chunkd-Omitted', String(page.pipelines.length - slugs.length));
        ctx.body = { pipelines: slugs.map(shown), next: page.next };
      },
    }),
    route({
      method: 'post',
      path: '/v1/pipeline/validate',
      summary: 'Check steps without storing them: 200 with {valid, message, errors}, invalid steps included.',
      description:
        "The checks of a create. Invalid steps are this route's answer (valid: false, each error naming its step), never a 422; only a body that is not a JSON object is one.",
      body: StepsValidate,
      bodyName: 'StepsValidate',
      maxBodyBytes: pipelineBodyLimit,
      responses: {
        200: { description: 'Whether the steps are valid, and why not.', schema: StepsValidation },
        ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'CONFLICT', ...BODY_ERRORS, 'TIMEOUT'),
      },
      async handler(ctx) {
        const { body, ignored } = readObjectBody(ctx.request.body, VALIDATE_KEYS, VALIDATE_EXAMPLE);
        if (ignored.length) setIgnoredKeys(ctx, ignored);
        let issues: Issue[];
        try {
          const steps = await checkFlatSteps(deps.registry, checkStepsShape({ steps: body.steps }).steps, undefined, stores());
          ctx.body = { valid: true, message: 'The steps are valid.', errors: null, steps: steps.map((s) => toFlat(s, deps.registry, stores())) };
          return;
        } catch (e) {
          if (!isChunkdError(e) || e.code !== 'VALIDATION' || !Array.isArray(e.detail)) throw e;
          issues = explainIssues(e.detail, body);
        }
        const n = issues.length;
        ctx.body = { valid: false, message: `The steps are not valid: ${n} problem${n === 1 ? '' : 's'}.`, errors: issues.map(issueLine) };
      },
    }),
    route({
      method: 'get',
      path: '/v1/pipeline/:slug',
      summary: 'One pipeline, by slug.',
      responses: { ...one, ...errorResponses(...pathErrors) },
      async handler(ctx) {
        ctx.body = shown(await bySlug(ctx));
      },
    }),
    route({
      method: 'put',
      path: '/v1/pipeline/:slug',
      summary: 'Update any of description and steps (and slug, which renames it), checked as on create.',
      description: 'The body is checked before the slug is looked up, so a client that updates after a refused create is told what is wrong with its steps.',
      body: SlugPipelineUpdate,
      bodyName: 'SlugPipelineUpdate',
      maxBodyBytes: pipelineBodyLimit,
      responses: { ...one, ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', ...BODY_ERRORS, 'TIMEOUT', 'UNAVAILABLE') },
      async handler(ctx) {
        const body = await explained(ctx, () => readPipeline(ctx.request.body, readUpdate(ctx), writer));
        const stored = await bySlug(ctx);
        const changes: Omit<PipelinePatch, 'updated_at'> = {};
        if (body.slug !== undefined) changes.name = body.slug;
        if (body.description !== undefined) changes.description = body.description;
        if (body.steps !== undefined) changes.steps = body.steps;
        const updated = await slugConflict(changes.name ?? stored.name, () =>
          updatePipeline(writeDeps(), stored, changes, 'description, steps and slug', requestSignal(ctx)),
        );
        if (!updated) throw new ChunkdError('NOT_FOUND', `Pipeline '${stored.name}' was deleted meanwhile: create it again (POST /v1/pipeline).`);
        ctx.body = shown(updated);
      },
    }),
    route({
      method: 'delete',
      path: '/v1/pipeline/:slug',
      summary: 'Delete a pipeline, by slug: 200 with a message (both clients accept a 200).',
      responses: {
        200: { description: 'Deleted.', schema: Type.Object({ message: Type.String(), id: Type.String(), slug: Type.String() }) },
        ...errorResponses(...pathErrors, 'FORBIDDEN'),
      },
      async handler(ctx) {
        const { id, name } = await bySlug(ctx);
        if (!(await store().delete(id))) throw new ChunkdError('NOT_FOUND', `Pipeline '${name}' not found: it was deleted meanwhile.`);
        ctx.body = { message: `Pipeline '${name}' deleted.`, id, slug: name };
      },
    }),
    route({
      method: 'post',
      path: '/v1/pipeline/:slug',
      summary:
        "Run a pipeline, by slug: `{text}` → {chunks: [...]}; a list of texts → one flat list in input order, each chunk's metadata.document its text's index (`nested: true`: one list per text).",
      description:
        "The same run as POST /v1/pipelines/{id}/execute (same limits, offset_unit and return_type), its answer under `chunks`. For a list of texts, `chunks` is one flat list, as Chonkie's Python client reads it " +
        '(`Pipeline.run` makes one Chunk of each item, keeping `metadata`): the chunks of text 0, then of text 1, …, each with `metadata.document` set to its text\'s index. `"nested": true` answers one list per text instead.',
      body: SlugRunRequest,
      bodyName: 'SlugPipelineRunRequest',
      documentInput: true,
      responses: {
        200: { description: 'The chunks.', schema: PipelineRun },
        ...errorResponses('BAD_REQUEST', 'FORBIDDEN', ...pathErrors, ...BODY_ERRORS, 'MISSING_EXTRA', 'NOT_CONFIGURED', 'UPSTREAM', 'TIMEOUT'),
      },
      rawBody: true,
      async handler(ctx) {
        await answerPipelineRun(ctx, deps, () => bySlug(ctx), { envelope: 'chunks', ndjson: false, slug: true });
      },
    }),
  ];
};
