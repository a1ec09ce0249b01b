import Type, { type Static } from '#typebox';
import { isInstalled } from '../../kernel/extras.js';
import { Extra, KINDS, type Kind } from '../../kernel/plugin.js';
import type { Registry } from '../../kernel/registry.js';
import type { Logger } from '../../service/logger.js';
import type { RouteDef, RouteModule } from '../route.js';
import type { JobStore } from '../../service/jobs/store.js';
import type { PipelineStore } from '../../service/storage/store.js';
import { ChunkdError } from '../../kernel/errors.js';
import { errorResponses } from '../../wire/responses.js';

/** A readiness probe waits no longer than this for the database (probes have short timeouts of their own). */
export const READY_TIMEOUT_MS = 3_000;

/** Resolves when `ping` does; a ChunkdError UNAVAILABLE naming `what` when it fails, or not in time. */
async function answers(what: string, ping: () => Promise<void>, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ChunkdError('UNAVAILABLE', `The ${what} did not answer within ${READY_TIMEOUT_MS} ms: retry in a moment.`, { 'Retry-After': '5' })),
      READY_TIMEOUT_MS,
    );
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
  route: Type.Optional(Type.String({ description: 'Its POST route; a handshake has none (requests reach it through a connection, GET /v1/stores).' })),
  summary: Type.String(),
  config: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of the config fields, with defaults.' }),
  extras: Type.Array(Type.Intersect([Extra, Type.Object({ installed: Type.Boolean() })])),
  available: Type.Boolean(),
  missing: Type.Array(Type.String(), { description: 'Packages to install for the plugin to work.' }),
  reads: Type.Optional(
    Type.Object(
      {
        extensions: Type.Array(Type.String()),
        media_types: Type.Array(Type.String()),
        bytes_only: Type.Boolean({ description: 'It reads files only (a text is a 422).' }),
      },
      { description: 'Chefs only: the files an upload is routed to it by.' },
    ),
  ),
  capabilities: Type.Optional(
    Type.Object({ vector: Type.Boolean(), text: Type.Boolean() }, { description: 'Handshakes only: whether it searches by vector, by text, or both.' }),
  ),
});

const AuthStatus = Type.Object({
  message: Type.String(),
  status: Type.Literal(200, { description: "Chonkie's TypeScript client reads the key as valid when this is 200." }),
});

/** The browser pages (docs, redoc, playground), by name, from the routes that declare one. */
export const pagesOf = (routes: readonly RouteDef[]): Record<string, string> => Object.fromEntries(routes.filter((r) => r.page).map((r) => [r.page!, r.path]));

/** The key a kind's routes are listed under in GET /: its plural (chunker → chunkers, refinery → refineries). */
export const kindKey = (kind: string): string => (/[^aeiou]y$/.test(kind) ? `${kind.slice(0, -1)}ies` : `${kind}s`);

const RoutePaths = (what: string) => Type.Array(Type.String(), { description: `The route of every ${what} this server has (built in or dropped in).` });

/**
 * GET /: chunkd's own keys (name, version, docs, pages, routes) and the keys Chonkie's server
 * answers there (health, chunkers, refineries, pipelines), so that a tool discovering a server's
 * chunkers from its root finds them; every further plugin kind adds its own list, keyed by kindKey.
 */
export const RootIndex = Type.Object(
  {
    name: Type.Literal('chunkd'),
    version: Type.String(),
    docs: Type.String({ description: 'The API reference page.' }),
    pages: Type.Record(Type.String(), Type.String(), { description: 'The browser pages, by short name.' }),
    routes: Type.Array(Type.Object({ method: Type.String(), path: Type.String(), summary: Type.String() }), { description: 'Every documented route.' }),
    health: Type.String({ description: "The liveness route (Chonkie's key)." }),
    chunkers: RoutePaths('chunker'),
    refineries: RoutePaths('refinery'),
    pipelines: Type.String({ description: "The pipelines API (Chonkie's key)." }),
  },
  {
    additionalProperties: Type.Array(Type.String(), {
      description:
        'A further plugin kind, under the kind in the plural: the route of each plugin of that kind, or its name for a kind with no route of its own (handshakes: reached through the connections GET /v1/stores lists).',
    }),
  },
);

/** The answer of GET /, derived from the registry and the routes served. */
export function rootIndex(registry: Registry, version: string, routes: readonly RouteDef[]): Static<typeof RootIndex> {
  const listed = routes.filter((r) => !r.hidden);
  const byKind = Object.fromEntries((Object.keys(KINDS) as Kind[]).map((kind) => [kindKey(kind), registry.list(kind).map((p) => p.route ?? p.name)]));
  return {
    name: 'chunkd',
    version,
    docs: '/docs',
    pages: pagesOf(routes),
    routes: listed.map((r) => ({ method: r.method.toUpperCase(), path: r.path, summary: r.summary })),
    health: '/health',
    chunkers: [],
    refineries: [],
    ...byKind,
    pipelines: '/v1/pipelines',
  };
}

/** The GET / route; `routes` gives every route served once the app has them all. */
export function rootRoute(registry: Registry, version: string, routes: () => readonly RouteDef[]): RouteDef {
  let answer: Static<typeof RootIndex> | undefined; // the registry and the routes are frozen once served
  const index = () => (answer ??= rootIndex(registry, version, routes()));
  return {
    method: 'get',
    path: '/',
    summary: "Index of the routes, with the keys Chonkie's server answers here (health, chunkers, refineries, pipelines).",
    description: `Lists under \`chunkers\`, \`refineries\` (and one key per further plugin kind, its name in the plural) the route of every plugin the server has, dropped-in ones included.`,
    tag: 'meta',
    public: true,
    responses: { 200: { description: 'Name, version, pages, routes, and the route of each plugin by kind.', schema: RootIndex, example: index } },
    handler(ctx) {
      ctx.body = index();
    },
  };
}

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
    description:
      'For load balancers and Kubernetes readiness probes: a replica whose database is unreachable is taken out of rotation, while /health (liveness) keeps it alive.',
    tag: 'meta',
    public: true,
    responses: { 200: { description: 'Ready.', schema: Type.Object({ status: Type.Literal('ready') }) }, ...errorResponses('UNAVAILABLE') },
    async handler(ctx) {
      const pipelines = services.pipelines;
      const jobs = services.jobs;
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
        const reads =
          p.kind === 'chef'
            ? { reads: { extensions: p.manifest.extensions ?? [], media_types: p.manifest.mediaTypes ?? [], bytes_only: p.manifest.bytesOnly === true } }
            : {};
        const capabilities = p.kind === 'handshake' ? { capabilities: p.manifest.capabilities } : {};
        return {
          name: p.name,
          kind: p.kind,
          route: p.route,
          summary: p.manifest.summary,
          config: p.manifest.config,
          extras: p.manifest.extras.map((e) => ({ ...e, installed: e.packages.every(isInstalled) })),
          available: missing.length === 0,
          missing,
          ...reads,
          ...capabilities,
        };
      });
    },
  },
];
