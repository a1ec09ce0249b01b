/**
 * Adversarial chef and evaluation requests (issue 30, rows 1, 2, 3 and 5; row 4's patterns are
 * measured too): a chef's structure blown up by a small text, the same stored by an upload and
 * read by reference, a process step as a job's, an NDJSON run's and an evaluation's first step,
 * and an evaluation whose retrieval would be enormous. Each is sent while /health is polled every
 * 10 ms from a separate process and the server's RSS is read; targets: /health < 100 ms, RSS < 1 GB.
 */
import type { CustomSuite, Section } from '../harness.js';
import { startBuiltChunkd, type BenchServer } from '../servers/spawn.js';
import { outcomeChecks, outcomeTable, uploadAttack, uploadFile, type UploadAttack, type UploadOutcome } from './adversarial.js';

const HEADINGS = '#\n'.repeat(2_000_000); // 4 MB: two million empty headings
const json = { 'content-type': 'application/json' };

async function post(server: BenchServer, path: string, body: unknown, headers: Record<string, string> = json): Promise<number> {
  const res = await fetch(server.url + path, { method: 'POST', headers, body: JSON.stringify(body) }).catch(() => undefined);
  await res?.arrayBuffer().catch(() => undefined);
  return res?.status ?? 0;
}

/** A job's final state: 413 when its document failed (its line says why), 200 when it was answered. */
async function job(server: BenchServer, body: unknown): Promise<number> {
  const res = await fetch(`${server.url}/v1/jobs`, { method: 'POST', headers: json, body: JSON.stringify(body) });
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    await new Promise((w) => setTimeout(w, 100));
    const j = (await (await fetch(`${server.url}/v1/jobs/${id}`)).json()) as { status: string; documents: { failed: number } };
    if (j.status !== 'queued' && j.status !== 'running') return j.documents.failed ? 413 : 200;
  }
}

const row = (label: string, bytes: number, send: (server: BenchServer) => Promise<string>, ok: (status: string) => boolean): UploadAttack => ({
  label,
  async prepare() {
    return async (server) => {
      const status = await send(server);
      return { status, bytes, ok: ok(status) };
    };
  },
});

const processThenChunk = [
  { type: 'process', chef: 'markdown', config: {} },
  { type: 'chunk', chunker: 'recursive', config: {} },
];
const fine = (s: string) => s.split(/[ ,;]+/).every((x) => !/^5/.test(x) && x !== '0');

const ROWS = (): UploadAttack[] => [
  row('1. process/markdown: "#\\n" × 2,000,000 (4 MB)', HEADINGS.length, async (s) => String(await post(s, '/v1/process/markdown', { text: HEADINGS })), fine),
  row(
    '2. upload 8 MB of empty headings, then process and chunk it by file reference',
    8e6,
    async (s) => {
      const up = await fetch(`${s.url}/v1/files`, {
        method: 'POST',
        body: (() => {
          const f = new FormData();
          f.append('file', new Blob(['#\n'.repeat(4_000_000)]), 'headings.md');
          return f;
        })(),
      });
      const { name } = (await up.json()) as { name: string };
      // A file reference is an object, as Chonkie's clients send it (a bare name is a 422, which measured nothing).
      const file = { type: 'document', content: name };
      const processed = await post(s, '/v1/process/markdown', { file });
      const chunked = await post(s, '/v1/chunk/recursive', { file });
      return `upload ${up.status}, process ${processed}, chunk ${chunked}`;
    },
    fine,
  ),
  row(
    '3a. job: process (markdown) then chunk, 4 MB of headings',
    HEADINGS.length,
    async (s) => String(await job(s, { steps: processThenChunk, documents: [{ text: HEADINGS }] })),
    fine,
  ),
  row(
    '3b. NDJSON pipeline run: process (markdown) then chunk, 4 MB of headings',
    HEADINGS.length,
    async (s) => {
      const created = await fetch(`${s.url}/v1/pipelines`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ name: `headings-${Date.now()}`, steps: processThenChunk }),
      });
      const { id } = (await created.json()) as { id: string };
      return String(await post(s, `/v1/pipelines/${id}/execute`, { text: [HEADINGS] }, { ...json, accept: 'application/x-ndjson' }));
    },
    fine,
  ),
  row(
    '3c. evaluate: a process (markdown) candidate on 4 MB of headings',
    HEADINGS.length,
    async (s) =>
      String(
        await post(s, '/v1/evaluate', {
          documents: [{ id: 'h', text: HEADINGS }],
          questions: [{ question: 'x', references: [{ document: 'h', start_index: 0, end_index: 1 }] }],
          candidates: [processThenChunk],
          k: [5],
        }),
      ),
    fine,
  ),
  row(
    '4. process/markdown: "```" + "a" × 200,000 + "`"',
    200_004,
    async (s) => String(await post(s, '/v1/process/markdown', { text: '```' + 'a'.repeat(200_000) + '`' })),
    fine,
  ),
  row(
    '5. evaluate: 300 KB document, 1,000 questions, k [100000], detail',
    300_000,
    async (s) =>
      String(
        await post(s, '/v1/evaluate', {
          documents: [{ id: 'd', text: 'ab '.repeat(100_000) }],
          questions: Array.from({ length: 1_000 }, (_, i) => ({ question: `ab ${i}`, references: [{ document: 'd', start_index: 0, end_index: 2 }] })),
          candidates: [[{ type: 'chunk', chunker: 'token', config: { chunk_size: 1 } }]],
          k: [100_000],
          detail: true,
        }),
      ),
    (st) => st === '413',
  ),
];

export const adversarialChefsSuite: CustomSuite = {
  kind: 'custom',
  name: 'adversarial-chefs',
  title: 'Adversarial chef and evaluation requests: every step kind under the runner',
  async run(): Promise<Section> {
    const outcomes: UploadOutcome[] = [];
    const only = process.env.CHUNKD_BENCH_ROWS;
    // Each row on a fresh server, as `npm start` runs it (built), as the rows were first found: what
    // one request does, not what the rows before it left in the heap.
    for (const a of ROWS().filter((r) => !only || r.label.includes(only))) {
      const server = await startBuiltChunkd(['2']);
      try {
        await uploadFile(server, '# warm\n', 'warm.md');
        outcomes.push(await uploadAttack(server, a));
      } finally {
        await server.stop();
      }
    }
    const body = [
      "Each row sends its request(s) to a fresh real server (built, as `npm start` runs it; default settings, `--workers 2`) while GET /health is polled every 10 ms from a separate process; **RSS peak** is the server process (worker threads included) read from /proc at each poll. Row numbers are those of issue 30's table. A 413 names its setting (--max-output-bytes, --max-eval-retrieved, --max-extract-ms); a 200 on row 1 is the document with its headings past --max-structure-spans counted in metadata.dropped_spans.",
      '',
      outcomeTable('request', outcomes),
    ].join('\n');
    return { title: this.title, body, checks: outcomeChecks('chef or evaluation request', outcomes, '(no 5xx; row 5: a 413 before any chunking)') };
  },
};
