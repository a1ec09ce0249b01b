import type { Context } from 'koa';
import type { AppDeps } from '../service/deps.js';
import type { StoredDocument } from '../service/pipelines/execute.js';
import { runPipeline } from '../service/large-bodies/pipeline-answer.js';
import type { PipelineRecord } from '../service/storage/store.js';
import { setIgnoredKeys } from './ignored-keys.js';
import { takeRawBody } from './raw-request.js';
import { sendJsonBytes } from './stream/json-bytes.js';
import { bugLogger, streamDocuments } from './stream/ndjson.js';
import { requestSignal } from './middleware/deadline.js';

/**
 * A pipeline run's whole answer, for both pipeline APIs (the run itself: service/large-bodies/pipeline-answer.ts):
 * NDJSON when the client asks for it, else JSON (under `envelope`, `{"chunks": …}`, when given).
 */
export async function answerPipelineRun(
  ctx: Context,
  deps: AppDeps,
  find: () => Promise<PipelineRecord>,
  { envelope, ndjson, slug = false }: { envelope?: string; ndjson: boolean; slug?: boolean },
): Promise<void> {
  const signal = requestSignal(ctx);
  const request = {
    raw: ctx.state.rawBody ? takeRawBody(ctx) : undefined,
    body: ctx.request.body,
    // An uploaded file's chef and structure (server/middleware/document-input.ts), for the chunk step.
    document: ctx.state.document as StoredDocument | undefined,
    signal,
    onIgnored: (keys: string[]) => setIgnoredKeys(ctx, keys),
  };
  const run = await runPipeline(request, deps, find, { ndjson, slug });
  const send = (parts: Uint8Array[]) => sendJsonBytes(ctx, envelope === undefined ? parts : [encoder.encode(`{${JSON.stringify(envelope)}:`), ...parts, CLOSE]);
  if ('bytes' in run) return send([run.bytes]);
  const { docs, flat } = run;
  if (ndjson) return streamDocuments(ctx, docs, Math.max(1, deps.executor.threads), bugLogger(deps.logger, ctx));
  send(await docs.runner.answer(docs.recipe, docs.docs, { list: docs.list, flat, signal }));
}

const encoder = new TextEncoder();
const CLOSE = encoder.encode('}');
