/**
 * NDJSON answers for batches: a chunk, refine or pipeline-execute request sent with
 * `Accept: application/x-ndjson` gets `{"total": N}`, then one line per document as it finishes
 * (`{"index", "chunks"}` or `{"index", "error"}`), in completion order. Everything wrong with the
 * whole request is answered as ordinary JSON before the first line (the documents are made first).
 * A client that goes away aborts the work; the request deadline still applies: documents not
 * answered by then get a TIMEOUT line each, so every index is answered exactly once.
 */
import { once } from 'node:events';
import type { Context } from 'koa';
import Type from '#typebox';
import { ChunkdError } from '../../kernel/errors.js';
import type { Logger } from '../../service/logger.js';
import { ChunkList, ErrorBody } from '../../wire/responses.js';
import { eachDocument, type Documents, type DocumentLine } from '../../service/document-runs/documents.js';
import { requestSignal } from '../middleware/deadline.js';

export const NDJSON = 'application/x-ndjson';

/** The client prefers NDJSON to JSON (no Accept, or `*\/*`, keeps JSON). */
export const wantsNdjson = (ctx: Context): boolean => Boolean(ctx.req.headers.accept) && ctx.accepts('application/json', NDJSON) === NDJSON;

/** One line of the stream, for OpenAPI: the first line, or a document's. */
export const NdjsonLine = Type.Union(
  [
    Type.Object({ total: Type.Integer({ minimum: 0, description: 'How many documents the request holds; one line follows for each.' }) }),
    Type.Object({ index: Type.Integer({ minimum: 0 }), chunks: Type.Union([ChunkList, Type.Array(Type.String())]) }),
    Type.Object({ index: Type.Integer({ minimum: 0 }), error: ErrorBody }),
  ],
  { description: 'One JSON value per line: first `{"total": N}`, then `{"index", "chunks"}` or `{"index", "error"}` per document in the order they finish.' },
);

export const NDJSON_NOTE =
  ' With `Accept: application/x-ndjson`: one JSON line per document (each text of a list; a single text is a batch of one) as it finishes, in completion order, each naming its index, after a first line `{"total": N}`; a failing document gives an `error` line and the others go on. Errors of the whole request are answered as JSON before streaming starts.';

/** The signal of a stream with no deadline layer above it (a handler called on its own): never aborted. */
const NO_DEADLINE = new AbortController().signal;

/**
 * Answer `docs` as an NDJSON stream, `concurrency` documents at a time. Written straight to the
 * socket (Koa's own response is skipped) so the handler runs as long as the work does, under the
 * request deadline.
 */
export async function streamDocuments(ctx: Context, docs: Documents, concurrency: number, onBug: (e: unknown) => void): Promise<void> {
  const deadline = requestSignal(ctx) ?? NO_DEADLINE;
  // The documents were made (a model load, a store lookup) before this runs: past the deadline the
  // 504 has been answered already, and headers written now would be a second answer.
  if (deadline.aborted) return;
  const gone = new AbortController();
  const signal = AbortSignal.any([deadline, gone.signal]);
  const res = ctx.res;
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  // A client that left while the documents were being made: its `close` came before the listener.
  // (req.destroyed is no sign: a request whose body was read is destroyed too.)
  if (res.destroyed || ctx.req.socket.destroyed) {
    ctx.respond = false;
    return;
  }
  ctx.status = 200; // for the request log; the headers below are the ones sent
  ctx.respond = false;
  res.statusCode = 200;
  res.setHeader('Content-Type', `${NDJSON}; charset=utf-8`);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  try {
    await answer(res, docs, concurrency, signal, deadline, gone.signal, onBug);
  } catch (e) {
    res.destroy(); // a bug mid-stream: a broken answer, never one left hanging (the error layer logs it)
    throw e;
  }
}

async function answer(
  res: Context['res'],
  docs: Documents,
  concurrency: number,
  signal: AbortSignal,
  deadline: AbortSignal,
  gone: AbortSignal,
  onBug: (e: unknown) => void,
) {
  let ended = false;
  /** One line, in parts: a document's chunks are the runner's bytes, written as they are (never parsed or stringified here). */
  const write = async (...parts: (string | Uint8Array)[]) => {
    if (ended || res.destroyed || res.writableEnded) return;
    let room = true;
    for (const p of parts) room = res.write(p);
    // A slow reader holds the work back instead of filling this process's memory.
    if (!room) await once(res, 'drain', { signal }).catch(() => {});
  };
  const json = (value: unknown) => write(`${JSON.stringify(value)}\n`);
  await json({ total: docs.total });
  const answered = new Set<number>();
  const line = (l: DocumentLine) => ('bytes' in l ? write(`{"index":${l.index},"chunks":`, l.bytes, '}\n') : json(l));
  const work = eachDocument(docs, (l: DocumentLine) => (answered.add(l.index), line(l)), { concurrency, signal, onBug });
  await Promise.race([work, new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))]);
  if (deadline.aborted && !gone.aborted) {
    // Past the deadline the answer ends now, one TIMEOUT line per document left; work on this
    // thread that cannot be interrupted finishes unseen (pool tasks were cancelled by the signal).
    const reason =
      deadline.reason instanceof ChunkdError
        ? deadline.reason
        : new ChunkdError('TIMEOUT', 'The request took too long and was abandoned: send less per request.');
    for (let index = 0; index < docs.total; index++) if (!answered.has(index)) await json({ index, error: reason.toJSON() });
  }
  ended = true;
  if (!res.destroyed) res.end();
  await work; // the handler lasts as long as its work: the request log and shutdown see it
}

/** A document that failed with a bug: logged as the error middleware logs one, its line saying only INTERNAL. */
export const bugLogger = (logger: Logger, ctx: Context) => (e: unknown) =>
  logger.log('error', 'unhandled error', { method: ctx.method, path: ctx.path, error: String((e as Error)?.stack ?? e) });
