/**
 * Adversarial requests (issue 13 §2): each small request that once froze the server is sent to a
 * real server (`chunkd serve`'s boot, default settings, 2 workers) while GET /health is polled
 * every 10 ms; reported: its status and duration, the server's worst event-loop delay
 * (perf_hooks.monitorEventLoopDelay, inside the server) and the slowest /health answer meanwhile.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { createDeflate, gzipSync } from 'node:zlib';
import type { Check, CustomSuite, Options, Section } from '../harness.js';
import { startHealthPoller } from '../servers/health-poller.js';
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
    const req = request(
      `${server.url}/v1/files`,
      { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${B}`, 'transfer-encoding': 'chunked' } },
      (res) => {
        answered = true;
        const bytes = sent;
        res.resume();
        res.on('end', () => (req.destroy(), resolve({ status: res.statusCode!, bytes })));
      },
    );
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
const prose60k = () =>
  Array.from({ length: 6000 }, (_, i) => `word${i % 97} next${i % 13}.`)
    .join(' ')
    .slice(0, 60_000);

/** A stored pipeline whose sentence step has the most delimiters the schema allows. */
async function manyDelimiterPipeline(server: BenchServer): Promise<string> {
  const delim = Array.from({ length: 64 }, (_, i) => `d${i}x`);
  const res = await fetch(`${server.url}/v1/pipelines`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `delims-${Date.now()}`, steps: [{ type: 'chunk', chunker: 'sentence', config: { delim, min_characters_per_sentence: 0 } }] }),
  });
  const { id } = (await res.json()) as { id: string };
  return `/v1/pipelines/${id}/execute`;
}

/** The document runner's rows: `chunk_size: 1` makes ~100 bytes of JSON per character, the worst output per input. */
const abText = (mb: number) => 'ab '.repeat(Math.ceil((mb * 1e6) / 3)).slice(0, mb * 1e6);

/**
 * A request sent with `Accept: application/x-ndjson` (the stream read to its end), or a job
 * (POST /v1/jobs, then its status polled every 100 ms until it finishes: 413 when its document
 * failed, as its result line says).
 */
const runnerSend =
  (path: string, body: () => string, kind: 'ndjson' | 'job') =>
  async (server: BenchServer): Promise<{ status: number; bytes: number }> => {
    const text = body();
    const bytes = Buffer.byteLength(text);
    const headers = { 'content-type': 'application/json', ...(kind === 'ndjson' ? { accept: 'application/x-ndjson' } : {}) };
    const r = await fetch(server.url + path, { method: 'POST', headers, body: text }).catch(() => undefined);
    if (!r) return { status: 0, bytes };
    if (kind === 'ndjson') return (await r.arrayBuffer(), { status: r.status, bytes });
    const { id } = (await r.json()) as { id: string };
    for (;;) {
      await new Promise((w) => setTimeout(w, 100));
      const job = (await (await fetch(`${server.url}/v1/jobs/${id}`)).json()) as { status: string; documents: { failed: number } };
      if (job.status !== 'queued' && job.status !== 'running') return { status: job.documents.failed ? 413 : 200, bytes };
    }
  };

const RUNNER_ATTACKS: Attack[] = [
  ...[1, 4, 10].map((mb) => {
    const body = () => JSON.stringify({ text: [abText(mb)], chunk_size: 1 });
    return {
      label: `NDJSON: token chunk_size 1 on ${mb} MB`,
      method: 'POST',
      path: '/v1/chunk/token',
      body: () => '',
      send: runnerSend('/v1/chunk/token', body, 'ndjson'),
    };
  }),
  ...[1, 6, 10].map((mb) => {
    const body = () => JSON.stringify({ steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 1 } }], documents: [{ text: abText(mb) }] });
    return {
      label: `job: token chunk_size 1 on one ${mb} MB document`,
      method: 'POST',
      path: '/v1/jobs',
      body: () => '',
      send: runnerSend('/v1/jobs', body, 'job'),
    };
  }),
];

