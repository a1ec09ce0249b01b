import { ChunkdError } from '../errors.js';
import { unknownNameMessage } from '../suggest.js';
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

const cache = new Map<string, Promise<Tokenizer>>();

/** Encoders are built once per name and reused by every request. */
export function loadTokenizer(name: string): Promise<Tokenizer> {
  let t = cache.get(name);
  if (!t) {
    t = build(name);
    cache.set(name, t);
    t.catch(() => cache.delete(name));
  }
  return t;
}

async function build(name: string): Promise<Tokenizer> {
  if (name === 'character') return character;
  if (name === 'word') return word;
  if (name === 'byte') return byte;
  if ((TIKTOKEN_ENCODINGS as readonly string[]).includes(name)) return tiktoken(name as TiktokenEncoding);
  if (looksLikePath(name)) {
    const t = await loadHfTokenizer(name);
    if (t) return t;
    throw new ChunkdError('BAD_REQUEST', `Cannot load tokenizer from '${name}': expected a Hugging Face tokenizer.json file (or a directory holding one).`);
  }
  throw new ChunkdError('BAD_REQUEST', `${unknownNameMessage('tokenizer', name, TOKENIZER_NAMES)} A path to a Hugging Face tokenizer.json also works.`);
}

const looksLikePath = (name: string) => name.includes('/') || name.includes('\\') || name.endsWith('.json');
