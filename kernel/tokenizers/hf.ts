import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_JSON_BYTES, readModelFile, resolveModelPath } from '../model-files.js';
import { alignTokens } from './align.js';
import type { Tokenizer } from './tokenizer.js';
import { byteEndsToUtf16 } from './utf8.js';
import { fastWordLevel, type WordLevelJson } from './word-level.js';

/** A Hugging Face tokenizer.json as chunkd uses it: counting (no special tokens) plus ids for models. */
export interface HfTokenizer extends Tokenizer {
  /** Token ids of `text` (special tokens added when the model's post-processor adds them and `special` is true). */
  ids(text: string, special?: boolean): number[];
  /** Id of the unknown token, if the vocabulary has one. */
  readonly unkId: number | undefined;
  /** Id used to pad batches (tokenizer.json `padding.pad_id`, else 0). */
  readonly padId: number;
  /** `truncation.max_length` when the file sets one. */
  readonly maxLength: number | undefined;
}

interface TokenizerJson {
  model?: { type?: string; unk_token?: string; continuing_subword_prefix?: string | null; end_of_word_suffix?: string | null; vocab?: unknown };
  added_tokens?: { id: number; content: string; special?: boolean }[];
  pre_tokenizer?: unknown;
  decoder?: unknown;
  padding?: { pad_id?: number } | null;
  truncation?: { max_length?: number } | null;
}

interface Encoder {
  encode(text: string, options?: { add_special_tokens?: boolean }): { ids: (number | null)[]; tokens: string[] };
  token_to_id(token: string): number | undefined;
}

/**
 * Load a tokenizer.json (or a directory holding one) with @huggingface/tokenizers, a pure-JS
 * synchronous implementation. Only files under the model roots are read (model-files.ts), within
 * MAX_JSON_BYTES. Undefined when the path gives no usable tokenizer, whatever the reason (missing,
 * outside the roots, not a regular file, too large, not JSON, no model, a model the library
 * rejects): callers answer one refusal, which tells a client nothing about the server's files.
 */
export async function loadHfTokenizer(path: string, options: { direct?: boolean } = {}): Promise<HfTokenizer | undefined> {
  const real = await resolveModelPath(path);
  if (!real) return undefined;
  const info = await stat(real).catch(() => undefined);
  const bytes = await readModelFile(info?.isDirectory() ? join(real, 'tokenizer.json') : real, MAX_JSON_BYTES);
  if (!bytes) return undefined;
  let json: TokenizerJson;
  try {
    json = JSON.parse(bytes.toString('utf8')) as TokenizerJson;
  } catch {
    return undefined;
  }
  if (!json || typeof json !== 'object' || !json.model || typeof json.model !== 'object') return undefined;
  const { Tokenizer: HF } = await import('@huggingface/tokenizers');
  // The library reads a WordLevel model's unknown token from the config, not from the model.
  const make = () => new HF(json, json.model!.type === 'WordLevel' ? { unk_token: json.model!.unk_token } : {}) as unknown as Encoder;
  const fast = options.direct === false ? undefined : fastWordLevel(json as WordLevelJson);
  // The direct path needs the library only for a text holding an added token: it is made then
  // (making it for the built-in model's 100,000 words is ~220 ms, in every process that embeds).
  let made: Encoder | undefined;
  if (!fast) {
    try {
      made = make();
      made.encode('a');
    } catch {
      return undefined;
    }
  }
  const library = () => (made ??= make());
  const unkId = json.model.unk_token === undefined ? undefined : fast ? fast.unkId : library().token_to_id(json.model.unk_token);
  const surface = surfaceOf(json);
  const byteLevel = JSON.stringify([json.pre_tokenizer, json.decoder]).includes('"ByteLevel"');
  const tokens = (text: string) => library().encode(text, { add_special_tokens: false }).tokens;
  return {
    name: path,
    unkId,
    padId: json.padding?.pad_id ?? 0,
    maxLength: json.truncation?.max_length,
    count: (text) => fast?.count(text) ?? tokens(text).length,
    ids: (text, special = false) =>
      fast?.tokens(text)?.ids ??
      library()
        .encode(text, { add_special_tokens: special })
        .ids.map((id) => id ?? unkId ?? 0),
    ends(text) {
      const direct = fast?.tokens(text);
      if (direct) return direct.ends;
      const toks = tokens(text);
      return (byteLevel && byteLevelEnds(text, toks)) || alignTokens(text, toks, surface);
    },
  };
}

/** The text a token stands for, before normalisation: subword markers and Metaspace removed. */
function surfaceOf(json: TokenizerJson): (token: string) => string {
  const special = new Set((json.added_tokens ?? []).filter((t) => t.special).map((t) => t.content));
  if (json.model?.unk_token) special.add(json.model.unk_token);
  const prefix = json.model?.continuing_subword_prefix ?? (json.model?.type === 'WordPiece' ? '##' : '');
  const suffix = json.model?.end_of_word_suffix ?? '';
  return (token) => {
    if (special.has(token) || /^<0x[0-9A-F]{2}>$/.test(token)) return ''; // matched by position, not by text
    let s = token;
    if (prefix && s.startsWith(prefix) && s.length > prefix.length) s = s.slice(prefix.length);
    if (suffix && s.endsWith(suffix) && s.length > suffix.length) s = s.slice(0, -suffix.length);
    return s.replaceAll('\u2581', ' ');
  };
}

/** GPT-2's byte ↔ printable-character table, used by every byte-level BPE tokenizer. */
const UNICODE_TO_BYTE = (() => {
  const map = new Map<string, number>();
  let n = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    map.set(String.fromCharCode(printable ? b : 256 + n++), b);
  }
  return map;
})();

/**
 * Byte-level tokens spell UTF-8 bytes, so their ends are exact byte offsets, snapped to code
 * points like tiktoken's. Undefined when the tokens do not spell the text's bytes (a normaliser
 * changed it): the caller aligns by text instead.
 */
function byteLevelEnds(text: string, tokens: string[]): Uint32Array | undefined {
  const byteEnds = new Uint32Array(tokens.length);
  let b = 0;
  for (let k = 0; k < tokens.length; k++) {
    for (const ch of tokens[k]!) {
      if (!UNICODE_TO_BYTE.has(ch)) return undefined;
      b++;
    }
    byteEnds[k] = b;
  }
  return b === Buffer.byteLength(text, 'utf8') ? byteEndsToUtf16(text, byteEnds) : undefined;
}