const ATTACKS = (quick: boolean): Attack[] => [
  { label: 'no request (noise floor: 1 s of /health polls alone)', method: 'GET', path: '', body: () => '' },
  {
    label: 'refine: 30,000 bad chunks (60 KB)',
    method: 'POST',
    path: '/v1/refine/overlap',
    body: () => JSON.stringify({ chunks: Array.from({ length: 30_000 }, () => 1) }),
  },
  {
    label: 'semantic: similarity_window 7500 on 60 KB (refused: max 64)',
    method: 'POST',
    path: '/v1/chunk/semantic',
    body: () => JSON.stringify({ text: prose60k(), similarity_window: 7500 }),
  },
  {
    label: 'semantic: similarity_window 64 on 60 KB',
    method: 'POST',
    path: '/v1/chunk/semantic',
    body: () => JSON.stringify({ text: prose60k(), similarity_window: 64, min_characters_per_sentence: 1 }),
  },
  {
    label: `token cl100k_base: ${quick ? '6K' : '60K'} random letters`,
    method: 'POST',
    path: '/v1/chunk/token',
    body: () => JSON.stringify({ text: letters(quick ? 6_000 : 60_000), tokenizer: 'cl100k_base' }),
  },
  {
    label: `token cl100k_base: ${quick ? '100,000' : '1,000,000'} × "a"`,
    method: 'POST',
    path: '/v1/chunk/token',
    body: () => JSON.stringify({ text: 'a'.repeat(quick ? 100_000 : 1_000_000), tokenizer: 'cl100k_base' }),
  },
  {
    label: 'pipeline create: 200,000 delimiters (refused: max 64)',
    method: 'POST',
    path: '/v1/pipelines',
    body: () =>
      JSON.stringify({ name: 'many', steps: [{ type: 'chunk', chunker: 'sentence', config: { delim: Array.from({ length: 200_000 }, (_, i) => `q${i}`) } }] }),
  },
  { label: 'pipeline execute: 64 delimiters on 60 KB', method: 'POST', path: manyDelimiterPipeline, body: () => JSON.stringify({ text: prose60k() }) },
  ...RUNNER_ATTACKS,
  { label: 'body nested 20,000 levels deep', method: 'POST', path: '/v1/chunk/token', body: () => `{"text": ${'['.repeat(20_000)}${']'.repeat(20_000)}}` },
  {
    label: 'endless multipart tail (upload that never ends after its closing boundary)',
    method: 'POST',
    path: '/v1/files',
    body: () => '',
    send: endlessMultipartTail,
  },
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
      ? fetch(server.url + path, { method: a.method, headers: { 'content-type': 'application/json' }, body }).then(
          async (r) => (await r.arrayBuffer(), r.status),
          () => 0,
        )
      : new Promise<number>((r) => setTimeout(() => r(200), 1000));
  const sent = answer.finally(() => (done = true));
  body = ''; // not kept alive by this closure while the server works
  const polls: number[] = [];
  while (!done) {
    const t = performance.now();
    await fetch(`${server.url}/health`).then(
      (r) => r.arrayBuffer(),
      () => undefined,
    );
    polls.push(performance.now() - t);
    rssMaxBytes = Math.max(rssMaxBytes, rssOf(server.child.pid));
    await new Promise((r) => setTimeout(r, 10));
  }
  const status = await sent;
  const seconds = (performance.now() - began) / 1e3;
  const { delay } = await server.stats();
  return {
    label: a.label,
    bytes,
    status,
    seconds,
    healthPolls: polls.length,
    healthMaxMs: Math.max(0, ...polls),
    loopMaxMs: delay.maxMs,
    loopP99Ms: delay.p99Ms,
    rssMaxBytes,
  };
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
      for (const [path, body] of [
        ['/v1/chunk/semantic', { text: 'A b. C d. E f. G h.' }],
        ['/v1/chunk/token', { text: 'abc', tokenizer: 'cl100k_base' }],
      ] as const) {
        await fetch(server.url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          body: gzipSync(JSON.stringify(body)),
        });
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
        outcomes.map((r) => [
          r.label,
          fmtSize(r.bytes),
          r.status,
          num(r.seconds),
          r.healthPolls,
          num(r.healthMaxMs),
          num(r.loopP99Ms),
          num(r.loopMaxMs),
          r.rssMaxBytes ? fmtSize(r.rssMaxBytes) : 'n/a',
        ]),
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

/**
 * Adversarial uploads (POST /v1/files): files that once held the extraction thread, inflated past
 * gigabytes or nested past the depth limit, sent while /health is polled every 10 ms and the
 * server's RSS (its worker threads included) is read from /proc each poll. Targets: worst
 * /health under 100 ms, RSS under 1 GB.
 */
export interface UploadAttack {
  label: string;
  /** Builds the file(s) (before the clock starts), then the sender: it answers the status(es) as the table shows them, and the bytes sent. */
  prepare(): Promise<(server: BenchServer) => Promise<{ status: string; bytes: number; ok: boolean }>>;
}

const RSS_MB = 1024;
const MiB = 1024 * 1024;

export async function uploadFile(server: BenchServer, content: Uint8Array | string, filename: string): Promise<{ status: number; at: number }> {
  const form = new FormData();
  form.append('file', new Blob([content]), filename);
  const res = await fetch(`${server.url}/v1/files`, { method: 'POST', body: form }).catch(() => undefined);
  await res?.arrayBuffer().catch(() => undefined);
  return { status: res?.status ?? 0, at: performance.now() };
}

/** `bytes` spaces deflated, fed a MiB at a time (never the whole input in memory). */
async function deflated(bytes: number): Promise<Buffer> {
  const z = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise((r) => z.on('end', r));
  const block = Buffer.alloc(MiB, 0x20);
  for (let left = bytes; left > 0; left -= MiB) {
    if (!z.write(left >= MiB ? block : block.subarray(0, left))) await new Promise((r) => z.once('drain', r));
  }
  z.end();
  await ended;
  return Buffer.concat(out);
}

/** One page whose content streams are `streams` (dictionary entries besides /Length, and data). */
function pdfOf(streams: { dict: string; data: Uint8Array; pad?: number }[], extra: string[] = []): Uint8Array {
  const ids = streams.map((_, i) => `${10 + i} 0 R`).join(' ');
  const parts: Buffer[] = [
    Buffer.from(
      [
        '%PDF-1.5',
        '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
        '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
        `3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [${ids}] >> endobj`,
        ...extra,
        '',
      ].join('\n'),
    ),
  ];
  streams.forEach((s, i) => {
    const pad = s.pad ? `%${'x'.repeat(s.pad)}\n` : '';
    parts.push(
      Buffer.from(`${10 + i} 0 obj << /Length ${s.data.length} ${s.dict} >>\n${pad}stream\n`),
      Buffer.from(s.data),
      Buffer.from('\nendstream endobj\n'),
    );
  });
  parts.push(Buffer.from('trailer << /Root 1 0 R >>\n%%EOF\n'));
  return new Uint8Array(Buffer.concat(parts));
}

function manyPages(pages: number): Uint8Array {
  const kids = Array.from({ length: pages }, (_, i) => `${10 + 2 * i} 0 R`).join(' ');
  const lines = [
    '%PDF-1.4',
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    `2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj`,
    '4 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj',
  ];
  for (let i = 0; i < pages; i++) {
    const content = `BT /F1 12 Tf 72 700 Td (Page ${i + 1}) Tj ET`;
    lines.push(
      `${10 + 2 * i} 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents ${11 + 2 * i} 0 R >> endobj`,
    );
    lines.push(`${11 + 2 * i} 0 obj << /Length ${content.length} >> stream\n${content}\nendstream endobj`);
  }
  lines.push('trailer << /Root 1 0 R >>', '%%EOF', '');
  return new Uint8Array(Buffer.from(lines.join('\n')));
}

const counts = (statuses: number[]) =>
  [...new Set(statuses)]
    .sort()
    .map((s) => `${s}×${statuses.filter((x) => x === s).length}`)
    .join(' ');

const UPLOADS = (): UploadAttack[] => [
  {
    label: 'PDF: one page of 100 Flate streams, each just under 32 MiB decoded',
    async prepare() {
      const stream = await deflated(32 * MiB - 1);
      const pdf = pdfOf(Array.from({ length: 100 }, () => ({ dict: '/Filter /FlateDecode', data: stream })));
      return async (server) => {
        const { status } = await uploadFile(server, pdf, 'streams.pdf');
        return { status: String(status), bytes: pdf.length, ok: status === 413 };
      };
    },
  },
  {
    label: 'PDF: a 1 GiB stream, filter spelled /Flat#65Decode, [/AHx /Fl], 6 0 R, 8 KB before `stream` (4 uploads)',
    async prepare() {
      const gib = await deflated(1024 * MiB);
      const hex = Buffer.from(`${gib.toString('hex')}>`);
      const files = [
        pdfOf([{ dict: '/Filter /Flat#65Decode', data: gib }]),
        pdfOf([{ dict: '/Filter [/ASCIIHexDecode /FlateDecode]', data: hex }]),
        pdfOf([{ dict: '/Filter 6 0 R', data: gib }], ['6 0 obj /FlateDecode endobj']),
        pdfOf([{ dict: '/Filter /FlateDecode', data: gib, pad: 8000 }]),
      ];
      return async (server) => {
        const statuses: number[] = [];
        for (const f of files) statuses.push((await uploadFile(server, f, 'spelled.pdf')).status);
        return { status: statuses.join(' '), bytes: files.reduce((n, f) => n + f.length, 0), ok: statuses.every((s) => s === 413) };
      };
    },
  },
  ...[80_000, 300_000].map((n) => ({
    label: `HTML: '<div></x>' × ${n.toLocaleString('en')}`,
    async prepare() {
      const html = '<div></x>'.repeat(n);
      return async (server: BenchServer) => {
        const { status } = await uploadFile(server, html, 'deep.html');
        return { status: String(status), bytes: html.length, ok: status === 413 };
      };
    },
  })),
  {
    label: 'PDF of 1,999 pages, then an 18-byte HTML 100 ms later',
    async prepare() {
      const pdf = manyPages(1999);
      return async (server) => {
        const order: string[] = [];
        const slow = uploadFile(server, pdf, 'pages.pdf').then((r) => (order.push('pdf'), r));
        await new Promise((r) => setTimeout(r, 100));
        const small = await uploadFile(server, '<p>small file</p>', 'small.html').then((r) => (order.push('html'), r));
        const big = await slow;
        return {
          status: `pdf ${big.status}, html ${small.status}; first: ${order[0]}`,
          bytes: pdf.length + 18,
          ok: order[0] === 'html' && small.status === 201 && big.status > 0 && big.status < 500,
        };
      };
    },
  },
  {
    label: '60 parallel 16 MiB .txt uploads',
    async prepare() {
      const text = new Uint8Array(Buffer.alloc(16 * MiB, 'plain text. '));
      return async (server) => {
        const results = await Promise.all(Array.from({ length: 60 }, (_, i) => uploadFile(server, text, `t${i}.txt`)));
        const statuses = results.map((r) => r.status);
        return { status: counts(statuses), bytes: 60 * text.length, ok: statuses.every((s) => s === 201 || s === 503 || s === 507) };
      };
    },
  },
];

export interface UploadOutcome {
  label: string;
  bytes: number;
  status: string;
  ok: boolean;
  seconds: number;
  healthPolls: number;
  healthMaxMs: number;
  loopMaxMs: number;
  rssBeforeMb: number;
  rssPeakMb: number;
}

const rssMb = (pid: number): number => {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : NaN;
  } catch {
    return NaN;
  }
};

