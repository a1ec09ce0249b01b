/**
 * Adversarial requests (issue 13 §2): each small request that once froze the server is sent to a
 * real server (`chunkd serve`'s boot, default settings, 2 workers) while GET /health is polled
 * every 10 ms; reported: its status and duration, the server's worst event-loop delay
 * (perf_hooks.monitorEventLoopDelay, inside the server) and the slowest /health answer meanwhile.
 */
import { gzipSync } from 'node:zlib';
import type { Check, CustomSuite, Options, Section } from '../harness.js';
import { startServer, type BenchServer } from '../servers/spawn.js';
import { fmtSize, num, table } from '../table.js';

/** The worst event-loop delay any of these requests may cause. */
const LOOP_MS = 100;

interface Attack {
  label: string;
  method: string;
  /** Empty: no request, one second of /health polls alone (the machine's own noise floor). */
  path: string | ((server: BenchServer) => Promise<string>);
  body: () => string;
  /** Sent with `Accept: application/x-ndjson`: the stream is read to its end. */
  ndjson?: boolean;
  /** A job (POST /v1/jobs): done once the job is finished, polled every 100 ms. */
  job?: boolean;
}

/** Deterministic "random" lowercase letters: one long piece without spaces, the BPE worst case. */
const letters = (n: number) => {
  let x = 12345;
  let s = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += String.fromCharCode(97 + ((x >>> 16) % 26));
  }
  return s;
};
const prose60k = () => Array.from({ length: 6000 }, (_, i) => `word${i % 97} next${i % 13}.`).join(' ').slice(0, 60_000);

/** A stored pipeline whose sentence step has the most delimiters the schema allows. */
async function manyDelimiterPipeline(server: BenchServer): Promise<string> {
  const delim = Array.from({ length: 64 }, (_, i) => `d${i}x`);
  const res = await fetch(`${server.url}/v1/pipelines`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `delims-${Date.now()}`, steps: [{ type: 'chunk', chunker: 'sentence', config: { delim, min_characters_per_sentence: 0 } }] }) });
  const { id } = (await res.json()) as { id: string };
  return `/v1/pipelines/${id}/execute`;
}

/** The document runner's rows: `chunk_size: 1` makes ~100 bytes of JSON per character, the worst output per input. */
const abText = (mb: number) => 'ab '.repeat(Math.ceil((mb * 1e6) / 3)).slice(0, mb * 1e6);
const RUNNER_ATTACKS: Attack[] = [
  ...[1, 4, 10].map((mb) => ({ label: `NDJSON: token chunk_size 1 on ${mb} MB`, method: 'POST', path: '/v1/chunk/token', ndjson: true, body: () => JSON.stringify({ text: [abText(mb)], chunk_size: 1 }) })),
  ...[1, 6, 10].map((mb) => ({ label: `job: token chunk_size 1 on one ${mb} MB document`, method: 'POST', path: '/v1/jobs', job: true, body: () => JSON.stringify({ steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 1 } }], documents: [{ text: abText(mb) }] }) })),
];

const ATTACKS = (quick: boolean): Attack[] => [
  { label: 'no request (noise floor: 1 s of /health polls alone)', method: 'GET', path: '', body: () => '' },
  { label: 'refine: 30,000 bad chunks (60 KB)', method: 'POST', path: '/v1/refine/overlap', body: () => JSON.stringify({ chunks: Array.from({ length: 30_000 }, () => 1) }) },
  { label: 'semantic: similarity_window 7500 on 60 KB (refused: max 64)', method: 'POST', path: '/v1/chunk/semantic', body: () => JSON.stringify({ text: prose60k(), similarity_window: 7500 }) },
  { label: 'semantic: similarity_window 64 on 60 KB', method: 'POST', path: '/v1/chunk/semantic', body: () => JSON.stringify({ text: prose60k(), similarity_window: 64, min_characters_per_sentence: 1 }) },
  { label: `token cl100k_base: ${quick ? '6K' : '60K'} random letters`, method: 'POST', path: '/v1/chunk/token', body: () => JSON.stringify({ text: letters(quick ? 6_000 : 60_000), tokenizer: 'cl100k_base' }) },
  { label: `token cl100k_base: ${quick ? '100,000' : '1,000,000'} × "a"`, method: 'POST', path: '/v1/chunk/token', body: () => JSON.stringify({ text: 'a'.repeat(quick ? 100_000 : 1_000_000), tokenizer: 'cl100k_base' }) },
  { label: 'pipeline create: 200,000 delimiters (refused: max 64)', method: 'POST', path: '/v1/pipelines', body: () => JSON.stringify({ name: 'many', steps: [{ type: 'chunk', chunker: 'sentence', config: { delim: Array.from({ length: 200_000 }, (_, i) => `q${i}`) } }] }) },
  { label: 'pipeline execute: 64 delimiters on 60 KB', method: 'POST', path: manyDelimiterPipeline, body: () => JSON.stringify({ text: prose60k() }) },
  ...RUNNER_ATTACKS,
  { label: 'body nested 20,000 levels deep', method: 'POST', path: '/v1/chunk/token', body: () => `{"text": ${'['.repeat(20_000)}${']'.repeat(20_000)}}` },
];

