/** The recursive chunker against LangChain's RecursiveCharacterTextSplitter and chonkiejs' RecursiveChunker, on prose and on markdown. */
import { floor, ours, peer, size } from '../cases.js';
import { markdownDocs, prose } from '../corpora.js';
import type { Options, ThroughputSuite } from '../harness.js';
import { chonkieTokenizer, tokenLength, wasmEncoder } from '../peers/encoders.js';
import { fmtSize } from '../table.js';

const CHUNK = 512;
const BPE = 'cl100k_base';

const langchain =
  (length?: (t: string) => number, markdown = false) =>
  async () => {
    const { RecursiveCharacterTextSplitter, MarkdownTextSplitter } = await import('@langchain/textsplitters');
    const fields = { chunkSize: CHUNK, chunkOverlap: 0, ...(length ? { lengthFunction: length } : {}) };
    const s = markdown ? new MarkdownTextSplitter(fields) : new RecursiveCharacterTextSplitter(fields);
    return async (t: string) => (await s.splitText(t)).length;
  };

const chonkie = (tokenizer: unknown) => async () => {
  const { RecursiveChunker } = await import('@chonkiejs/core');
  const c = await RecursiveChunker.create({ tokenizer: tokenizer as never, chunkSize: CHUNK });
  return async (t: string) => (await c.chunk(t)).length;
};

export const recursiveSuite: ThroughputSuite = {
  kind: 'throughput',
  name: 'recursive',
  title: 'Recursive chunker',
  about: (o) =>
    `${fmtSize(size(o, 1e6))} of English prose (paragraphs of six sentences) and ${fmtSize(size(o, 1e6))} of READMEs from node_modules (each README chunked on its own), chunk_size ${CHUNK}, no overlap, default rules (chunkd's \`markdown\` recipe and LangChain's MarkdownTextSplitter for the READMEs). With the character tokenizer LangChain counts UTF-16 units (its default length function), chunkd and chonkiejs count code points. With ${BPE}, LangChain gets a token-counting length function and chonkiejs a tokenizer, both on the WASM encoder chunkd uses.`,
  cases(o: Options) {
    const text = () => [prose(size(o, 1e6))];
    const docs = () => markdownDocs(size(o, 1e6));
    const job = `prose, character, ${CHUNK}`;
    const bpeJob = `prose, ${BPE}, ${CHUNK}`;
    const mdJob = `markdown, character, ${CHUNK}`;
    return [
      ours(o, 'ours-char', job, 'recursive', { chunk_size: CHUNK }, text),
      peer('langchain-char', 'LangChain RecursiveCharacterTextSplitter', job, text, langchain()),
      peer('chonkie-char', 'chonkiejs RecursiveChunker', job, text, chonkie('character')),
      ours(o, 'ours-bpe', bpeJob, 'recursive', { tokenizer: BPE, chunk_size: CHUNK }, text),
      floor('encode', `raw tiktoken encode (${BPE})`, bpeJob, text, async () => {
        const enc = wasmEncoder(BPE);
        return (t) => (enc.encode_ordinary(t), 0);
      }),
      peer('langchain-bpe', 'LangChain RecursiveCharacterTextSplitter (token length)', bpeJob, text, langchain(tokenLength(BPE))),
      peer('chonkie-bpe', 'chonkiejs RecursiveChunker', bpeJob, text, chonkie(chonkieTokenizer(BPE))),
      ours(o, 'ours-md', mdJob, 'recursive', { recipe: 'markdown', chunk_size: CHUNK }, docs),
      peer('langchain-md', 'LangChain MarkdownTextSplitter', mdJob, docs, langchain(undefined, true)),
    ];
  },
  targets: [
    { what: 'recursive (character) ≥ 100 MB/s', ours: 'ours-char', min: 100 },
    { what: 'recursive (character) ≥ 2× LangChain.js RecursiveCharacterTextSplitter', ours: 'ours-char', ref: 'langchain-char', min: 2 },
    { what: `recursive (${BPE}) ≥ 0.8× raw tiktoken encode`, ours: 'ours-bpe', ref: 'encode', min: 0.8 },
  ],
};
