import { ChunkdError } from '../../../kernel/errors.js';
import { installCommand, isInstalled, missingExtraError } from '../../../kernel/extras.js';
import type { Extra } from '../../../kernel/plugin.js';
import { runsJobs } from '../../../kernel/pool.js';
import type { Executor } from '../../../kernel/run.js';
import { decodeUtf8Yielding } from './decode.js';
import { docx } from './docx.js';
import { renameLimit, unreadable } from './errors.js';
import { html } from './html.js';
import { DEFAULT_LIMITS, type ExtractLimits } from './limits.js';
import { pdf } from './pdf.js';
import { DEFAULT_POOL, runCapped, type ExtractPoolOptions } from './pool.js';

export { DEFAULT_LIMITS, type ExtractLimits } from './limits.js';

/** What an uploaded file is known by when its text is extracted. */
export interface FileFacts {
  /** The client's file name (only its extension is used). */
  filename: string;
  /** The part's Content-Type, when the client sent one. */
  mime?: string;
}

/** One extractable format: how it is recognised and how its text is taken out. */
export interface Extractor {
  format: string;
  extensions: readonly string[];
  mimeTypes: readonly string[];
  /** The optional packages that read the format; absent when Node alone reads it. */
  extra?: Extra;
  /** Its work may hold the thread for long (a parser over the whole file): it runs in the worker pool when there is one. */
  offLoop?: boolean;
  /** The file's text; any error a library throws becomes a 422 (see extractText). */
  extract(bytes: Uint8Array, limits: ExtractLimits, signal?: AbortSignal): Promise<string>;
}

const plain = (format: string, extensions: string[], mimeTypes: string[]): Extractor => ({
  format,
  extensions,
  mimeTypes,
  // On the event loop, a slice at a time (decode.ts): a worker would copy the text twice for no gain.
  extract: (bytes, _limits, signal) => decodeUtf8Yielding(bytes, signal),
});

/** Every format, in the order they are tried. */
export const EXTRACTORS: readonly Extractor[] = [
  plain('txt', ['.txt', '.text'], ['text/plain']),
  plain('md', ['.md', '.markdown'], ['text/markdown', 'text/x-markdown']),
  html,
  pdf,
  docx,
];

/** The extractor for a file: by extension first, then by MIME type; undefined when none fits. */
export function extractorFor(facts: FileFacts): Extractor | undefined {
  const name = facts.filename.toLowerCase();
  const byExt = EXTRACTORS.find((e) => e.extensions.some((x) => name.endsWith(x)));
  if (byExt) return byExt;
  const mime = facts.mime?.split(';')[0]?.trim().toLowerCase();
  return mime ? EXTRACTORS.find((e) => e.mimeTypes.includes(mime)) : undefined;
}

export interface ExtractOptions {
  /**
   * The app's executor (AppDeps.executor): with worker threads, formats marked offLoop (html, pdf,
   * docx) are extracted in a worker of their own with a capped heap (pool.ts), so a slow or
   * memory-hungry file never holds the event loop or the server's memory. Without one (or with
   * --workers 0) they run on the calling thread, and their memory is not bounded.
   */
  executor?: Executor;
  /** Aborting stops the extraction (in the pool: its worker is terminated). */
  signal?: AbortSignal;
  limits?: Partial<ExtractLimits>;
  /**
   * Heap cap of the extraction worker, in MB (pool.ts). Off-loop formats run in that worker
   * whenever the executor has threads; with --workers 0 they run inline, without this cap.
   */
  maxMemoryMb?: number;
  /**
   * The extraction pool (pool.ts): its threads, the time one file may take there, and how many
   * files may wait. Inline (no worker threads) none of these apply.
   */
  pool?: Partial<Omit<ExtractPoolOptions, 'memoryMb'>>;
  /** How a 413 names a limit that a server setting gives (e.g. maxTextChars → '--max-text-chars, CHUNKD_MAX_TEXT_CHARS'). */
  limitNames?: Partial<Record<keyof ExtractLimits, string>>;
}

/** The job module a worker runs an extraction with (boot may add it to the pool's warm jobs). */
export const EXTRACT_JOB = new URL(`./job${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

/**
 * The text of an uploaded file, and the format it was read as. Throws a ChunkdError: 415 for a
 * format no extractor reads, 501 MISSING_EXTRA when the format's optional packages are not
 * installed, 422 for a file its library cannot read, 413 past a limit (limits.ts).
 */
export async function extractText(bytes: Uint8Array, facts: FileFacts, options: ExtractOptions = {}): Promise<{ text: string; format: string }> {
  const extractor = extractorFor(facts);
  if (!extractor) {
    const known = EXTRACTORS.flatMap((e) => e.extensions).join(', ');
    throw new ChunkdError('UNSUPPORTED_MEDIA_TYPE', `Cannot read text from '${facts.filename}': upload one of ${known}.`);
  }
  const missing = extractor.extra?.packages.filter((p) => !isInstalled(p)) ?? [];
  if (missing.length) throw missingExtraError(`Reading .${extractor.format} files`, missing);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const { executor, signal } = options;
  try {
    const text =
      extractor.offLoop && executor && runsJobs(executor)
        ? await runCapped<string>(EXTRACT_JOB, { format: extractor.format, bytes, limits } satisfies ExtractPayload, bytes.byteLength, { ...DEFAULT_POOL, ...options.pool, memoryMb: options.maxMemoryMb ?? DEFAULT_POOL.memoryMb }, signal)
        : await runExtractor(extractor, bytes, limits, signal);
    return { text, format: extractor.format };
  } catch (e) {
    throw options.limitNames ? renameLimit(e, options.limitNames) : e;
  }
}

/** What the pool's job receives (server/files/extract/job.ts). */
export interface ExtractPayload {
  format: string;
  bytes: Uint8Array;
  limits: ExtractLimits;
}

/** Run one extractor here; a library's own error (a corrupt file) becomes the 422 that says so. */
export async function runExtractor(extractor: Extractor, bytes: Uint8Array, limits: ExtractLimits, signal?: AbortSignal): Promise<string> {
  try {
    return await extractor.extract(bytes, limits, signal);
  } catch (e) {
    if (signal?.aborted && e === signal.reason) throw e;
    throw unreadable(extractor.format, e);
  }
}

/** One format as `formatsInfo()` lists it (snake_case: it is meant for the wire). */
export interface FormatInfo {
  format: string;
  extensions: string[];
  mime_types: string[];
  /** The optional packages that read it, or null when Node alone does. */
  extra: { name: string; packages: string[]; reason: string; install: string } | null;
  /** Whether its extra is installed (always true without one): false means uploads of it answer 501. */
  available: boolean;
}

/** Every format this server reads, and whether it can read it now: for a route or the plugin list to show. */
export function formatsInfo(): FormatInfo[] {
  return EXTRACTORS.map((e) => ({
    format: e.format,
    extensions: [...e.extensions],
    mime_types: [...e.mimeTypes],
    extra: e.extra ? { name: e.extra.name, packages: [...e.extra.packages], reason: e.extra.reason, install: installCommand(e.extra.packages) } : null,
    available: (e.extra?.packages ?? []).every(isInstalled),
  }));
}
