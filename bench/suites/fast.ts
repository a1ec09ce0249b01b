/** The fast chunker against @chonkiejs/chunk, Chonkie's own Rust core in WASM, on the same text with the same settings. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ours, peer, size } from '../cases.js';
import { prose } from '../corpora.js';
import type { Options, ThroughputSuite } from '../harness.js';
import { fmtSize } from '../table.js';

const SMALL = 512;

/** The WASM module, initialised from its file (its `init()` does the same in Node). */
async function wasm() {
  const mod = await import('@chonkiejs/chunk/pkg/chonkiejs_chunk.js');
  const require = createRequire(import.meta.url);
  mod.initSync({ module: readFileSync(require.resolve('@chonkiejs/chunk/pkg/chonkiejs_chunk_bg.wasm')) });
  return mod;
}

/** chonkiejs' string API: chunk texts out (encode, cut in WASM, decode each chunk), as its `chunk()` generator does. */
const chonkieTexts = (sizeBytes: number, delimiters: string) => async () => {
  const { chunk_offsets } = await wasm();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return (t: string) => {
    const bytes = encoder.encode(t);
    const flat = chunk_offsets(bytes, sizeBytes, delimiters, false, false, false);
    const texts: string[] = [];
    for (let i = 0; i < flat.length; i += 2) texts.push(decoder.decode(bytes.subarray(flat[i], flat[i + 1])));
    return texts.length;
  };
};

/** chonkiejs' offsets only (no chunk texts): its fastest call, the cut work alone. */
const chonkieOffsets = (sizeBytes: number, delimiters: string) => async () => {
  const { chunk_offsets } = await wasm();
  const encoder = new TextEncoder();
  return (t: string) => chunk_offsets(encoder.encode(t), sizeBytes, delimiters, false, false, false).length / 2;
};

export const fastSuite: ThroughputSuite = {
  kind: 'throughput',
  name: 'fast',
  title: 'Fast chunker',
  about: (o) =>
    `${fmtSize(size(o, 4e6))} of English prose (with some emoji and other non-ASCII text), Chonkie's defaults (4096 bytes, delimiters newline, period, question mark) and ${SMALL}-byte chunks with four delimiters (a lookup table in Chonkie's core). chunkd runs the kernel's whole path (chunk texts, ids, code-point offsets); the chonkiejs row does what its \`chunk()\` generator does for a string (encode, cut in WASM, decode each chunk to a string); the offsets-only row is its \`chunk_offsets\`, byte offsets and no texts.`,
  cases(o: Options) {
    const text = () => [prose(size(o, 4e6))];
    const job = 'defaults, 4096 bytes';
    const smallJob = `${SMALL} bytes, "\\n.?!"`;
    return [
      ours(o, 'ours', job, 'fast', {}, text),
      peer('chonkie', 'chonkiejs chunk (texts)', job, text, chonkieTexts(4096, '\n.?')),
      peer('chonkie-offsets', 'chonkiejs chunk_offsets (byte offsets only)', job, text, chonkieOffsets(4096, '\n.?')),
      ours(o, 'ours-small', smallJob, 'fast', { chunk_size: SMALL, delimiters: '\n.?!' }, text),
      peer('chonkie-small', 'chonkiejs chunk (texts)', smallJob, text, chonkieTexts(SMALL, '\n.?!')),
    ];
  },
  targets: [
    { what: 'fast ≥ 1.2× chonkiejs chunk (defaults)', ours: 'ours', ref: 'chonkie', min: 1.2 },
    { what: `fast ≥ 1.2× chonkiejs chunk (${SMALL} bytes)`, ours: 'ours-small', ref: 'chonkie-small', min: 1.2 },
  ],
};
