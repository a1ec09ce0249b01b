/**
 * A request as every plugin route reads it: a JSON object of bounded nesting, aliased keys moved,
 * unknown keys named, then checked against the plugin's compiled schema and split into its input
 * and its config. A stored step's config is checked the same way.
 */
import type { Chunk } from './chunk.js';
import { ALIASES } from './body-schema.js';
import { validationError } from './errors.js';
import { checkJsonShape } from './json-shape.js';
import type { OffsetUnit } from './offsets.js';
import type { Plugin } from './registry.js';

/** Move aliased keys to their canonical name (the canonical key wins when both are sent). */
export function applyAliases(body: Record<string, unknown>, known: ReadonlySet<string>, aliases: Record<string, string> = ALIASES): void {
  for (const alias in aliases) {
    const canonical = aliases[alias]!;
    if (Object.hasOwn(body, alias) && known.has(canonical)) {
      if (!Object.hasOwn(body, canonical)) body[canonical] = body[alias];
      delete body[alias];
    }
  }
}

/** Keys the schema does not know: ignored, and reported so a typo is visible. */
export function unknownKeys(body: Record<string, unknown>, known: ReadonlySet<string>, aliases: Record<string, string> = ALIASES): string[] {
  return Object.keys(body).filter((k) => !known.has(k) && !Object.hasOwn(aliases, k));
}

/**
 * A request body as every route with a JSON object body reads it, before its schema is checked:
 * a JSON object of bounded nesting and finite numbers, aliased keys moved to their canonical name,
 * and the keys the schema does not know (ignored, to be named in IGNORED_KEYS_HEADER).
 */
export function readObjectBody(
  raw: unknown,
  known: ReadonlySet<string>,
  example = '{"text": "..."}',
  aliases: Record<string, string> = ALIASES,
): { body: Record<string, unknown>; ignored: string[] } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw validationError(['body'], `The request body must be a JSON object, e.g. ${example}.`, 'model_attributes_type');
  }
  const body = raw as Record<string, unknown>;
  checkJsonShape(body);
  applyAliases(body, known, aliases);
  return { body, ignored: unknownKeys(body, known, aliases) };
}

/** The response header naming a body's ignored keys. */
export const IGNORED_KEYS_HEADER = 'X-Chunkd-Ignored-Keys';
/** Longest IGNORED_KEYS_HEADER value: a body may hold any number of keys of any length. */
export const IGNORED_KEYS_HEADER_MAX = 1024;

/**
 * Ignored keys as a header value: keys are client text, and a header carries only visible ASCII
 * (a CR, LF or NUL would split or break the response, a non-Latin-1 character is refused by
 * Node). Every other byte of a key's UTF-8, and `%` and `,` (the escape and the separator), is
 * percent-encoded; past IGNORED_KEYS_HEADER_MAX characters the rest are counted, not listed.
 */
export function ignoredKeysHeader(keys: readonly string[]): string {
  const room = IGNORED_KEYS_HEADER_MAX - 24; // what the note counting the rest takes
  let out = '';
  for (const [i, key] of keys.entries()) {
    const item = (i ? ', ' : '') + headerSafe(key);
    if (out.length + item.length > room) return `${out}${i ? ', ' : ''}... (${keys.length - i} more)`;
    out += item;
  }
  return out;
}

const UTF8 = new TextEncoder();
const headerSafe = (key: string) =>
  key.replace(/[^\x21-\x24\x26-\x2b\x2d-\x7e]+/g, (run) => Array.from(UTF8.encode(run), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));

export interface ParsedRequest {
  /** `text` for chunkers, `chunks` for refineries. */
  input: unknown;
  config: Record<string, unknown>;
  unit: OffsetUnit;
  returnType: 'chunks' | 'texts';
  /** Body keys the plugin does not know (ignored). */
  ignored: string[];
}

/** Validate a request body against the plugin's compiled schema and split it into input and config. */
export function parseRequest(plugin: Plugin, raw: unknown): ParsedRequest {
  const { body, ignored } = readObjectBody(raw, plugin.knownKeys, plugin.kind === 'refinery' ? '{"chunks": [...]}' : '{"text": "..."}', plugin.aliases);
  plugin.validateBody(body);
  const config: Record<string, unknown> = {};
  for (const key of plugin.configKeys) config[key] = body[key];
  return {
    input: plugin.kind === 'refinery' ? body.chunks : body.text,
    config,
    unit: (body.offset_unit as OffsetUnit | undefined) ?? 'codepoint',
    returnType: (body.return_type as 'chunks' | 'texts' | undefined) ?? 'chunks',
    ignored,
  };
}

/** Validate a stored config (a pipeline step): unknown keys are refused there, since nobody would see them. */
export function parseConfig(plugin: Plugin, raw: unknown, loc: (string | number)[]): Record<string, unknown> {
  const config = structuredClone(raw ?? {}) as Record<string, unknown>;
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw validationError(loc, 'config must be a JSON object.', 'dict_type');
  applyAliases(config, plugin.knownKeys, plugin.aliases);
  return plugin.validateConfig(config, loc);
}

/** A refinery's input as lists: a list of lists is a batch, a flat list of chunks one list. A mix is refused. */
export function chunkLists(input: (Chunk | Chunk[])[]): { nested: boolean; lists: Chunk[][] } {
  const nested = input.length > 0 && Array.isArray(input[0]);
  input.forEach((item, i) => {
    if (Array.isArray(item) !== nested) throw validationError(['body', 'chunks', i], 'Send either a list of chunks or a list of lists of chunks, not a mix.');
  });
  return { nested, lists: (nested ? input : [input]) as Chunk[][] };
}
