import { KINDS } from '../../kernel/plugin.js';
import { runsInline, runsJobs } from '../../kernel/pool.js';
import type { Plugin } from '../../kernel/registry.js';
import { asTexts, parseRequest, runChunker, runRefinery } from '../../kernel/run.js';
import { setIgnoredKeys } from '../ignored-keys.js';
import { checkChunks, checkTexts } from '../limits.js';
import { exampleAnswers } from '../openapi-examples.js';
import { answerPooled } from '../pooled/answer.js';
import { chunkerDocuments, refineryDocuments } from '../stream/documents.js';
import { bugLogger, NDJSON_NOTE, NdjsonLine, parsedBody, streamDocuments, wantsNdjson } from '../stream/ndjson.js';
import type { Chunk } from '../../kernel/chunk.js';
import type { StoredDocument } from '../pipelines/execute.js';
import type { AppDeps, RouteDef, RouteModule } from '../route.js';
import { BODY_ERRORS, ChunkResult, errorResponses } from '../schemas.js';
import type { Context } from 'koa';

/** One POST route per chunker and refinery: /v1/chunk/<name> and /v1/refine/<name> (chefs: routes/process.ts). */
export const pluginRoutes: RouteModule = (deps) => [...deps.registry.list('chunker'), ...deps.registry.list('refinery')].map((p) => pluginRoute(p, deps));

function pluginRoute(plugin: Plugin, { executor, settings, logger, registry }: AppDeps): RouteDef {
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
      200: { description: `The chunks.${NDJSON_NOTE}`, schema: ChunkResult, ndjson: NdjsonLine, example: () => exampleAnswers(registry).get(`${plugin.kind}:${plugin.name}`) },
      ...errorResponses('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', ...(plugin.kind === 'chunker' ? (['NOT_FOUND'] as const) : []), ...BODY_ERRORS, 'MISSING_EXTRA', 'TIMEOUT', ...(plugin.manifest.network ? (['NOT_CONFIGURED', 'UPSTREAM'] as const) : [])),
    },
    rawBody: true,
    documentInput: plugin.kind === 'chunker',
    async handler(ctx) {
      if (wantsNdjson(ctx)) {
        const req = parseRequest(plugin, parsedBody(ctx));
        setIgnoredKeys(ctx, req.ignored);
        const make = plugin.kind === 'chunker' ? chunkerDocuments : refineryDocuments;
        return streamDocuments(ctx, await make(plugin, req, executor, settings), Math.max(1, executor.threads), bugLogger(logger, ctx));
      }
      // A large body: parsed, chunked and serialized in a worker (same answer, byte for byte).
      if (ctx.state.rawBody && runsJobs(executor)) return answerPooled(ctx, plugin, executor, settings);
      const req = parseRequest(plugin, ctx.request.body);
      setIgnoredKeys(ctx, req.ignored);
      let result;
      if (plugin.kind === 'chunker') {
        const texts = req.input as string | string[];
        checkTexts(texts, settings);
        // A file's text comes with the structure its chef found at upload: the chunks carry their headings, blocks and pages.
        const structure = (ctx.state.document as StoredDocument | undefined)?.structure;
        const signal = plugin.manifest.network ? (ctx.state.signal as AbortSignal) : poolSignal(ctx, chars(texts) * plugin.cost(req.config));
        result = await runChunker(plugin, req.config, texts, req.unit, executor, signal, structure ? [structure] : undefined);
      } else {
        checkChunks(req.input as unknown[], settings);
        result = await runRefinery(plugin, req.config, req.input as (Chunk | Chunk[])[], executor, ctx.state.signal as AbortSignal);
      }
      ctx.body = req.returnType === 'texts' ? asTexts(result) : result;
    },
  };
}

/**
 * The deadline's signal, for work the pool may take: kernel/pool.ts runs cheap work (characters ×
 * cost under INLINE_MAX_CHARS) on this thread, where no signal can stop it. Reading
 * ctx.state.signal makes an AbortController (server/middleware/deadline.ts), a visible cost on
 * every small request.
 */
const poolSignal = (ctx: Context, work: number) => (runsInline(work, 1, 1) ? undefined : (ctx.state.signal as AbortSignal));
const chars = (texts: string | string[]) => (typeof texts === 'string' ? texts.length : texts.reduce((n, t) => n + t.length, 0));

const pascal = (name: string) => name.replace(/(^|[-_])([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
