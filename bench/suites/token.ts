/** The token chunker against raw tiktoken encode (its floor), LangChain's TokenTextSplitter and chonkiejs' TokenChunker. */
import { floor, ours, peer, size } from '../cases.js';
import { prose } from '../corpora.js';
import type { Options, ThroughputSuite } from '../harness.js';
import { fmtSize } from '../table.js';
import { chonkieTokenizer, langchainTokenizer, wasmEncoder } from '../peers/encoders.js';

const CHUNK = 512;
const BPE = 'cl100k_base';

export const tokenSuite: ThroughputSuite = {
  kind: 'throughput',
  name: 'token',
  title: 'Token chunker',
  about: (o) =>
    `${fmtSize(size(o, 1e6))} of English prose (nlp-corpus), chunk_size ${CHUNK}, no overlap. LangChain.js encodes ${BPE} with js-tiktoken, the pure-JS encoder it ships with (its ranks are loaded from the package: LangChain would download them); a second LangChain row is handed the WASM tiktoken encoder chunkd uses, which isolates the chunking around the encoder. chonkiejs has no offline ${BPE} of its own, so it gets the WASM encoder too. The floor is one \`encode_ordinary\` of the text. chunkd's tokenizer gives the same tokens through a cache of pre-tokenized pieces that a server keeps between requests: the runs repeat one text, so its row is the warm figure (the Tokenizers table shows the cache emptied before each run).`,
  cases(o: Options) {
    const text = () => [prose(size(o, 1e6))];
    const job = `${BPE}, ${CHUNK} tokens`;
    const charJob = `character, ${CHUNK} tokens`;
    return [
      ours(o, 'ours-bpe', job, 'token', { tokenizer: BPE, chunk_size: CHUNK }, text),
      floor('encode', `raw tiktoken encode (${BPE})`, job, text, async () => {
        const enc = wasmEncoder(BPE);
        return (t) => (enc.encode_ordinary(t), 0);
      }),
      peer('langchain-wasm-bpe', 'LangChain TokenTextSplitter (given our WASM encoder)', job, text, async () => {
        const { TokenTextSplitter } = await import('@langchain/textsplitters');
        const s = new TokenTextSplitter({ encodingName: BPE, chunkSize: CHUNK, chunkOverlap: 0 });
        (s as unknown as { tokenizer: unknown }).tokenizer = langchainTokenizer(BPE);
        return async (t) => (await s.splitText(t)).length;
      }),
      peer('langchain-bpe', 'LangChain TokenTextSplitter (js-tiktoken, as shipped)', job, text, async () => {
        const { TokenTextSplitter } = await import('@langchain/textsplitters');
        const { getEncoding } = await import('js-tiktoken');
        const s = new TokenTextSplitter({ encodingName: BPE, chunkSize: CHUNK, chunkOverlap: 0 });
        // LangChain would download the ranks; js-tiktoken ships them, so the same encoder runs offline.
        (s as unknown as { tokenizer: unknown }).tokenizer = getEncoding(BPE);
        return async (t) => (await s.splitText(t)).length;
      }),
      peer('chonkie-bpe', 'chonkiejs TokenChunker', job, text, async () => {
        const { TokenChunker } = await import('@chonkiejs/core');
        const c = await TokenChunker.create({ tokenizer: chonkieTokenizer(BPE) as never, chunkSize: CHUNK, chunkOverlap: 0 });
        return async (t) => (await c.chunk(t)).length;
      }),
      ours(o, 'ours-char', charJob, 'token', { tokenizer: 'character', chunk_size: CHUNK }, text),
      peer('chonkie-char', 'chonkiejs TokenChunker', charJob, text, async () => {
        const { TokenChunker } = await import('@chonkiejs/core');
        const c = await TokenChunker.create({ tokenizer: 'character', chunkSize: CHUNK, chunkOverlap: 0 });
        return async (t) => (await c.chunk(t)).length;
      }),
    ];
  },
  targets: [
    { what: `token (${BPE}) ≥ 0.9× raw tiktoken encode`, ours: 'ours-bpe', ref: 'encode', min: 0.9 },
    { what: `token (${BPE}) ≥ 2× LangChain.js TokenTextSplitter`, ours: 'ours-bpe', ref: 'langchain-bpe', min: 2 },
    { what: `token (${BPE}) ≥ 2× chonkiejs TokenChunker`, ours: 'ours-bpe', ref: 'chonkie-bpe', min: 2 },
  ],
};
