/**
 * Adversarial requests (issue 13 §2): each small request that once froze the server is sent to a
 * real server (`chunkd serve`'s boot, default settings, 2 workers) while GET /health is polled
 * every 10 ms; reported: its status and duration, the server's worst event-loop delay
 * (perf_hooks.monitorEventLoopDelay, inside the server) and the slowest /health answer meanwhile.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { Readable } from 'node:stream';
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
  /** A request a string body cannot make (a stream that never ends): sends it, answers its status and the bytes sent. */
  send?: (server: BenchServer) => Promise<{ status: number; bytes: number }>;
}

/**
 * An upload whose body goes on after the closing boundary for as long as the server reads it
 * (4 GiB at most): the server must answer 413 once the whole body passes --max-file-bytes plus
 * framing, and read no further.
 */
function endlessMultipartTail(server: BenchServer): Promise<{ status: number; bytes: number }> {
  const B = 'benchboundary';
  const head = Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${B}--\r\n`);
  const tail = Buffer.alloc(64 * 1024, 'tail ');
  let sent = 0;
  let answered = false;
  const body = new Readable({
    read() {
      if (answered || sent > 4 * 1024 ** 3) return void this.push(null);
      const chunk = sent === 0 ? head : tail;
      sent += chunk.length;
      this.push(chunk);
    },
  });
  return new Promise((resolve) => {
    const req = request(`${server.url}/v1/files`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${B}`, 'transfer-encoding': 'chunked' } }, (res) => {
      answered = true;
      const bytes = sent;
      res.resume();
      res.on('end', () => (req.destroy(), resolve({ status: res.statusCode!, bytes })));
    });
    req.on('error', () => (answered ? undefined : resolve({ status: 0, bytes: sent })));
    body.pipe(req);
  });
}

/** The server process's resident memory now, in bytes (Linux /proc; 0 elsewhere). */
function rssOf(pid: number | undefined): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
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

const ATTACKS = (quick: boolean): Attack[] => [
  { label: 'no request (noise floor: 1 s of /health polls alone)', method: 'GET', path: '', body: () => '' },
  { label: 'refine: 30,000 bad chunks (60 KB)', method: 'POST', path: '/v1/refine/overlap', body: () => JSON.stringify({ chunks: Array.from({ length: 30_000 }, () => 1) }) },
  { label: 'semantic: similarity_window 7500 on 60 KB (refused: max 64)', method: 'POST', path: '/v1/chunk/semantic', body: () => JSON.stringify({ text: prose60k(), similarity_window: 7500 }) },
  { label: 'semantic: similarity_window 64 on 60 KB', method: 'POST', path: '/v1/chunk/semantic', body: () => JSON.stringify({ text: prose60k(), similarity_window: 64, min_characters_per_sentence: 1 }) },
  { label: `token cl100k_base: ${quick ? '6K' : '60K'} random letters`, method: 'POST', path: '/v1/chunk/token', body: () => JSON.stringify({ text: letters(quick ? 6_000 : 60_000), tokenizer: 'cl100k_base' }) },
  { label: `token cl100k_base: ${quick ? '100,000' : '1,000,000'} × "a"`, method: 'POST', path: '/v1/chunk/token', body: () => JSON.stringify({ text: 'a'.repeat(quick ? 100_000 : 1_000_000), tokenizer: 'cl100k_base' }) },
  { label: 'pipeline create: 200,000 delimiters (refused: max 64)', method: 'POST', path: '/v1/pipelines', body: () => JSON.stringify({ name: 'many', steps: [{ type: 'chunk', chunker: 'sentence', config: { delim: Array.from({ length: 200_000 }, (_, i) => `q${i}`) } }] }) },
  { label: 'pipeline execute: 64 delimiters on 60 KB', method: 'POST', path: manyDelimiterPipeline, body: () => JSON.stringify({ text: prose60k() }) },
  { label: 'body nested 20,000 levels deep', method: 'POST', path: '/v1/chunk/token', body: () => `{"text": ${'['.repeat(20_000)}${']'.repeat(20_000)}}` },
  { label: 'endless multipart tail (upload that never ends after its closing boundary)', method: 'POST', path: '/v1/files', body: () => '', send: endlessMultipartTail },
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
  rssMaxBytes: number;
}