export async function uploadAttack(server: BenchServer, a: UploadAttack): Promise<UploadOutcome> {
  const send = await a.prepare();
  for (let i = 0; i < 3; i++) await fetch(`${server.url}/health`).then((r) => r.arrayBuffer());
  const poller = await startHealthPoller(server.url, server.child.pid!);
  server.reset();
  const began = performance.now();
  const rssBeforeMb = rssMb(server.child.pid!);
  // /health is timed by the poller's process: this one's event loop is busy sending the uploads.
  let result: Awaited<ReturnType<typeof send>>;
  try {
    result = await send(server);
  } catch (e) {
    await poller.stop().catch(() => undefined);
    throw e;
  }
  const seconds = (performance.now() - began) / 1e3;
  const health = await poller.stop();
  const { delay } = await server.stats();
  return {
    label: a.label,
    ...result,
    seconds,
    healthPolls: health.polls,
    healthMaxMs: health.maxMs,
    loopMaxMs: delay.maxMs,
    rssBeforeMb,
    rssPeakMb: Math.max(rssBeforeMb, health.rssPeakMb),
  };
}

export const adversarialUploadsSuite: CustomSuite = {
  kind: 'custom',
  name: 'adversarial-uploads',
  title: 'Adversarial uploads: extraction stays bounded',
  async run(): Promise<Section> {
    const server = await startServer('chunkd', ['2']);
    const outcomes: UploadOutcome[] = [];
    try {
      await uploadFile(server, '<p>warm</p>', 'warm.html');
      // CHUNKD_BENCH_ROWS=<text>: only the rows whose label holds it, as in the adversarial suite.
      const only = process.env.CHUNKD_BENCH_ROWS;
      for (const a of UPLOADS().filter((u) => !only || u.label.includes(only))) outcomes.push(await uploadAttack(server, a));
    } finally {
      await server.stop();
    }
    const body = [
      "Each row sends its upload(s) to a real server (default settings, `--workers 2`) while GET /health is polled every 10 ms from a separate process (bench/servers/health-poller.ts), so **/health max** is the server's answer time, not the wait of the client sending the uploads; **RSS peak** is the server process (its worker threads included) read from /proc at each poll. Statuses: 413 is the file refused at a limit (--max-pdf-decoded-bytes, the HTML depth limit); 503 an upload past the extraction queue (--max-extract-queue, with Retry-After); 507 an upload past the files quota (--max-files-bytes). **loop delay** is the server's worst event-loop delay during the row, measured inside it.",
      '',
      outcomeTable('upload', outcomes),
    ].join('\n');
    return { title: this.title, body, checks: outcomeChecks('upload', outcomes, '(413 at a limit, the small file first, no 5xx but 503 and 507)') };
  },
};

