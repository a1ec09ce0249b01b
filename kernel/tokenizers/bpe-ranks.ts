import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * An encoding's mergeable ranks, keyed by the token's bytes as a Latin-1 string (one char per
 * byte: a byte slice of a piece is then a substring, and lookups hash short strings).
 */
export interface Ranks {
  readonly map: Map<string, number>;
  /** Longest token in bytes: a longer pair cannot be a token, so it is not looked up. */
  readonly maxBytes: number;
}

const require = createRequire(import.meta.url);
const loaded = new Map<string, Ranks>();

/**
 * The ranks shipped in the tiktoken package (`encoders/<name>.json`, field `bpe_ranks`: groups of
 * `! <first rank> <base64 token> <base64 token>…`, ranks consecutive within a group), parsed once
 * per encoding per thread, on first use: only texts with very long pieces need them. Measured
 * heap after GC (Node 20): ~6 MiB for cl100k_base, ~11 MiB for o200k_base.
 */
export function ranksOf(encoding: string): Ranks {
  let r = loaded.get(encoding);
  if (!r) {
    r = parse((JSON.parse(readFileSync(require.resolve(`tiktoken/encoders/${encoding}.json`), 'utf8')) as { bpe_ranks: string }).bpe_ranks);
    loaded.set(encoding, r);
  }
  return r;
}

export function parse(bpeRanks: string): Ranks {
  const map = new Map<string, number>();
  let maxBytes = 0;
  for (const line of bpeRanks.split('\n')) {
    if (!line) continue;
    const words = line.split(' ');
    const first = Number.parseInt(words[1]!, 10);
    for (let k = 2; k < words.length; k++) {
      const token = Buffer.from(words[k]!, 'base64').toString('latin1');
      map.set(token, first + k - 2);
      if (token.length > maxBytes) maxBytes = token.length;
    }
  }
  return { map, maxBytes };
}
