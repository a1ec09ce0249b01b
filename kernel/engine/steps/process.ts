/**
 * The process step: a chef reads a text, or a file's bytes, into a text and its structure, held to
 * the extraction limits wherever it runs (the event loop, a pool worker, an extraction worker).
 */
import { ChunkdError } from '../../errors.js';
import { missingExtraError } from '../../extras.js';
import { convertOffsets, type OffsetUnit } from '../../offsets.js';
import type { ChefImpl } from '../../plugin.js';
import type { Plugin } from '../../registry.js';
import { allSpans, emptyStructure, type ChefDocument, type Processed, type Span, type WireDocument } from '../../chef/document.js';
import { asTextRefusal, checkTextLength, unreadable } from '../../chef/errors.js';
import type { ExtractLimits } from '../../chef/limits.js';
import { capStructure } from '../../chef/structure-cap.js';

/** A chef whose extra is missing (501), or that reads files only and was sent a text (422). */
export function checkChef(plugin: Plugin, doc: { bytes?: Uint8Array }): void {
  const missing = plugin.missing;
  if (missing.length) throw missingExtraError(`The chef '${plugin.name}'`, missing);
  if (doc.bytes === undefined && plugin.manifest.bytesOnly) {
    throw new ChunkdError(
      'VALIDATION',
      `The chef '${plugin.name}' reads files, not text: upload the file (POST /v1/files, or multipart to POST ${plugin.route}).`,
    );
  }
}

/**
 * Run a chef on this thread, wherever that is (the event loop, a pool worker, an extraction
 * worker): a library's own error (a corrupt file) becomes the 422 that says so; the text is
 * held to maxTextChars, and the structure to maxStructureSpans per kind (the spans past it are
 * dropped and counted in metadata.dropped_spans), so what leaves here is bounded by the limits.
 */
export async function processHere(
  plugin: Plugin,
  config: Record<string, unknown>,
  doc: ChefDocument,
  limits: ExtractLimits,
  signal?: AbortSignal,
): Promise<Processed> {
  const impl = (await plugin.instance(config)) as ChefImpl;
  let out: Processed;
  try {
    out = await impl.process(doc, { limits, signal });
  } catch (e) {
    if (signal?.aborted && e === signal.reason) throw e;
    throw asRefusalOf(doc, unreadable(plugin.name, e));
  }
  try {
    checkTextLength(out.text.length, limits);
  } catch (e) {
    throw asRefusalOf(doc, e);
  }
  const { structure, dropped } = capStructure(out.structure ?? emptyStructure(), limits.maxStructureSpans);
  const capped = { ...out, structure, metadata: dropped ? { ...out.metadata, dropped_spans: dropped } : out.metadata };
  checkProcessed(plugin, capped);
  return capped;
}

/** A limit's 413 for a text sent as JSON speaks of that text, not of a file to upload (chef/errors.ts). */
const asRefusalOf = (doc: ChefDocument, e: unknown): unknown => (doc.bytes === undefined ? asTextRefusal(e) : e);

/** A span outside the text, reversed, or splitting a surrogate pair is a chef bug, never sent. */
function checkProcessed(plugin: Plugin, out: Processed): void {
  const { text } = out;
  const ok = (s: Span) =>
    Number.isInteger(s.start) &&
    Number.isInteger(s.end) &&
    s.start >= 0 &&
    s.start <= s.end &&
    s.end <= text.length &&
    !splits(text, s.start) &&
    !splits(text, s.end);
  if (typeof text !== 'string' || !out.structure || !allSpans(out.structure).every(ok)) {
    throw new Error(`Chef '${plugin.name}' returned a document whose structure does not fit its text.`);
  }
}

const splits = (text: string, i: number) =>
  i > 0 &&
  i < text.length &&
  text.charCodeAt(i - 1) >= 0xd800 &&
  text.charCodeAt(i - 1) <= 0xdbff &&
  text.charCodeAt(i) >= 0xdc00 &&
  text.charCodeAt(i) <= 0xdfff;

/** A processed document on the wire: every span's offsets in the request's unit (one pass over the text). */
export function toWire(doc: Processed, unit: OffsetUnit): WireDocument {
  const spans = allSpans(doc.structure);
  const offsets = convertOffsets(
    doc.text,
    spans.flatMap((s) => [s.start, s.end]),
    unit,
  );
  let k = 0;
  const at = <T extends Span>(s: T) => {
    const { start: _s, end: _e, ...rest } = s;
    const out = { ...rest, start_index: offsets[k]!, end_index: offsets[k + 1]! };
    k += 2;
    return out;
  };
  const s = doc.structure;
  // Same order as allSpans.
  const structure = { headings: s.headings.map(at), tables: s.tables.map(at), code: s.code.map(at), images: s.images.map(at), pages: s.pages.map(at) };
  return { text: doc.text, structure, metadata: doc.metadata };
}
