import { ChunkdError } from '../errors.js';
import { byteEndsToUtf16 } from './utf8.js';

/** The WASM encoder's calls the cache needs. */
export interface Encoder {
  encode_ordinary(text: string): Uint32Array;
}

/** Pieces longer than this are encoded but not remembered: long runs rarely repeat. */
const MAX_PIECE = 64;
/** Entries kept before the cache starts over: bounded memory, ~33 MB of heap measured for 99k short pieces. */
const MAX_ENTRIES = 100_000;
/**
 * Pieces longer than this (UTF-16 units) are merged by `long` (bpe-merge.ts, O(n log n)) instead
 * of the WASM encoder, whose merge is quadratic in a piece's length (~0.4 s for 10,000 × 'a',
 * 10 s for 100,000; it aborts on longer ones). Below it the encoder takes well under a millisecond.
 */
export const LONG_PIECE = 512;
/** Long pieces remembered (the most recent): a few, since each may be megabytes. */
const RECENT_LONG = 4;

/**
 * Exact BPE with a cache of pieces: the text is split with the encoding's own pattern (translated
 * in pieces.ts), each piece's token ends are looked up, and only pieces never seen before go to
 * the WASM encoder. Words repeat, so most of a text costs a regex match and a map lookup.
 *
 * A piece is encoded alone only when the pattern, run on that piece alone, gives the piece back
 * whole: then the encoder's own split of it is the piece itself and its tokens are the piece's
 * BPE. Anything unexpected (a gap between matches, a piece that would split differently alone,
 * a character whose Unicode class this engine may see differently from the encoder's: `drift`)
 * sends the whole text to the encoder instead, so the answer is always the encoder's.
 */
export class PieceCache {
  private readonly cache = new Map<string, Uint32Array>();
  private readonly recentLong = new Map<string, Uint32Array>();
  private readonly whole: RegExp;

  constructor(
    private readonly enc: Encoder,
    private readonly pattern: RegExp,
    private readonly byteLength: (id: number) => number,
    private readonly drift: RegExp | undefined,
    /** Byte end of each token of one long piece (the same tokens as the encoder's). */
    private readonly long?: (piece: string) => Uint32Array,
    private readonly name = 'BPE',
  ) {
    this.whole = new RegExp(pattern.source, 'uy');
  }

  /** UTF-16 end offset of every token of `text` (snapped to code points), as the encoder gives them. */
  ends(text: string): Uint32Array {
    return this.walk(text, true) ?? this.encoderEnds(this.guarded(text));
  }

  count(text: string): number {
    const pieces = this.walk(text, false);
    return pieces ? pieces[0]! : this.enc.encode_ordinary(this.guarded(text)).length;
  }

  /**
   * A text the encoder must take whole: refused when one of its pieces is long, since the
   * encoder would take seconds (or abort) on it and only the encoder's split is exact here.
   */
  private guarded(text: string): string {
    if (text.length <= LONG_PIECE) return text;
    const { pattern } = this;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      if (m[0].length > LONG_PIECE) {
        throw new ChunkdError(
          'BAD_REQUEST',
          `Cannot count ${this.name} tokens of this text in bounded time: it holds a run of ${m[0].length} characters without a break (a space or punctuation) ` +
            `and also characters whose Unicode class tiktoken's tables see differently from this server's (characters assigned in a recent Unicode version), ` +
            `so only tiktoken's own encoder is exact and it is quadratic in a run's length. Break runs longer than ${LONG_PIECE} characters, or leave those characters out.`,
        );
      }
    }
    return text;
  }

  /** Ends (or, when `withEnds` is false, a one-element count) from the pieces; undefined: ask the encoder. */
  private walk(text: string, withEnds: boolean): Uint32Array | undefined {
    if (this.drift?.test(text)) return undefined;
    const { pattern } = this;
    let out: Uint32Array | undefined = withEnds ? new Uint32Array(Math.max(16, text.length)) : undefined;
    let n = 0;
    let pos = 0;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      if (m.index !== pos) return undefined;
      const piece = m[0];
      const rel = this.cache.get(piece) ?? this.learn(piece);
      if (!rel) return undefined;
      if (out) {
        if (n + rel.length > out.length) out = grow(out, n + rel.length);
        for (let k = 0; k < rel.length; k++) out[n + k] = pos + rel[k]!;
      }
      n += rel.length;
      pos += piece.length;
    }
    if (pos !== text.length) return undefined;
    return out ? out.slice(0, n) : Uint32Array.of(n);
  }

  /** Token ends of one piece, relative to its start; undefined when the piece would split again alone. */
  private learn(piece: string): Uint32Array | undefined {
    if (piece.length > LONG_PIECE && this.long) return this.longEnds(piece);
    this.whole.lastIndex = 0;
    const again = this.whole.exec(piece);
    if (!again || again[0].length !== piece.length) return undefined;
    const rel = this.encoderEnds(piece);
    if (piece.length <= MAX_PIECE) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(piece, rel);
    }
    return rel;
  }

  /**
   * A long piece, merged in O(n log n) and remembered among the last few: chunkers that count
   * overlapping spans of one text meet the same long run again, and should not merge it again.
   */
  private longEnds(piece: string): Uint32Array | undefined {
    const known = this.recentLong.get(piece);
    if (known) return known;
    this.whole.lastIndex = 0;
    const again = this.whole.exec(piece);
    if (!again || again[0].length !== piece.length) return undefined;
    const rel = byteEndsToUtf16(piece, this.long!(piece));
    if (this.recentLong.size >= RECENT_LONG) this.recentLong.delete(this.recentLong.keys().next().value!);
    this.recentLong.set(piece, rel);
    return rel;
  }

  private encoderEnds(text: string): Uint32Array {
    const ids = this.enc.encode_ordinary(text);
    const byteEnds = new Uint32Array(ids.length);
    let b = 0;
    for (let k = 0; k < ids.length; k++) byteEnds[k] = b += this.byteLength(ids[k]!);
    return byteEndsToUtf16(text, byteEnds);
  }
}

function grow(a: Uint32Array, need: number): Uint32Array {
  const b = new Uint32Array(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}
