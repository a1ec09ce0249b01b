/**
 * The output caps: an answer (or one document's result) whose JSON would pass its cap is refused
 * with a 413 that names the limit and the setting that raises it, as early as it can be known:
 * a chunker's spans are checked against the cap before any chunk is built from them.
 */
import { tooLarge, type Setting } from '../../caps.js';
import type { Span } from '../../chunk.js';
import type { ChunkdError } from '../../errors.js';
import { settingOf } from '../../host.js';
import type { Cap, RunOptions } from '../recipe.js';

/** The settings that raise the caps, as the service names them (kernel/host.ts). */
export const outputSetting = (): Setting => settingOf('max-output-bytes');
export const documentOutputSetting = (): Setting => settingOf('max-document-output-bytes');
export const chunksSetting = (): Setting => settingOf('max-chunks');

/**
 * Told of a text's spans before any chunk is built from them: it may refuse them (`check` throws),
 * e.g. when their chunks could not fit an output cap, before they take any memory. `maxSpans` is
 * passed to the chunker (ChunkContext.maxSpans): more are refused anyway.
 */
export interface SpanGuard {
  maxSpans: number;
  check(spans: readonly Span[]): void;
}

/** The fewest bytes of JSON a chunk takes (`{"id":"chnk_…","text":"","start_index":0,…}`), and a text of a `texts` answer (`""` and its comma). */
export const MIN_CHUNK_BYTES = 90;
const MIN_TEXT_BYTES = 3;

/** Refuse spans whose chunks cannot fit the cap, before any chunk is built (a UTF-16 unit is at least a byte of JSON). */
export function outputGuard(options: RunOptions, budget: { used: number }): SpanGuard {
  const per = options.returnType === 'texts' ? MIN_TEXT_BYTES : MIN_CHUNK_BYTES;
  return {
    maxSpans: Math.floor(Math.max(0, options.cap.bytes - budget.used) / per),
    check(spans) {
      let least = budget.used + 1;
      for (const s of spans) least += s.end - s.start + per;
      if (least > options.cap.bytes) throw capError(options.cap, least, true);
    },
  };
}

/** Between steps a document may hold at most maxChunks chunks. */
export const countGuard = (maxChunks: number): SpanGuard => ({
  maxSpans: maxChunks,
  check(spans) {
    // One more than the most: the chunker may have stopped there (ChunkContext.maxSpans).
    if (spans.length > maxChunks) throw chunksError(spans.length, maxChunks, spans.length === maxChunks + 1);
  },
});

export const chunksError = (n: number, max: number, atLeast = false): ChunkdError =>
  tooLarge(`The request has ${atLeast ? 'at least ' : ''}${n.toLocaleString('en')} chunks`, max, chunksSetting());

/** What a 413 for an answer over --max-output-bytes tells its sender to do (evaluation, which does not answer chunks, says otherwise). */
export const ANSWER_ADVICE = 'Send less per request, use larger chunks, or stream it (Accept: application/x-ndjson)';

export function capError(cap: Cap, bytes: number, atLeast: boolean): ChunkdError {
  const what = cap.over === 'answer' ? 'The answer' : "The document's result";
  const size = `${atLeast ? 'at least ' : ''}${bytes.toLocaleString('en')} bytes of JSON`;
  const advice = cap.over === 'answer' ? ANSWER_ADVICE : 'Send a smaller document or use larger chunks';
  return tooLarge(`${what} would take ${size}`, cap.bytes, cap.setting, advice);
}
