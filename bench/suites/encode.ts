/** Tokenizer encode speed: the floor of every token-aware chunker, and what our offset mapping adds to it. */
import { floor, peer, size } from '../cases.js';
import { prose } from '../corpora.js';
import type { Case, Options, ThroughputSuite } from '../harness.js';
import { wasmEncoder } from '../peers/encoders.js';
import { fmtSize } from '../table.js';
import { loadTokenizer } from '../../kernel/tokenizers/index.js';
import { PieceCache } from '../../kernel/tokenizers/piece-cache.js';
import { patStrOf, piecePattern } from '../../kernel/tokenizers/pieces.js';
import { driftPattern } from '../../kernel/tokenizers/unicode-drift.js';

const BPE = ['cl100k_base', 'o200k_base'];
const SIMPLE = ['character', 'word', 'byte'];

export const encodeSuite: ThroughputSuite = {
  kind: 'throughput',
  name: 'encode',
  title: 'Tokenizers',
  about: (o) =>
    `${fmtSize(size(o, 1e6))} of English prose. "raw tiktoken encode" is \`encode_ordinary\` of the WASM tiktoken chunkd uses; "chunkd tokenizer" is the kernel's \`ends()\`: the same tokens and the UTF-16 end offset of every token, which is what the chunkers consume, from the WASM encoder through a cache of pre-tokenized pieces (a server keeps it between requests; the runs repeat one text, so its rows show a warm cache, and the "emptied" rows the first sight of a text); js-tiktoken is the pure-JS encoder LangChain.js ships with.`,
  cases(o: Options) {
    const text = () => [prose(size(o, 1e6))];
    const ends = (name: string) => async () => {
      const t = await loadTokenizer(name);
      return (s: string) => (t.ends(s), 0);
    };
    // The tokenizer's piece cache starts empty for every text: the first sight of a text, no word seen before.
    const cold = (name: string) => async () => {
      const enc = wasmEncoder(name);
      const pattern = piecePattern(patStrOf(name));
      const drift = driftPattern();
      const lengthOf = (id: number) => enc.decode_single_token_bytes(id).length;
      return (s: string) => (new PieceCache(enc, pattern, lengthOf, drift).ends(s), 0);
    };
    const cases: Case[] = [];
    for (const name of BPE) {
      cases.push(
        { ...floor(`ends-${name}`, `chunkd tokenizer ${name}`, name, text, ends(name)), role: 'ours' },
        { ...floor(`cold-${name}`, `chunkd tokenizer ${name}, piece cache emptied before each run`, name, text, cold(name)), role: 'ours' },
        floor(`raw-${name}`, `raw tiktoken encode ${name}`, name, text, async () => {
          const enc = wasmEncoder(name);
          return (s) => (enc.encode_ordinary(s), 0);
        }),
        peer(`js-${name}`, `js-tiktoken encode ${name}`, name, text, async () => {
          const { getEncoding } = await import('js-tiktoken');
          const enc = getEncoding(name as 'cl100k_base');
          return (s) => (enc.encode(s), 0);
        }),
      );
    }
    for (const name of SIMPLE) cases.push({ ...floor(`ends-${name}`, `chunkd tokenizer ${name}`, name, text, ends(name)), role: 'ours' });
    return cases;
  },
  targets: [],
};
