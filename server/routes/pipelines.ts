import Type from '#typebox';
import { ChunkdError } from '../../kernel/errors.js';
import { bodyCheck } from '../../wire/body-check.js';
import { listPage } from '../../service/pipelines/page.js';
import { Pipeline, PipelineCreate, PipelineExecute, PipelineListQuery, PipelineUpdate } from '../../wire/pipelines.js';
import { readPipeline, type PipelineWriter } from '../../service/pipelines/read.js';
import { bodyReader } from '../ignored-keys.js';
import { requestSignal } from '../middleware/deadline.js';
import { validateSteps, type Step } from '../../service/pipelines/steps.js';
import { answerPipelineRun } from '../pipeline-run.js';
import { queryReader } from '../query.js';
import { type StoresService } from '../../service/stores/service.js';
import type { RouteDef, RouteModule } from '../route.js';
import { BODY_ERRORS, ChunkResult, errorResponses } from '../../wire/responses.js';
import { type PipelinePatch, type PipelineRecord, type PipelineStore } from '../../service/storage/store.js';
import { firstChunkerAnswer } from '../openapi-examples.js';
import { NDJSON_NOTE, NdjsonLine, wantsNdjson } from '../stream/ndjson.js';
import { createPipeline, updatePipeline } from '../../service/pipelines/write.js';

const readCreate = bodyReader(bodyCheck<{ name: string; description: string | null; steps: Step[] }>(PipelineCreate));
const readUpdate = bodyReader(bodyCheck<{ name?: string; description?: string | null; steps?: Step[] }>(PipelineUpdate));
const readListQuery = queryReader<{ limit: number; cursor?: string }>(PipelineListQuery);

/**
 * The largest create or update body read, in bytes: parsed on the event loop, so kept far below
 * --max-body-bytes (a pipeline is a few steps of config; chunk routes take the large bodies). It is
 * a multiple of the stored-size cap, leaving room for whitespace and for defaults not yet filled in.
 */
export const PIPELINE_BODY_FACTOR = 4;

