/**
 * The chunk step: a chunker's spans over a text become chunks with exact offsets in the request's
 * unit, deterministic ids, and the structure's headings, blocks and pages where a chef gave one.
 * A span that breaks the contract is a plugin bug, thrown and never sent.
 */
import type { Chunk, Span, SpanRef } from '../../chunk.js';
import { chunkIds, idsAreReady, idsReady, sourceKey, type SourceKey } from '../../ids.js';
import { convertOffsets, type OffsetUnit } from '../../offsets.js';
import { structureMetadata } from '../../chef/annotate.js';
import type { Structure } from '../../chef/document.js';
import type { ChunkContext, ChunkerImpl } from '../../plugin.js';
import type { Plugin } from '../../registry.js';
import { pairScanAlong, surrogatePairs } from '../../surrogates.js';
import { markPlain } from '../output/plain-json.js';
import { isThenable, type Maybe } from '../maybe.js';
import type { SpanGuard } from '../output/caps.js';

/**
 * A chunk step over texts: the chunks now, without a promise, when the plugin is built, the ids'
 * hasher is ready and the chunker answers at once (a small request's usual case); else a promise
 * of them. `guard` checks each text's spans; `shared`: the caller's one context for a whole
 * request whose texts it hands over one at a time (run-here.ts).
 */
export function chunkTexts(
  plugin: Plugin,
  config: Record<string, unknown>,
  texts: string[],
  unit: OffsetUnit,
  signal?: AbortSignal,
  structures?: (Structure | undefined)[],
  guard?: SpanGuard,
  shared?: ChunkContext,
): Maybe<Chunk[][]> {
  if (texts.every(isBlank)) return texts.map(() => []);
  const context: ChunkContext = shared ?? { signal };
  context.maxSpans = guard?.maxSpans;
  const work: TextsWork = { plugin, impl: undefined!, texts, unit, signal, structures, guard, context, out: [] };
  const built = plugin.builtInstance(config) as ChunkerImpl | undefined;
  if (built === undefined || !idsAreReady()) {
    return Promise.all([plugin.instance(config), idsReady]).then(([impl]) => {
      work.impl = impl as ChunkerImpl;
      return textsFrom(work, 0);
    });
  }
  work.impl = built;
  return textsFrom(work, 0);
}

/** One chunkTexts call: what each text needs, and the lists made so far. */
interface TextsWork {
  plugin: Plugin;
  impl: ChunkerImpl;
  texts: string[];
  unit: OffsetUnit;
  signal?: AbortSignal;
  structures?: (Structure | undefined)[];
  guard?: SpanGuard;
  context: ChunkContext;
  out: Chunk[][];
}

/** The texts from `from` on, one at a time; a chunker's promise is awaited and the rest follow it. */
function textsFrom(work: TextsWork, from: number): Maybe<Chunk[][]> {
  const { plugin, impl, texts, unit, signal, structures, guard, context, out } = work;
  for (let i = from; i < texts.length; i++) {
    const text = texts[i]!;
    signal?.throwIfAborted();
    // A processed document's structure rides on the request's one context (texts run one at a
    // time), so per-request state keyed by the context (slumber's budget) still spans the batch.
    context.structure = structures?.[i];
    if (isBlank(text)) {
      out.push([]);
      continue;
    }
    const spans = impl.chunk(text, context);
    if (isThenable(spans)) {
      return spans.then((found) => {
        out.push(chunksOf(plugin, text, found, unit, context, guard));
        return textsFrom(work, i + 1);
      });
    }
    out.push(chunksOf(plugin, text, spans, unit, context, guard));
  }
  return out;
}

export const isBlank = (text: string) => text.trim() === '';

/** A text's chunks from the spans its chunker found: checked, with ids and offsets in the request's unit. */
function chunksOf(plugin: Plugin, text: string, spans: Span[], unit: OffsetUnit, context: ChunkContext, guard?: SpanGuard): Chunk[] {
  guard?.check(spans);
  const { plain, ordered } = checkSpans(plugin, text, spans);
  const found = context.structure ? structureMetadata(text, context.structure, spans) : undefined;
  const ids = chunkIds(unit === 'codepoint' ? keyAndPairs(text) : sourceKey(text), spans); // one hash of the whole input; each id mixes it with the span
  if (plain && ordered && found === undefined && unit !== 'utf8')
    return markPlain(plainChunks(text, spans, ids, unit === 'codepoint' ? surrogatePairs(text) : NO_PAIRS));
  // The general case: every bound (and named reference) converted in one pass over the text.
  const bounds: number[] = [];
  for (const s of spans) bounds.push(s.start, s.end);
  const refsAt: number[] = plain
    ? []
    : spans.map((s) => {
        if (s.refs === undefined) return -1;
        const at = bounds.length;
        for (const r of Object.values(s.refs)) bounds.push(r.start, r.end);
        return at;
      });
  const offsets = convertOffsets(text, bounds, unit);
  const out = new Array<Chunk>(spans.length);
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i]!;
    const chunk: Chunk = {
      id: ids[i]!,
      text: text.slice(s.start, s.end),
      start_index: offsets[2 * i]!,
      end_index: offsets[2 * i + 1]!,
      token_count: s.tokenCount,
    };
    if (!plain || found?.[i]) addExtras(chunk, s, text, offsets, refsAt[i] ?? -1, found?.[i]);
    out[i] = chunk;
  }
  return out;
}

