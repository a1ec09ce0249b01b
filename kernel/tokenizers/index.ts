import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BoundedCache } from '../bounded-cache.js';
import { settingName } from '../caps.js';
import { ChunkdError } from '../errors.js';
import { settingOf } from '../host.js';
import { MAX_JSON_BYTES, modelFile, resolveModelPath } from '../model-files.js';
import { closest } from '../suggest.js';
import { byte } from './byte.js';
import { loadHfTokenizer } from './hf.js';
import { character } from './character.js';
import { TIKTOKEN_ENCODINGS, tiktoken, type TiktokenEncoding } from './bpe.js';
import type { Tokenizer } from './tokenizer.js';
import { word } from './word.js';

export type { Tokenizer } from './tokenizer.js';
export { countSpan, spanCounter, type SpanCounter, tokensIn, upperBound } from './tokenizer.js';
export { loadHfTokenizer, type HfTokenizer } from './hf.js';

export const TOKENIZER_NAMES: readonly string[] = ['character', 'word', 'byte', ...TIKTOKEN_ENCODINGS];

const builtIn = new Map<string, Promise<Tokenizer>>();

/** Tokenizers loaded from files, by canonical path: at most this many, and this many bytes of tokenizer.json. */
export const FILE_TOKENIZERS = { maxEntries: 16, maxBytes: 256 * 1024 ** 2 };
const fromFiles = new BoundedCache<Promise<Tokenizer>>(FILE_TOKENIZERS.maxEntries, FILE_TOKENIZERS.maxBytes);

/** Encoders are built once per name (a file once per canonical path) and reused by every request. */
export function loadTokenizer(name: string): Promise<Tokenizer> {
  if (BUILT_IN.has(name)) {
    let t = builtIn.get(name);
    if (!t) builtIn.set(name, (t = Promise.resolve(name).then(build)));
    return t;
  }
  return loadFile(name);
}

const BUILT_IN = new Set(TOKENIZER_NAMES);

function build(name: string): Tokenizer {
  if (name === 'character') return character;
  if (name === 'word') return word;
  if (name === 'byte') return byte;
  return tiktoken(name as TiktokenEncoding);
}

/**
 * Any other name is a tokenizer.json (or a directory holding one) under the model roots
 * (model-files.ts). Every failure is the same refusal: it depends on the name only, never on
 * what exists on the server's disk.
 */
async function loadFile(name: string): Promise<Tokenizer> {
  const real = await resolveModelPath(name);
  const info = real ? await stat(real).catch(() => undefined) : undefined;
  const file = real && info ? await modelFile(info.isDirectory() ? join(real, 'tokenizer.json') : real, MAX_JSON_BYTES) : undefined;
  if (!file) throw refusal(name);
  let t = fromFiles.get(file.path);
  if (!t) {
    t = loadHfTokenizer(file.path).then((x) => x ?? Promise.reject(refusal(name)));
    fromFiles.set(file.path, t, file.size);
    t.catch(() => fromFiles.delete(file.path));
  }
  return t.catch(() => Promise.reject(refusal(name)));
}

/** Test hook: how many file tokenizers are cached, and their bytes. */
export const fileTokenizerCache = () => ({ size: fromFiles.size, bytes: fromFiles.bytes });

function refusal(name: string): ChunkdError {
  const shown = name.length > 200 ? `${name.slice(0, 200)}…` : name;
  const guess = closest(name.slice(0, 200), TOKENIZER_NAMES);
  return new ChunkdError(
    'BAD_REQUEST',
    `Unknown tokenizer '${shown}': not a known name nor a tokenizer.json under the configured model roots.${guess ? ` Did you mean '${guess}'?` : ''} ` +
      `Valid: ${TOKENIZER_NAMES.join(', ')}, or a Hugging Face tokenizer.json (or a directory holding one): a regular file of at most ${MAX_JSON_BYTES / 1024 ** 2} MiB ` +
      `under ${settingName(settingOf('models-dir'))} or the Hugging Face cache, named by its path or by a path relative to one of them.`,
  );
}