/** Stored pipelines: CRUD with the steps validated on every write, and execute. */
export const pipelineRoutes: RouteModule = (deps) => {
  const store = () => deps.services.pipelines;
  const writeDeps = () => ({ store: store(), maxPipelineBytes: deps.settings.maxPipelineBytes });
  const pipelineBodyLimit = PIPELINE_BODY_FACTOR * deps.settings.maxPipelineBytes;
  const writer: PipelineWriter<Step[]> = { nameKey: 'name', checkSteps: (steps) => validateSteps(deps.registry, steps, undefined, deps.services.stores) };

  /** 404 for any id that is not a pipeline's, malformed or not; a pipeline's name given as the id gets a hint. */
  async function found(id: string): Promise<PipelineRecord> {
    const pipeline = await store().get(id);
    if (pipeline) return pipeline;
    const named = await store().getByName(id);
    const hint = named ? ` '${id}' is a pipeline's name; its id is ${named.id}.` : ' GET /v1/pipelines lists them.';
    throw new ChunkdError('NOT_FOUND', `Pipeline '${id}' not found.${hint}`);
  }

  const one = { 200: { description: 'The pipeline.', schema: Pipeline } };
  const route = (r: Omit<RouteDef, 'tag'>): RouteDef => ({ ...r, tag: 'pipelines' });
  return [
    route({
      method: 'post',
      path: '/v1/pipelines',
      summary: 'Create a pipeline (a name, a chunk step, any refine steps), checked before it is stored.',
      body: PipelineCreate,
      bodyName: 'PipelineCreate',
      maxBodyBytes: pipelineBodyLimit,
      responses: {
        201: { description: 'Created.', schema: Pipeline },
        ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'CONFLICT', ...BODY_ERRORS, 'TIMEOUT', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        const { name, description, steps } = await readPipeline(ctx.request.body, readCreate(ctx), writer);
        ctx.body = await createPipeline(writeDeps(), { name, description, steps: steps! }, requestSignal(ctx));
        ctx.status = 201;
      },
    }),
    route({
      method: 'get',
      path: '/v1/pipelines',
      summary: 'The pipelines, newest first, a page at a time.',
      description:
        'The body is a bare list, as Chonkie’s clients expect; paging is in headers. A page holds at most `limit` pipelines (also without the parameter), ' +
        'X-Total-Count says how many are stored, and when more follow, Link names the next page (rel="next"), whose cursor keeps its place while pipelines are added.',
      query: PipelineListQuery,
      responses: {
        200: {
          description: 'One page of pipelines.',
          schema: Type.Array(Pipeline),
          headers: {
            'X-Total-Count': { description: 'How many pipelines are stored.', schema: Type.Integer({ minimum: 0 }) },
            Link: { description: 'When more pipelines follow: `</v1/pipelines?limit=N&cursor=C>; rel="next"`.', schema: Type.String() },
          },
        },
        ...errorResponses('UNAUTHORIZED', 'VALIDATION', 'UNAVAILABLE'),
      },
      async handler(ctx) {
        const query = readListQuery(ctx);
        const page = await listPage(store(), query, deps.settings.maxPipelineBytes, 'follow the Link header (rel="next")');
        ctx.set('X-Total-Count', String(await store().count()));
        if (page.next) ctx.set('Link', `</v1/pipelines?limit=${query.limit}&cursor=${page.next}>; rel="next"`);
        ctx.body = page.pipelines;
      },
    }),
    route({
      method: 'get',
      path: '/v1/pipelines/:id',
      summary: 'One pipeline.',
      responses: { ...one, ...errorResponses('UNAUTHORIZED', 'NOT_FOUND', 'UNAVAILABLE') },
      async handler(ctx) {
        ctx.body = await found(ctx.params.id!);
      },
    }),
    route({
      method: 'put',
      path: '/v1/pipelines/:id',
      summary: 'Update any of name, description and steps (validated like a create).',
      body: PipelineUpdate,
      bodyName: 'PipelineUpdate',
      maxBodyBytes: pipelineBodyLimit,
      responses: { ...one, ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', ...BODY_ERRORS, 'TIMEOUT', 'UNAVAILABLE') },
      async handler(ctx) {
        const stored = await found(ctx.params.id!);
        const { id } = stored;
        const body = await readPipeline(ctx.request.body, readUpdate(ctx), writer);
        const changes: Omit<PipelinePatch, 'updated_at'> = {};
        if (body.name !== undefined) changes.name = body.name;
        if (body.description !== undefined) changes.description = body.description;
        if (body.steps !== undefined) changes.steps = body.steps;
        // Deleted meanwhile: found() answers the 404.
        ctx.body = (await updatePipeline(writeDeps(), stored, changes, 'name, description and steps', requestSignal(ctx))) ?? (await found(id));
      },
    }),
    route({
      method: 'delete',
      path: '/v1/pipelines/:id',
      summary: 'Delete a pipeline.',
      responses: { 204: { description: 'Deleted; no body.' }, ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'UNAVAILABLE') },
      async handler(ctx) {
        const { id } = ctx.params;
        if (!(await store().delete(id!))) await found(id!); // throws the 404, with a hint when the id is a name
        ctx.status = 204;
      },
    }),
    route({
      method: 'post',
      path: '/v1/pipelines/:id/execute',
      summary: "Run a pipeline's steps on a text (→ chunks) or a list of texts (→ one list of chunks per text).",
      body: PipelineExecute,
      bodyName: 'PipelineExecuteRequest',
      responses: {
        200: { description: `The chunks.${NDJSON_NOTE}`, schema: ChunkResult, ndjson: NdjsonLine, example: () => firstChunkerAnswer(deps.registry) },
        ...errorResponses(
          'BAD_REQUEST',
          'UNAUTHORIZED',
          'FORBIDDEN',
          'NOT_FOUND',
          ...BODY_ERRORS,
          'MISSING_EXTRA',
          'NOT_CONFIGURED',
          'UPSTREAM',
          'TIMEOUT',
          'UNAVAILABLE',
        ),
      },
      rawBody: true,
      documentInput: true,
      async handler(ctx) {
        await answerPipelineRun(ctx, deps, () => found(ctx.params.id!), { ndjson: wantsNdjson(ctx) });
      },
    }),
  ];
};