async function attack(server: BenchServer, a: Attack): Promise<Outcome> {
  const path = typeof a.path === 'string' ? a.path : await a.path(server);
  let body = a.body();
  for (let i = 0; i < 3; i++) await fetch(`${server.url}/health`).then((r) => r.arrayBuffer());
  server.reset();
  let done = false;
  let bytes = Buffer.byteLength(body);
  let rssMaxBytes = rssOf(server.child.pid);
  const began = performance.now();
  const answer = a.send
    ? a.send(server).then((r) => ((bytes = r.bytes), r.status))
    : path
      ? fetch(server.url + path, { method: a.method, headers: { 'content-type': 'application/json' }, body }).then(async (r) => (await r.arrayBuffer(), r.status), () => 0)
      : new Promise<number>((r) => setTimeout(() => r(200), 1000));
  const sent = answer.finally(() => (done = true));
  body = ''; // not kept alive by this closure while the server works
  const polls: number[] = [];
  while (!done) {
    const t = performance.now();
    await fetch(`${server.url}/health`).then((r) => r.arrayBuffer(), () => undefined);
    polls.push(performance.now() - t);
    rssMaxBytes = Math.max(rssMaxBytes, rssOf(server.child.pid));
    await new Promise((r) => setTimeout(r, 10));
  }
  const status = await sent;
  const seconds = (performance.now() - began) / 1e3;
  const { delay } = await server.stats();
  return { label: a.label, bytes, status, seconds, healthPolls: polls.length, healthMaxMs: Math.max(0, ...polls), loopMaxMs: delay.maxMs, loopP99Ms: delay.p99Ms, rssMaxBytes };
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
      // CHUNKD_BENCH_ROWS=<text>: only the rows whose label holds it (and the noise floor), to measure one row on a shared machine.
      const only = process.env.CHUNKD_BENCH_ROWS;
      const rows = ATTACKS(o.quick).filter((a, i) => i === 0 || !only || a.label.includes(only));
      for (const a of rows) outcomes.push(await attack(server, a));
    } finally {
      await server.stop();
    }
    const body = [
      `Each request below is sent alone to a real server (default settings, \`--workers 2\`) while GET /health is polled every 10 ms. **loop delay** is the server's worst event-loop delay during the request (perf_hooks.monitorEventLoopDelay, 5 ms resolution): the time any other client would have waited. A 4xx is the request refused up front (a schema maximum, the nesting limit). The first row, with no request, is the machine's own noise floor: on a loaded machine every figure includes it.`,
      '',
      table(
        ['request', 'body', 'status', 'time (s)', '/health polls', '/health max (ms)', 'loop delay p99 (ms)', 'loop delay max (ms)', 'server RSS max'],
        outcomes.map((r) => [r.label, fmtSize(r.bytes), r.status, num(r.seconds), r.healthPolls, num(r.healthMaxMs), num(r.loopP99Ms), num(r.loopMaxMs), r.rssMaxBytes ? fmtSize(r.rssMaxBytes) : 'n/a']),
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
    const tail = outcomes.find((r) => r.label.startsWith('endless multipart tail'));
    if (tail) {
      checks.push({
        what: 'an endless multipart tail is cut off: /health < 100 ms and server RSS < 1 GB meanwhile',
        measured: `413 after ${fmtSize(tail.bytes)} sent; /health worst ${num(tail.healthMaxMs)} ms; RSS max ${fmtSize(tail.rssMaxBytes)}`,
        met: tail.status === 413 && tail.healthMaxMs < 100 && tail.rssMaxBytes < 1e9,
        note: `noise floor (no request): /health worst ${num(outcomes[0]!.healthMaxMs)} ms`,
      });
    }
    return { title: this.title, body, checks };
  },
};
