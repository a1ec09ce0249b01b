/** The overlap refinery over the token chunker's chunks: what adding context costs per MB of input. */
import { chunksOf, missingPlugin, ourRefinery } from '../chunkd.js';
import { size } from '../cases.js';
import { prose } from '../corpora.js';
import { utf8Bytes, type Case, type Options, type ThroughputSuite } from '../harness.js';
import { fmtSize } from '../table.js';

const CHUNKS = { tokenizer: 'cl100k_base', chunk_size: 512 };

const refine = (o: Options, id: string, config: Record<string, unknown>): Case => ({
  id,
  label: `chunkd overlap (${Object.entries(config)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ')})`,
  role: 'ours',
  job: `${CHUNKS.tokenizer} chunks of ${CHUNKS.chunk_size}`,
  missing: missingPlugin(o.plugins, 'overlap') ?? missingPlugin(o.plugins, 'token'),
  async prepare() {
    const text = prose(size(o, 1e6));
    const lists = await chunksOf('token', CHUNKS, [text]);
    const run = await ourRefinery('overlap', config);
    return { bytes: utf8Bytes(text), run: () => run(lists) };
  },
});

export const overlapSuite: ThroughputSuite = {
  kind: 'throughput',
  name: 'overlap',
  title: 'Overlap refinery',
  about: (o) =>
    `The chunks of ${fmtSize(size(o, 1e6))} of prose (token chunker, ${CHUNKS.tokenizer}, chunk_size ${CHUNKS.chunk_size}; made before timing) refined with context from their neighbours; MB/s is per MB of the original text. No peer: LangChain and chonkiejs build overlap into their chunkers rather than offering it as a separate step.`,
  cases: (o: Options) => [refine(o, 'token-mode', { tokenizer: CHUNKS.tokenizer, context_size: 0.25 })],
  targets: [],
};