/** The table of a suite whose rows are UploadOutcomes (this one's uploads, adversarial-chefs' requests). */
export const outcomeTable = (first: string, outcomes: UploadOutcome[]): string =>
  table(
    [first, 'body', 'status', 'time (s)', '/health polls', '/health max (ms)', 'loop delay max (ms)', 'RSS before (MB)', 'RSS peak (MB)'],
    outcomes.map((r) => [
      r.label,
      fmtSize(r.bytes),
      r.status,
      num(r.seconds),
      r.healthPolls,
      num(r.healthMaxMs),
      num(r.loopMaxMs),
      num(r.rssBeforeMb),
      num(r.rssPeakMb),
    ]),
  );

/** The targets of such rows: /health under LOOP_MS, RSS under RSS_MB, each answered as designed (`designed` says how). */
export function outcomeChecks(what: string, outcomes: UploadOutcome[], designed: string): Check[] {
  const worstHealth = outcomes.reduce((w, r) => (r.healthMaxMs > w.healthMaxMs ? r : w), outcomes[0]!);
  const worstRss = outcomes.reduce((w, r) => (r.rssPeakMb > w.rssPeakMb ? r : w), outcomes[0]!);
  return [
    {
      what: `no adversarial ${what} holds /health for ${LOOP_MS} ms or more`,
      measured: `worst ${num(worstHealth.healthMaxMs)} ms (${worstHealth.label})`,
      met: outcomes.every((r) => r.healthMaxMs < LOOP_MS),
    },
    {
      what: `no adversarial ${what} takes the server past ${RSS_MB} MB of RSS`,
      measured: `worst ${num(worstRss.rssPeakMb)} MB (${worstRss.label})`,
      met: outcomes.every((r) => r.rssPeakMb < RSS_MB),
    },
    {
      what: `every adversarial ${what} is answered as designed ${designed}`,
      measured: outcomes.map((r) => r.status).join(' | '),
      met: outcomes.every((r) => r.ok),
    },
  ];
}
