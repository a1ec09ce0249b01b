/** The sentence chunker against chonkiejs' SentenceChunker. */
import { floor, ours, peer, size } from '../cases.js';
import { prose } from '../corpora.js';
import type { Options, ThroughputSuite } from '../harness.js';
import { chonkieTokenizer, wasmEncoder } from '../peers/encoders.js';
import { fmtSize } from '../table.js';

const CHUNK = 512;
const BPE = 'cl100k_base';

const chonkie = (tokenizer: unknown) => async () => {
  const { SentenceChunker } = await import('@chonkiejs/core');
  const c = await SentenceChunker.create({ tokenizer: tokenizer as never, chunkSize: CHUNK, chunkOverlap: 0 });
  return async (t: string) => (await c.chunk(t)).length;
};

export const sentenceSuite: ThroughputSuite = {
  kind: 'throughput',
  name: 'sentence',
  title: 'Sentence chunker',
  about: (o) =>
    `${fmtSize(size(o, 1e6))} of English prose, chunk_size ${CHUNK}, no overlap, default delimiters and minimum sentence length on both sides. With ${BPE}, chonkiejs gets a tokenizer on the WASM encoder chunkd uses.`,
  cases(o: Options) {
    const text = () => [prose(size(o, 1e6))];
    const job = `character, ${CHUNK}`;
    const bpeJob = `${BPE}, ${CHUNK}`;
    return [
      ours(o, 'ours-char', job, 'sentence', { chunk_size: CHUNK }, text),
      peer('chonkie-char', 'chonkiejs SentenceChunker', job, text, chonkie('character')),
      ours(o, 'ours-bpe', bpeJob, 'sentence', { tokenizer: BPE, chunk_size: CHUNK }, text),
      floor('encode', `raw tiktoken encode (${BPE})`, bpeJob, text, async () => {
        const enc = wasmEncoder(BPE);
        return (t) => (enc.encode_ordinary(t), 0);
      }),
      peer('chonkie-bpe', 'chonkiejs SentenceChunker', bpeJob, text, chonkie(chonkieTokenizer(BPE))),
    ];
  },
  targets: [
    { what: 'sentence (character) ≥ 1.5× chonkiejs SentenceChunker', ours: 'ours-char', ref: 'chonkie-char', min: 1.5 },
    { what: `sentence (${BPE}) ≥ 2× chonkiejs SentenceChunker`, ours: 'ours-bpe', ref: 'chonkie-bpe', min: 2 },
  ],
};