/**
 * The common case, one pass and no offset arrays: spans with no extras, their starts and their ends
 * each in order (as chunkers emit them), in code points or UTF-16 units. A code-point offset is the
 * UTF-16 one less the surrogate pairs that end at or before it; two cursors walk the pairs along.
 * Each chunk is built in wire order directly (orderChunk's generic re-ordering costs ~10% on fast chunkers).
 */
function plainChunks(text: string, spans: readonly Span[], ids: string[], pairs: Uint32Array): Chunk[] {
  const out = new Array<Chunk>(spans.length);
  let beforeStart = 0;
  let beforeEnd = 0;
  for (let i = 0; i < spans.length; i++) {
    const { start, end, tokenCount } = spans[i]!;
    while (beforeStart < pairs.length && pairs[beforeStart]! < start) beforeStart++;
    while (beforeEnd < pairs.length && pairs[beforeEnd]! < end) beforeEnd++;
    out[i] = { id: ids[i]!, text: text.slice(start, end), start_index: start - beforeStart, end_index: end - beforeEnd, token_count: tokenCount };
  }
  return out;
}

const NO_PAIRS = new Uint32Array(0);

/** The id key, and the surrogate pairs code-point offsets need, from one pass over the text's UTF-16 bytes (kept for the offsets). */
function keyAndPairs(text: string): SourceKey {
  const scan = pairScanAlong(text);
  if (!scan) return sourceKey(text);
  const key = sourceKey(text, scan.piece);
  scan.done();
  return key;
}

/**
 * Check every span (a bad one is a plugin bug: thrown, never sent) and say whether they are plain
 * (no context, refs, embedding or metadata) and ordered (starts and ends each non-decreasing).
 */
function checkSpans(plugin: Plugin, text: string, spans: readonly Span[]): { plain: boolean; ordered: boolean } {
  let plain = true;
  let ordered = true;
  let lastStart = 0;
  let lastEnd = 0;
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i]!;
    checkSpan(plugin, text, s);
    if (s.context !== undefined || s.refs !== undefined || s.embedding !== undefined || s.metadata !== undefined) plain = false;
    if (s.start < lastStart || s.end < lastEnd) ordered = false;
    lastStart = s.start;
    lastEnd = s.end;
  }
  return { plain, ordered };
}

/** The optional fields of a chunk, in wire order after token_count: context, embedding, metadata. */
function addExtras(chunk: Chunk, s: Span, text: string, offsets: number[], refsAt: number, found: Record<string, unknown> | undefined): void {
  if (s.context !== undefined)
    chunk.context = Array.isArray(s.context) ? s.context.map((r) => text.slice(r.start, r.end)).join('\n') : text.slice(s.context.start, s.context.end);
  if (s.embedding !== undefined) chunk.embedding = s.embedding;
  if (s.metadata !== undefined || s.refs !== undefined || found) chunk.metadata = { ...s.metadata, ...refsIn(s.refs, offsets, refsAt), ...found };
}

/** A span's named references, in the request's unit: their offsets, converted with the spans', start at `at`. */
function refsIn(refs: Record<string, SpanRef> | undefined, offsets: number[], at: number): Record<string, { start_index: number; end_index: number }> {
  const out: Record<string, { start_index: number; end_index: number }> = {};
  let k = at;
  for (const name of Object.keys(refs ?? {})) {
    out[name] = { start_index: offsets[k]!, end_index: offsets[k + 1]! };
    k += 2;
  }
  return out;
}

/** A span that is empty, out of range or splits a surrogate pair is a plugin bug, never sent. */
function checkSpan(plugin: Plugin, text: string, s: Span): void {
  const ok =
    Number.isInteger(s.start) &&
    Number.isInteger(s.end) &&
    s.start >= 0 &&
    s.start < s.end &&
    s.end <= text.length &&
    !splitsPair(text, s.start) &&
    !splitsPair(text, s.end) &&
    Number.isInteger(s.tokenCount) &&
    s.tokenCount >= 0 &&
    // Most spans have neither: no lists are built for them.
    ((s.context === undefined && s.refs === undefined) || [...[s.context ?? []].flat(), ...Object.values(s.refs ?? {})].every((r) => validRef(text, r)));
  if (!ok) throw new Error(`Plugin '${plugin.name}' returned an invalid span ${JSON.stringify(s)} for a text of length ${text.length}.`);
}

const validRef = (text: string, r: SpanRef) =>
  Number.isInteger(r.start) &&
  Number.isInteger(r.end) &&
  r.start >= 0 &&
  r.start <= r.end &&
  r.end <= text.length &&
  !splitsPair(text, r.start) &&
  !splitsPair(text, r.end);

function splitsPair(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return false;
  const hi = text.charCodeAt(i - 1);
  const lo = text.charCodeAt(i);
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff;
}
