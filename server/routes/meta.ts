import Type from 'typebox';
import { isInstalled } from '../../kernel/extras.js';
import { Extra } from '../../kernel/plugin.js';
import type { Logger } from '../logger.js';
import type { RouteModule } from '../route.js';
import { JOB_STORE } from '../jobs/service.js';
import type { JobStore } from '../jobs/store.js';
import { PIPELINE_STORE } from '../storage/service.js';
import type { PipelineStore } from '../storage/store.js';
import { ChunkdError } from '../../kernel/errors.js';
import { errorResponses } from '../schemas.js';

/** A readiness probe waits no longer than this for the database (probes have short timeouts of their own). */
export const READY_TIMEOUT_MS = 3_000;

/** Resolves when `ping` does; a ChunkdError UNAVAILABLE naming `what` when it fails, or not in time. */
async function answers(what: string, ping: () => Promise<void>, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ChunkdError('UNAVAILABLE', `The ${what} did not answer within ${READY_TIMEOUT_MS} ms: retry in a moment.`, { 'Retry-After': '5' })), READY_TIMEOUT_MS);
  });
  try {
    await Promise.race([ping(), late]);
  } catch (e) {
    if (e instanceof ChunkdError) throw e;
    logger.log('warning', 'readiness check failed', { error: String((e as Error)?.stack ?? e) });
    throw new ChunkdError('UNAVAILABLE', `The ${what} cannot answer: retry in a moment. The server log has the details.`, { 'Retry-After': '5' });
  } finally {
    clearTimeout(timer);
  }
}

const PluginInfo = Type.Object({
  name: Type.String(),
  kind: Type.String(),
  route: Type.String(),
  summary: Type.String(),
  config: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of the config fields, with defaults.' }),
  extras: Type.Array(Type.Intersect([Extra, Type.Object({ installed: Type.Boolean() })])),
  available: Type.Boolean(),
  missing: Type.Array(Type.String(), { description: 'Packages to install for the plugin to work.' }),
  reads: Type.Optional(
    Type.Object(
      { extensions: Type.Array(Type.String()), media_types: Type.Array(Type.String()), bytes_only: Type.Boolean({ description: 'It reads files only (a text is a 422).' }) },
      { description: 'Chefs only: the files an upload is routed to it by.' },
    ),
  ),
});

const AuthStatus = Type.Object({
  message: Type.String(),
  status: Type.Literal(200, { description: "Chonkie's TypeScript client reads the key as valid when this is 200." }),
});

export const metaRoutes: RouteModule = ({ registry, settings, services, logger }) => [
  {
    method: 'get',
    path: '/health',
    summary: 'Liveness: answers while the server runs.',
    tag: 'meta',
    public: true,
    responses: { 200: { description: 'Healthy.', schema: Type.Object({ status: Type.Literal('ok') }) } },
    handler(ctx) {
      ctx.body = { status: 'ok' };
    },
  },
  {
    // Not public: it answers 200 only past the auth layer, which is what makes it a key check.
    method: 'get',
    path: '/v1/auth/validate',
    summary: 'Checks the API key (Chonkie clients call it): 200 when the key is accepted or the server needs none, 401 otherwise.',
    tag: 'meta',
    responses: { 200: { description: 'The key is accepted.', schema: AuthStatus }, ...errorResponses('UNAUTHORIZED') },
    handler(ctx) {
      ctx.body = { message: settings.apiKeys.length ? 'The API key is valid.' : 'This server needs no API key: every key is accepted.', status: 200 };
    },
  },
  {
    method: 'get',
    path: '/ready',
    summary: 'Readiness: 200 when the pipelines database and the job queue answer, 503 with the reason when one does not.',
    description: 'For load balancers and Kubernetes readiness probes: a replica whose database is unreachable is taken out of rotation, while /health (liveness) keeps it alive.',
    tag: 'meta',
    public: true,
    responses: { 200: { description: 'Ready.', schema: Type.Object({ status: Type.Literal('ready') }) }, ...errorResponses('UNAVAILABLE') },
    async handler(ctx) {
      const pipelines = services[PIPELINE_STORE] as PipelineStore;
      const jobs = services[JOB_STORE] as JobStore | undefined;
      await Promise.all([answers('pipelines database', () => pipelines.ping(), logger), jobs && answers('job queue', () => jobs.ping(), logger)]);
      ctx.body = { status: 'ready' };
    },
  },
  {
    method: 'get',
    path: '/v1/plugins',
    summary: 'Every plugin: kind, summary, config schema, extras, and whether it is available.',
    tag: 'meta',
    responses: { 200: { description: 'The plugins.', schema: Type.Array(PluginInfo) } },
    handler(ctx) {
      ctx.body = registry.list().map((p) => {
        const missing = p.missing;
        const reads = p.kind === 'chef' ? { reads: { extensions: p.manifest.extensions ?? [], media_types: p.manifest.mediaTypes ?? [], bytes_only: p.manifest.bytesOnly === true } } : {};
        return { name: p.name, kind: p.kind, route: p.route, summary: p.manifest.summary, config: p.manifest.config, extras: p.manifest.extras.map((e) => ({ ...e, installed: e.packages.every(isInstalled) })), available: missing.length === 0, missing, ...reads };
      });
    },
  },
];
