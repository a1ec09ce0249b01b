import type { Context } from 'koa';
import { isThenable, type Maybe } from '../../kernel/engine/index.js';
import { KINDS } from '../../kernel/plugin.js';
import { runsInline, runsJobs, docWeight, recipeCost } from '../../kernel/engine/index.js';
import type { Plugin, RoutedPlugin } from '../../kernel/registry.js';
import { parseRequest } from '../../kernel/request.js';
import { resolveDocument } from '../../service/files/document-input.js';
import type { FileStore } from '../../service/files/store.js';
import { setIgnoredKeys } from '../ignored-keys.js';
import { exampleAnswers } from '../openapi-examples.js';
import { pluginPooled } from '../../service/large-bodies/answer.js';
import { takeRawBody } from '../raw-request.js';
import { sendJsonBytes } from '../stream/json-bytes.js';
import { chunkerDocuments, preparedDocuments, refineryDocuments, type Documents } from '../../service/document-runs/documents.js';
import { bugLogger, NDJSON_NOTE, NdjsonLine, streamDocuments, wantsNdjson } from '../stream/ndjson.js';
import { storedStructure, type StoredDocument } from '../../service/pipelines/execute.js';
import type { AppDeps, RouteDef, RouteModule } from '../route.js';
import { BODY_ERRORS, ChunkResult, errorResponses } from '../../wire/responses.js';
import { requestSignal } from '../middleware/deadline.js';

/** One POST route per chunker and refinery: /v1/chunk/<name> and /v1/refine/<name> (chefs: routes/process.ts). */
export const pluginRoutes: RouteModule = (deps) => [...deps.registry.list('chunker'), ...deps.registry.list('refinery')].map((p) => pluginRoute(p, deps));

function pluginRoute(plugin: RoutedPlugin, deps: AppDeps): RouteDef {
  const { executor, settings, logger, registry } = deps;
  const extras = plugin.manifest.extras.map((e) => `\`${e.name}\` (${e.packages.join(', ')}): ${e.reason}`);
  return {
    method: 'post',
    path: plugin.route,
    summary: plugin.manifest.summary,
    tag: KINDS[plugin.kind].route === 'chunk' ? 'chunkers' : 'refineries',
    description: extras.length ? `Needs the optional extra ${extras.join('; ')}` : undefined,
    body: plugin.body,
    bodyName: `${pascal(plugin.name)}${plugin.kind === 'chunker' ? 'Chunk' : 'Refine'}Request`,
    examples: plugin.manifest.examples,
    responses: {
      200: {
        description: `The chunks.${NDJSON_NOTE}`,
        schema: ChunkResult,
        ndjson: NdjsonLine,
        example: () => exampleAnswers(registry).get(`${plugin.kind}:${plugin.name}`),
      },
      ...errorResponses(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'FORBIDDEN',
        ...(plugin.kind === 'chunker' ? (['NOT_FOUND'] as const) : []),
        ...BODY_ERRORS,
        'MISSING_EXTRA',
        'TIMEOUT',
        ...(plugin.manifest.network ? (['NOT_CONFIGURED', 'UPSTREAM'] as const) : []),
      ),
    },
    rawBody: true,
    documentInput: plugin.kind === 'chunker',
    async handler(ctx) {
      const ndjson = wantsNdjson(ctx);
      let docs: Documents;
      if (ctx.state.rawBody && runsJobs(executor)) {
        // A large body: parsed and checked in a worker, whatever it holds or the client accepts.
        const pooled = await pluginPooled(takeRawBody(ctx), plugin, executor, settings, ndjson ? 'documents' : 'answer', plugin.kind === 'chunker');
        if ('bytes' in pooled) return sendJsonBytes(ctx, [pooled.bytes]);
        if ('prepared' in pooled) {
          const { config, unit, returnType, list, docs: items } = pooled.prepared;
          docs = await preparedDocuments({ steps: [{ plugin, config: config! }], unit, returnType }, items, list, executor, settings);
        } else {
          const document = await resolveDocument(pooled.body, deps.services.files); // a body naming an uploaded file
          docs = await madeDocuments(plugin, pooled.body, ctx, deps, document);
        }
      } else {
        const made = madeDocuments(plugin, ctx.request.body, ctx, deps, ctx.state.document as StoredDocument | undefined);
        docs = isThenable(made) ? await made : made;
      }
      if (ndjson) return streamDocuments(ctx, docs, Math.max(1, executor.threads), bugLogger(logger, ctx));
      const work = docs.docs.reduce<number>((n, d) => n + docWeight(d), 0) * recipeCost(docs.recipe);
      const signal = plugin.manifest.network || plugin.kind === 'refinery' ? requestSignal(ctx) : poolSignal(ctx, work);
      sendJsonBytes(ctx, await docs.runner.answer(docs.recipe, docs.docs, { list: docs.list, signal }));
    },
  };
}

/** A body parsed on this thread (or a worker's, naming a file), checked as a request: its documents for the runner. */
function madeDocuments(plugin: Plugin, body: unknown, ctx: Context, { executor, settings }: AppDeps, document?: StoredDocument): Maybe<Documents> {
  const req = parseRequest(plugin, body);
  setIgnoredKeys(ctx, req.ignored);
  // A file's text comes with the structure its chef found at upload: the chunks carry their headings, blocks and pages.
  if (plugin.kind === 'chunker') return chunkerDocuments(plugin, req, executor, settings, document && storedStructure(document));
  return refineryDocuments(plugin, req, executor, settings);
}

/**
 * The deadline's signal, for work the pool may take: kernel/engine/placement/pool.ts runs cheap work (characters ×
 * cost under INLINE_MAX_CHARS) on this thread, where no signal can stop it. Reading
 * requestSignal makes an AbortController (server/middleware/deadline.ts), a visible cost on
 * every small request.
 */
const poolSignal = (ctx: Context, work: number) => (runsInline(work, 1, 1) ? undefined : requestSignal(ctx));

const pascal = (name: string) => name.replace(/(^|[-_])([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
