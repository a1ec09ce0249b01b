import { ChunkdError } from '../../errors.js';
import { installCommand, missingExtraError } from '../../extras.js';
import { convertOffsets, type OffsetUnit } from '../../offsets.js';
import type { ChefImpl } from '../../plugin.js';
import { runsJobs } from '../placement/pool.js';
import type { Plugin, Registry } from '../../registry.js';
import type { Executor } from './chunk.js';
import { allSpans, emptyStructure, type ChefDocument, type Processed, type Span, type WireDocument } from '../../chef/document.js';
import { asTextRefusal, checkTextLength, renameLimit, unreadable } from '../../chef/errors.js';
import { DEFAULT_LIMITS, type ExtractLimits } from '../../chef/limits.js';
import { DEFAULT_POOL, inlineGate, runCapped, SMALL_FILE_BYTES, type ExtractPoolOptions } from '../placement/extract-pool.js';
import { capStructure } from '../../chef/structure-cap.js';

export { DEFAULT_LIMITS, type ExtractLimits } from '../../chef/limits.js';

/** What an uploaded file is known by when a chef is chosen for it. */
export interface FileFacts {
  /** The client's file name (only its extension is used). */
  filename: string;
  /** The part's Content-Type, when the client sent one. */
  mime?: string;
}

const baseType = (mime: string | undefined) => mime?.split(';')[0]?.trim().toLowerCase() || undefined;

/**
 * The chef for a file, from the chefs' manifests alone: the longest extension a chef lists that
 * ends the name, else a media type a chef lists exactly, else one it lists as `type/*`, else the
 * first chef whose `sniff` accepts the bytes (only when the client sent no media type, or
 * application/octet-stream). Undefined when none reads it.
 */
export function chefFor(registry: Registry, facts: FileFacts, bytes?: Uint8Array): Plugin | undefined {
  const chefs = registry.list('chef');
  const name = facts.filename.toLowerCase();
  let best: { chef: Plugin; length: number } | undefined;
  for (const chef of chefs) {
    for (const ext of chef.manifest.extensions ?? []) if (name.endsWith(ext) && ext.length > (best?.length ?? 0)) best = { chef, length: ext.length };
  }
  if (best) return best.chef;
  const mime = baseType(facts.mime);
  if (mime) {
    const exact = chefs.find((c) => c.manifest.mediaTypes?.includes(mime));
    if (exact) return exact;
    const wildcard = `${mime.split('/')[0]}/*`;
    const family = chefs.find((c) => c.manifest.mediaTypes?.includes(wildcard));
    if (family) return family;
  }
  // Only a file whose type the client did not know is sniffed: a declared image/png stays a 415.
  if (!bytes || (mime !== undefined && mime !== 'application/octet-stream')) return undefined;
  return chefs.find((c) => c.manifest.sniff?.(bytes));
}

