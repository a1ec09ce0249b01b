/**
 * The worker side of a pooled chunk request (server/pooled/answer.ts is the main-thread side): a
 * large body arrives as bytes and is parsed, validated, limit-checked, chunked and serialized
 * here, exactly as the inline route does it on the event loop, so the main thread only moves
 * buffers. A chunker batch worth splitting comes back as groups, each then chunked by its own job.
 */
import bourne from '@hapi/bourne';
import { isChunkdError, type ErrorCode, type Issue } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import { balance, INLINE_MAX_CHARS } from '../../kernel/pool.js';
import type { Plugin } from '../../kernel/registry.js';
import { asTexts, chunkMany, parseRequest, runChunker, runRefinery } from '../../kernel/run.js';
import type { Chunk } from '../../kernel/chunk.js';
import type { Job } from '../../kernel/worker.js';
import { checkChunks, checkTexts, type Limits } from '../limits.js';

export interface RequestPayload {
  step: 'request';
  source: string;
  body: Uint8Array;
  limits: Limits;
  /** Worker threads of the pool: a batch is split into at most this many groups. */
  threads: number;
}

export interface GroupPayload {
  step: 'group';
  source: string;
  config: Record<string, unknown>;
  unit: OffsetUnit;
  returnType: 'chunks' | 'texts';
  /** The group's texts as JSON bytes. */
  texts: Uint8Array;
}

export type JobResult =
  /** The response body: the exact bytes Koa would send for the result. */
  | { bytes: Uint8Array; ignored: string[] }
  | { error: { code: ErrorCode; detail: string | Issue[]; headers: Record<string, string> }; ignored: string[] }
  /** The body is not JSON koa-bodyparser accepts (its strict mode and prototype check). */
  | { invalidJson: string }
  | { groups: Uint8Array[]; config: Record<string, unknown>; unit: OffsetUnit; returnType: 'chunks' | 'texts'; ignored: string[] };

// koa-bodyparser's (co-body's) strict JSON test: an object or array after JSON whitespace.
const STRICT_JSON = /^[\x20\x09\x0a\x0d]*(\[|\{)/;

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const moved = (value: JobResult, buffers: Uint8Array[] = []) => ({ value, transfer: buffers.map((b) => b.buffer as ArrayBuffer) });

const job: Job<RequestPayload | GroupPayload, JobResult> = async (payload, load) => {
  const plugin = await load(payload.source);
  return payload.step === 'request' ? request(plugin, payload) : group(plugin, payload);
};
export default job;

async function request(plugin: Plugin, { body, limits, threads }: RequestPayload) {
  // Decoded as co-body decodes (UTF-8, a BOM dropped), parsed as it parses.
  const text = new TextDecoder().decode(body);
  let raw: unknown;
  try {
    if (!STRICT_JSON.test(text)) throw new SyntaxError('invalid JSON, only supports object and array');
    raw = bourne.parse(text, { protoAction: 'error' });
  } catch (e) {
    return moved({ invalidJson: (e as Error).message });
  }
  const req = parseRequest(plugin, raw);
  try {
    let result;
    if (plugin.kind === 'chunker') {
      const input = req.input as string | string[];
      checkTexts(input, limits);
      const groups = Array.isArray(input) && input.some((t) => t.trim() !== '') && size(input) >= INLINE_MAX_CHARS ? balance(input, (t) => t.length, threads) : [];
      if (groups.length > 1) {
        const encoded = groups.map(encode);
        return moved({ groups: encoded, config: req.config, unit: req.unit, returnType: req.returnType, ignored: req.ignored }, encoded);
      }
      result = await runChunker(plugin, req.config, input, req.unit);
    } else {
      checkChunks(req.input as unknown[], limits);
      result = await runRefinery(plugin, req.config, req.input as (Chunk | Chunk[])[]);
    }
    const bytes = encode(req.returnType === 'texts' ? asTexts(result) : result);
    return moved({ bytes, ignored: req.ignored }, [bytes]);
  } catch (e) {
    if (!isChunkdError(e)) throw e;
    return moved({ error: { code: e.code, detail: e.detail, headers: e.headers }, ignored: req.ignored });
  }
}

async function group(plugin: Plugin, { config, unit, returnType, texts }: GroupPayload) {
  try {
    const result = await chunkMany(plugin, config, JSON.parse(new TextDecoder().decode(texts)) as string[], unit);
    const bytes = encode(returnType === 'texts' ? asTexts(result) : result);
    return moved({ bytes, ignored: [] }, [bytes]);
  } catch (e) {
    if (!isChunkdError(e)) throw e;
    return moved({ error: { code: e.code, detail: e.detail, headers: e.headers }, ignored: [] });
  }
}

const size = (texts: string[]) => texts.reduce((n, t) => n + t.length, 0);
