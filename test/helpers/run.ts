/**
 * Plugin work in tests runs as production runs it: through a Runner (kernel/engine/runner.ts),
 * its answer read back from the bytes it made. These wrap the call shapes the tests use.
 */
import type { Chunk } from '../../kernel/chunk.js';
import { emptyStructure, type Processed, type Structure } from '../../kernel/chef/document.js';
import type { ExtractLimits } from '../../kernel/chef/limits.js';
import { chefFor, unsupportedFile, type FileFacts } from '../../kernel/chef/select.js';
import { DEFAULT_POOL, inline, Runner, type Doc, type Executor, type ExtractPoolOptions, type ExtractedDocument } from '../../kernel/engine/index.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import type { Plugin, Registry } from '../../kernel/registry.js';
import { chunkLists } from '../../kernel/request.js';

export interface RunWith {
  executor?: Executor;
  signal?: AbortSignal;
  /** Chef limits, and the names their 413s give them. */
  limits?: Partial<ExtractLimits>;
  limitNames?: Partial<Record<keyof ExtractLimits, string>>;
  /** The extraction pool's options (threads, maxMs, maxQueue, names), and its heap cap. */
  pool?: Partial<Omit<ExtractPoolOptions, 'memoryMb'>>;
  maxMemoryMb?: number;
  /** Output caps (unbounded unless given). */
  maxOutputBytes?: number;
  maxChunks?: number;
}

/** A runner as a surface would make one: unbounded caps unless given, the extraction pool's defaults. */
export function runnerWith(o: RunWith = {}): Runner {
  return new Runner(o.executor ?? inline, {
    maxOutputBytes: o.maxOutputBytes ?? Number.MAX_SAFE_INTEGER,
    maxDocumentOutputBytes: Number.MAX_SAFE_INTEGER,
    maxChunks: o.maxChunks ?? Number.MAX_SAFE_INTEGER,
    chef: {
      ...(o.limits ? { limits: o.limits } : {}),
      ...(o.limitNames ? { names: o.limitNames } : {}),
      pool: { ...DEFAULT_POOL, ...o.pool, memoryMb: o.maxMemoryMb ?? DEFAULT_POOL.memoryMb },
    },
  });
}

const json = (parts: Uint8Array[]): unknown => JSON.parse(Buffer.concat(parts).toString('utf8'));

/** A chunker over a text (Chunk[]) or a batch (Chunk[][]); `structures[i]` makes text i a processed document. */
export async function chunkWith(
  plugin: Plugin,
  config: Record<string, unknown>,
  input: string | string[],
  unit: OffsetUnit = 'codepoint',
  o: RunWith & { structures?: (Structure | undefined)[] } = {},
): Promise<Chunk[] | Chunk[][]> {
  const texts = Array.isArray(input) ? input : [input];
  const docs: Doc[] = texts.map((text, i) => (o.structures?.[i] ? { text, structure: o.structures[i]! } : text));
  return json(
    await runnerWith(o).answer({ steps: [{ plugin, config }], unit, returnType: 'chunks' }, docs, { list: Array.isArray(input), signal: o.signal }),
  ) as Chunk[] | Chunk[][];
}

/** A refinery over one list of chunks, or a list of lists. */
export async function refineWith(plugin: Plugin, config: Record<string, unknown>, input: (Chunk | Chunk[])[], o: RunWith = {}): Promise<Chunk[] | Chunk[][]> {
  const { nested, lists } = chunkLists(input);
  return json(
    await runnerWith(o).answer({ steps: [{ plugin, config }], unit: 'codepoint', returnType: 'chunks' }, lists, { list: nested, signal: o.signal }),
  ) as Chunk[] | Chunk[][];
}

/** A stored document as the processed document it was made from (its structure read back from its JSON). */
export const processedOf = (s: ExtractedDocument): Processed => ({
  text: s.text,
  structure: s.structureJson ? (JSON.parse(Buffer.from(s.structureJson).toString('utf8')) as Structure) : emptyStructure(),
  metadata: s.metadata,
  codePoints: s.codePoints,
  ...(s.utf8From === undefined ? {} : { utf8From: s.utf8From }),
});

/** A chef over a text or a file, as an upload runs it. */
export async function processWith(
  chef: Plugin,
  config: Record<string, unknown>,
  doc: { text: string } | { bytes: Uint8Array; filename?: string; mime?: string },
  o: RunWith = {},
): Promise<Processed> {
  const given = 'text' in doc ? doc.text : { file: doc.bytes, keep: true, filename: doc.filename ?? '', ...(doc.mime ? { mime: doc.mime } : {}) };
  return processedOf(await runnerWith(o).process({ plugin: chef, config }, given, o.signal));
}

/** A file read by the chef its facts name, else by the chef for its extension, media type or bytes, as POST /v1/files reads it; its format is the chef's name. */
export async function extractFile(
  registry: Registry,
  bytes: Uint8Array,
  facts: FileFacts & { chef?: string },
  o: RunWith = {},
): Promise<Processed & { format: string }> {
  const chef = facts.chef !== undefined ? registry.get('chef', facts.chef) : chefFor(registry, facts, bytes);
  if (!chef) throw unsupportedFile(registry, facts);
  return { ...(await processWith(chef, {}, { bytes, filename: facts.filename, ...(facts.mime ? { mime: facts.mime } : {}) }, o)), format: chef.name };
}

/** A chunker over each text of a batch: one list per text. */
export const chunkEach = async (
  plugin: Plugin,
  config: Record<string, unknown>,
  texts: string[],
  unit: OffsetUnit = 'codepoint',
  o: RunWith = {},
): Promise<Chunk[][]> => (await chunkWith(plugin, config, texts, unit, o)) as Chunk[][];

/** A refinery over each list of a batch. */
export const refineEach = async (plugin: Plugin, config: Record<string, unknown>, lists: Chunk[][], o: RunWith = {}): Promise<Chunk[][]> =>
  lists.length === 0 ? [] : ((await refineWith(plugin, config, lists, o)) as Chunk[][]);