/** The 415 for a file no chef reads: it lists what the chefs read, and how to name one. */
export function unsupportedFile(registry: Registry, facts: FileFacts): ChunkdError {
  const chefs = registry.list('chef').map((c) => `${c.name} (${[...(c.manifest.extensions ?? [])].slice(0, 6).join(', ') || (c.manifest.mediaTypes ?? []).join(', ')})`);
  const type = baseType(facts.mime);
  return new ChunkdError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Cannot read text from '${facts.filename}'${type ? ` (${type})` : ''}: no chef reads it. Upload a file one of these chefs reads, or name one in the form field 'chef': ${chefs.join('; ')}.`,
  );
}

export interface RunChefOptions {
  /**
   * The app's executor: with worker threads, chefs marked offLoop run in a worker of their own
   * with a capped heap (pool.ts), so a slow or memory-hungry file never holds the event loop or
   * the server's memory. Without one (or with --workers 0) they run on the calling thread.
   */
  executor?: Executor;
  /** Aborting stops the chef (in the pool: its worker is terminated). */
  signal?: AbortSignal;
  /** Where the chef runs in the pool, have its structure answered as JSON bytes (Processed.structureJson): for a caller that stores it. */
  structureJson?: boolean;
  limits?: Partial<ExtractLimits>;
  /** Heap cap of the extraction worker, in MB (pool.ts). */
  maxMemoryMb?: number;
  /**
   * The extraction pool (pool.ts): its threads, the time one file may take there, and how many
   * files may wait. Inline (no worker threads) none of these apply.
   */
  pool?: Partial<Omit<ExtractPoolOptions, 'memoryMb'>>;
  /** How a 413 names a limit that a server setting gives (e.g. maxTextChars → '--max-text-chars, CHUNKD_MAX_TEXT_CHARS'). */
  limitNames?: Partial<Record<keyof ExtractLimits, string>>;
}

/** The job module a worker runs a chef with (boot may add it to the pool's warm jobs). */
export const CHEF_JOB = new URL(`../placement/chef-job${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

/** What the pool's job receives (job.ts). */
export interface ChefPayload {
  source: string;
  config: Record<string, unknown>;
  doc: ChefDocument;
  limits: ExtractLimits;
  /** Answer the structure as its JSON bytes (Processed.structureJson). */
  structureJson?: boolean;
}

/**
 * Run a chef on a document: the one place chefs run. Throws a ChunkdError: 501 MISSING_EXTRA when
 * the chef's optional packages are not installed, 422 for a file its library cannot read or a
 * text sent to a chef that reads files only, 413 past a limit (limits.ts).
 */
export async function runChef(plugin: Plugin, config: Record<string, unknown>, doc: ChefDocument, options: RunChefOptions = {}): Promise<Processed> {
  checkChef(plugin, doc);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const { executor, signal } = options;
  const pool = { ...DEFAULT_POOL, ...options.pool, memoryMb: options.maxMemoryMb ?? DEFAULT_POOL.memoryMb };
  const size = doc.bytes?.byteLength ?? doc.text?.length ?? 0;
  const offLoop = plugin.manifest.offLoop === true || (plugin.manifest.offLoop === 'files' && doc.bytes !== undefined);
  try {
    return offLoop && executor && runsJobs(executor)
      ? await runCapped<Processed>(CHEF_JOB, { source: plugin.source, config, doc, limits, ...(options.structureJson ? { structureJson: true } : {}) } satisfies ChefPayload, size, pool, signal)
      : doc.bytes && size > SMALL_FILE_BYTES
        ? await inlineGate(pool).run(() => processHere(plugin, config, doc, limits, signal), signal)
        : await processHere(plugin, config, doc, limits, signal);
  } catch (e) {
    const named = options.limitNames ? renameLimit(e, options.limitNames) : e;
    throw doc.bytes === undefined ? asTextRefusal(named) : named;
  }
}

/** A chef whose extra is missing (501), or that reads files only and was sent a text (422). */
export function checkChef(plugin: Plugin, doc: { bytes?: Uint8Array }): void {
  const missing = plugin.missing;
  if (missing.length) throw missingExtraError(`The chef '${plugin.name}'`, missing);
  if (doc.bytes === undefined && plugin.manifest.bytesOnly) {
    throw new ChunkdError('VALIDATION', `The chef '${plugin.name}' reads files, not text: upload the file (POST /v1/files, or multipart to POST ${plugin.route}).`);
  }
}

/**
 * Run a chef on this thread, wherever that is (the event loop, a pool worker, an extraction
 * worker): a library's own error (a corrupt file) becomes the 422 that says so; the text is
 * held to maxTextChars, and the structure to maxStructureSpans per kind (the spans past it are
 * dropped and counted in metadata.dropped_spans), so what leaves here is bounded by the limits.
 */
export async function processHere(plugin: Plugin, config: Record<string, unknown>, doc: ChefDocument, limits: ExtractLimits, signal?: AbortSignal): Promise<Processed> {
  const impl = (await plugin.instance(config)) as ChefImpl;
  let out: Processed;
  try {
    out = await impl.process(doc, { limits, signal });
  } catch (e) {
    if (signal?.aborted && e === signal.reason) throw e;
    throw unreadable(plugin.name, e);
  }
  checkTextLength(out.text.length, limits);
  const { structure, dropped } = capStructure(out.structure ?? emptyStructure(), limits.maxStructureSpans);
  const capped = { ...out, structure, metadata: dropped ? { ...out.metadata, dropped_spans: dropped } : out.metadata };
  checkProcessed(plugin, capped);
  return capped;
}

/**
 * A file read by the chef its facts name (`chef`), else by the chef for its extension, media type
 * or bytes (chefFor); 415 when none reads it. The chef's name is the file's `format`.
 */
export async function processFile(registry: Registry, bytes: Uint8Array, facts: FileFacts & { chef?: string }, options: RunChefOptions = {}): Promise<Processed & { format: string }> {
  const chef = facts.chef !== undefined ? registry.get('chef', facts.chef) : chefFor(registry, facts, bytes);
  if (!chef) throw unsupportedFile(registry, facts);
  const doc = await runChef(chef, {}, { bytes, filename: facts.filename, mime: facts.mime }, options);
  return { ...doc, format: chef.name };
}

/** A span outside the text, reversed, or splitting a surrogate pair is a chef bug, never sent. */
function checkProcessed(plugin: Plugin, out: Processed): void {
  const { text } = out;
  const ok = (s: Span) => Number.isInteger(s.start) && Number.isInteger(s.end) && s.start >= 0 && s.start <= s.end && s.end <= text.length && !splits(text, s.start) && !splits(text, s.end);
  if (typeof text !== 'string' || !out.structure || !allSpans(out.structure).every(ok)) {
    throw new Error(`Chef '${plugin.name}' returned a document whose structure does not fit its text.`);
  }
}

const splits = (text: string, i: number) => i > 0 && i < text.length && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff && text.charCodeAt(i) >= 0xdc00 && text.charCodeAt(i) <= 0xdfff;

/** A processed document on the wire: every span's offsets in the request's unit (one pass over the text). */
export function toWire(doc: Processed, unit: OffsetUnit): WireDocument {
  const spans = allSpans(doc.structure);
  const offsets = convertOffsets(doc.text, spans.flatMap((s) => [s.start, s.end]), unit);
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

/** One chef as the docs list it: what it reads and what it needs. */
export function chefInfo(chef: Plugin) {
  const extra = chef.manifest.extras[0];
  return {
    name: chef.name,
    extensions: [...(chef.manifest.extensions ?? [])],
    media_types: [...(chef.manifest.mediaTypes ?? [])],
    extra: extra ? { name: extra.name, packages: [...extra.packages], reason: extra.reason, install: installCommand(extra.packages) } : null,
    available: chef.missing.length === 0,
  };
}