interface Outcome {
  label: string;
  bytes: number;
  status: number;
  seconds: number;
  healthPolls: number;
  healthMaxMs: number;
  loopMaxMs: number;
  loopP99Ms: number;
  peakRssMb: number;
}

async function attack(server: BenchServer, a: Attack): Promise<Outcome> {
  const path = typeof a.path === 'string' ? a.path : await a.path(server);
  const body = a.body();
  for (let i = 0; i < 3; i++) await fetch(`${server.url}/health`).then((r) => r.arrayBuffer());
  server.reset();
  let done = false;
  const began = performance.now();
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(a.ndjson ? { accept: 'application/x-ndjson' } : {}) };
  const request = async (): Promise<number> => {
    const r = await fetch(server.url + path, { method: a.method, headers, body });
    if (!a.job) return (await r.arrayBuffer(), r.status);
    const { id } = (await r.json()) as { id: string };
    for (;;) {
      await new Promise((w) => setTimeout(w, 100));
      const job = (await (await fetch(`${server.url}/v1/jobs/${id}`)).json()) as { status: string; documents: { failed: number } };
      if (job.status !== 'queued' && job.status !== 'running') return job.documents.failed ? 413 : 200; // a failed document: its 413 line
    }
  };
  const sent = (path ? request().catch(() => 0) : new Promise<number>((r) => setTimeout(() => r(200), 1000))).finally(
    () => (done = true),
  );
  const polls: number[] = [];
  while (!done) {
    const t = performance.now();
    await fetch(`${server.url}/health`).then((r) => r.arrayBuffer(), () => undefined);
    polls.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
  const status = await sent;
  const seconds = (performance.now() - began) / 1e3;
  const { delay, peakRssMb } = await server.stats();
  return { label: a.label, bytes: Buffer.byteLength(body), status, seconds, healthPolls: polls.length, healthMaxMs: Math.max(0, ...polls), loopMaxMs: delay.maxMs, loopP99Ms: delay.p99Ms, peakRssMb };
}

export const adversarialSuite: CustomSuite = {
  kind: 'custom',
  name: 'adversarial',
  title: 'Adversarial requests: the event loop stays free',
  async run(o: Options): Promise<Section> {
    const server = await startServer('chunkd', ['2']);
    const outcomes: Outcome[] = [];
    try {
      // Warm the pool's plugins (first model loads are not what is measured).
      for (const [path, body] of [['/v1/chunk/semantic', { text: 'A b. C d. E f. G h.' }], ['/v1/chunk/token', { text: 'abc', tokenizer: 'cl100k_base' }]] as const) {
        await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify(body)) });
      }
      // CHUNKD_BENCH_ROWS=runner: the noise floor and the document runner's rows only.
      const rows = process.env.CHUNKD_BENCH_ROWS === 'runner' ? [ATTACKS(o.quick)[0]!, ...RUNNER_ATTACKS] : ATTACKS(o.quick);
      for (const a of rows) outcomes.push(await attack(server, a));
    } finally {
      await server.stop();
    }
    const body = [
      `Each request below is sent alone to a real server (default settings, \`--workers 2\`) while GET /health is polled every 10 ms. **loop delay** is the server's worst event-loop delay during the request (perf_hooks.monitorEventLoopDelay, 5 ms resolution): the time any other client would have waited. A 4xx is the request refused up front (a schema maximum, the nesting limit). The first row, with no request, is the machine's own noise floor: on a loaded machine every figure includes it.`,
      '',
      table(
        ['request', 'body', 'status', 'time (s)', '/health polls', '/health max (ms)', 'loop delay p99 (ms)', 'loop delay max (ms)', 'server RSS peak so far (MB)'],
        outcomes.map((r) => [r.label, fmtSize(r.bytes), r.status, num(r.seconds), r.healthPolls, num(r.healthMaxMs), num(r.loopP99Ms), num(r.loopMaxMs), num(r.peakRssMb)]),
      ),
    ].join('\n');
    const attacks = outcomes.slice(1);
    const worst = attacks.reduce((w, r) => (r.loopMaxMs > w.loopMaxMs ? r : w), attacks[0]!);
    const checks: Check[] = [
      {
        what: `no adversarial request delays the event loop by ${LOOP_MS} ms or more`,
        measured: `worst ${num(worst.loopMaxMs)} ms (${worst.label})`,
        met: attacks.every((r) => r.loopMaxMs < LOOP_MS && r.status > 0 && r.status < 500),
        note: `noise floor (no request): ${num(outcomes[0]!.loopMaxMs)} ms`,
      },
    ];
    return { title: this.title, body, checks };
  },
};
