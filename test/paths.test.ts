/**
 * One canonical path form (server/dispatch.ts): a route answers only to the path it declares,
 * byte for byte. Every route in the registry-derived list, spelled every way a router or proxy
 * might take for the same route, with no token on a keyed server: 401 or 404, never a 2xx. The
 * correctly spelled routes still work with a key. Requests go over a raw socket, so no client
 * normalises the path before the server sees it.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FIXTURES_DIR } from '../scripts/make-fixtures.js';
import type { RouteDef } from '../server/route.js';
import { startApp, type TestApp } from './helpers/app.js';
import { startFakeLlm, type FakeLlm } from './helpers/fake-llm.js';

const KEY = 'secret1';
const AUTH = { authorization: `Bearer ${KEY}` };

let keyed: TestApp;
let open: TestApp;
/** The slumber chunker's LLM, so every route (slumber's too) can answer 2xx when spelled right. */
let llm: FakeLlm;
/** Every route with a concrete path (parameters filled in with a stored pipeline's id) and a body it accepts. */
let targets: { route: RouteDef; path: string; body?: string; headers?: Record<string, string> }[];
let publicPaths: Set<string>;

before(async () => {
  llm = await startFakeLlm();
  const withLlm = { 'llm-base-url': llm.url };
  [keyed, open] = await Promise.all([startApp({ 'api-keys': KEY, ...withLlm }), startApp(withLlm)]);
  const created = await keyed.request('POST', '/v1/pipelines', { name: 'p', steps: [{ type: 'chunk', chunker: 'token' }] }, AUTH);
  assert.equal(created.status, 201);
  const id = (created.body as { id: string }).id;
  // The slug API's routes take a name, of another pipeline: each API's DELETE then has its own to delete.
  assert.equal((await keyed.request('POST', '/v1/pipelines', { name: 'by-slug', steps: [{ type: 'chunk', chunker: 'token' }] }, AUTH)).status, 201);
  const routes = keyed.booted.app.routes;
  publicPaths = new Set(routes.filter((r) => r.public).map((r) => r.path));
  // Files and jobs routes take their own ids: an uploaded file's name, a submitted job's id.
  const form = new FormData();
  form.append('file', new Blob(['Hello there.'], { type: 'text/plain' }), 'hello.txt');
  const uploaded = await fetch(`${keyed.url}/v1/files`, { method: 'POST', body: form, headers: AUTH });
  assert.equal(uploaded.status, 201);
  const fileName = ((await uploaded.json()) as { name: string }).name;
  // The chefs that read files only (a text is their 422) are sent an upload they read themselves.
  for (const [chef, type] of Object.entries(FILE_ONLY_CHEFS)) {
    if (!routes.some((r) => r.path === `/v1/process/${chef}`)) continue;
    const file = new FormData();
    file.append('file', new Blob([readFileSync(join(FIXTURES_DIR, `sample.${chef}`))], { type }), `sample.${chef}`);
    const sent = await fetch(`${keyed.url}/v1/files`, { method: 'POST', body: file, headers: AUTH });
    assert.equal(sent.status, 201, `sample.${chef} uploads`);
    const stored = (await sent.json()) as { name: string; format: string };
    assert.equal(stored.format, chef, `sample.${chef} is read by the ${chef} chef`);
    chefFiles.set(`/v1/process/${chef}`, stored.name);
  }
  const job = await keyed.request('POST', '/v1/jobs', JSON.parse(JOB_BODY), AUTH);
  assert.equal(job.status, 202);
  // The stores routes take a connection, a collection and a document: one written here through a pipeline's write step.
  const writer = await keyed.request(
    'POST',
    '/v1/pipelines',
    {
      name: 'writer',
      steps: [
        { type: 'chunk', chunker: 'token' },
        { type: 'write', store: 'default', config: { collection: 'docs' } },
      ],
    },
    AUTH,
  );
  assert.equal(writer.status, 201);
  assert.equal(
    (await keyed.request('POST', `/v1/pipelines/${(writer.body as { id: string }).id}/execute`, { text: 'Hello there.', document: 'doc-1' }, AUTH)).status,
    200,
  );
  const STORE_PARAMS: Record<string, string> = { ':name': 'default', ':collection': 'docs', ':document': 'doc-1' };
  const param = (path: string) => (path.startsWith('/v1/files/') ? fileName : path.startsWith('/v1/jobs/') ? (job.body as { id: string }).id : id);
  targets = routes.map((route) => ({
    route,
    path: route.path.startsWith('/v1/stores/')
      ? route.path.replace(/:[A-Za-z_]+/g, (p) => STORE_PARAMS[p] ?? p)
      : route.path.replace(/:slug/g, 'by-slug').replace(/:[A-Za-z_]+/g, param(route.path)),
    ...bodyFor(route),
  }));
  assert.ok(targets.length > 15 && targets.some((t) => t.route.path.includes(':')), 'the walk covers the registry, parameters included');
});
after(async () => {
  await Promise.all([keyed.close(), open.close()]);
  await llm.close();
});

/** Chefs that read files only, with the media type of their sample fixture (scripts/make-fixtures.ts). */
const FILE_ONLY_CHEFS: Record<string, string> = { docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', pdf: 'application/pdf' };
/** The upload each file-only chef's route is sent, by path. */
const chefFiles = new Map<string, string>();

const JOB_BODY = JSON.stringify({ steps: [{ type: 'chunk', chunker: 'token' }], documents: [{ id: 'a', text: 'Hello there.' }] });
const BOUNDARY = 'pathsBoundary';

/** A body each route would accept (with its Content-Type when not JSON): a bypass would answer 2xx with it. */
function bodyFor(route: RouteDef): { body?: string; headers?: Record<string, string> } {
  if (route.streamedBody?.mediaType === 'multipart/form-data') {
    const body = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nHello there.\r\n--${BOUNDARY}--\r\n`;
    return { body, headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` } };
  }
  if (route.path === '/v1/jobs' && route.method === 'post') return { body: JOB_BODY };
  const body = jsonBodyFor(route);
  return body === undefined ? {} : { body };
}

function jsonBodyFor(route: RouteDef): string | undefined {
  if (!route.body) return undefined;
  if (route.path === '/v1/pipelines') return JSON.stringify({ name: `n${Math.random()}`, steps: [{ type: 'chunk', chunker: 'token' }] });
  if (route.path === '/v1/pipeline') return JSON.stringify({ slug: `s${Math.random().toString(36).slice(2)}`, steps: [{ type: 'chunk', component: 'token' }] });
  if (route.path === '/v1/pipeline/validate') return JSON.stringify({ steps: [{ type: 'chunk', component: 'token' }] });
  if (route.method === 'put') return JSON.stringify({ description: 'changed' });
  if (route.path === '/v1/evaluate') {
    const references = [{ document: 'd', start_index: 0, end_index: 5 }];
    return JSON.stringify({
      documents: [{ id: 'd', text: 'Hello there. General Kenobi!' }],
      questions: [{ question: 'hello', references }],
      candidates: [[{ type: 'chunk', chunker: 'token' }]],
      k: 1,
    });
  }
  if (chefFiles.has(route.path)) return JSON.stringify({ file: { type: 'document', content: chefFiles.get(route.path) } });
  if (route.path.startsWith('/v1/stores/')) return JSON.stringify({ collection: 'docs', query: 'hello', k: 1 });
  if (route.path.startsWith('/v1/refine/')) return JSON.stringify({ chunks: [{ text: 'ab', start_index: 0, end_index: 2, token_count: 1 }] });
  return JSON.stringify({ text: 'Hello there. General Kenobi!', code: 'x = 1', language: 'python' });
}

/** The same path spelled every way a lenient router, proxy or file server might read as it. */
function spellings(path: string): string[] {
  const out = new Set<string>();
  const slashes = [...path.matchAll(/\//g)].map((m) => m.index);
  const letters = [...path.matchAll(/[A-Za-z]/g)].map((m) => m.index);
  const at = (i: number, s: string, len = 1) => path.slice(0, i) + s + path.slice(i + len);
  out.add(path.toUpperCase());
  out.add(path.replace(/\/([a-z])/g, (_, c: string) => `/${c.toUpperCase()}`));
  out.add(path + '/');
  out.add(path + '//');
  out.add('/' + path);
  out.add(path + '/.');
  out.add(path + '/..');
  out.add(path + ';');
  out.add(path + ';x=1');
  out.add(path + '%00');
  out.add(path + '%20');
  out.add(path + '.');
  out.add(path + '.json');
  out.add(path + '#');
  out.add(`http://127.0.0.1${path.toUpperCase()}`);
  out.add(`http://127.0.0.1${path}/`);
  for (const i of slashes) {
    out.add(at(i, '//'));
    out.add(at(i, '/./'));
    out.add(at(i, '/x/../'));
    out.add(at(i, '/%2e/'));
    out.add(at(i, '/%2E%2E/x/'));
    if (i > 0) {
      for (const s of ['%2F', '%2f', '\\', '%5C', '%252F', ';/', '/;x/', '..;/']) out.add(at(i, s));
    }
  }
  for (const i of letters) {
    const c = path[i]!;
    const hex = c.charCodeAt(0).toString(16);
    out.add(at(i, `%${hex.toUpperCase()}`));
    out.add(at(i, `%${hex}`));
    out.add(at(i, c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()));
    out.add(at(i, `%25${hex}`));
  }
  if (path !== '/') out.add(path.slice(0, -1)); // one letter short
  out.delete(path);
  return [...out];
}

/** A raw HTTP/1.1 request: the request target goes on the wire exactly as given. */
function raw(method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; head: string }> {
  const url = new URL(keyed.url);
  return rawTo(url.port, method, target, headers, body);
}

function rawTo(port: string, method: string, target: string, headers: Record<string, string>, body?: string): Promise<{ status: number; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const typed = Object.keys(headers).some((k) => k.toLowerCase() === 'content-type');
    const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...(typed ? [] : ['Content-Type: application/json'])];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`);
    // Connection: close: the server ends the socket once its whole answer is written.
    const parts: Buffer[] = [];
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(parts).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? NaN), head: text.slice(0, 600) });
    });
  });
}

/** What a keyed server may answer a request with no token: 401 or 404 (the parser's own 400 for a target it cannot read). */
function assertRefused(status: number, head: string, what: string) {
  assert.ok(status === 401 || status === 404 || (status === 400 && !/x-request-id/i.test(head)), `${what} → ${status}\n${head}`);
}

describe('a keyed server, no token', () => {
  test('every route, every fixed spelling: 401 or 404, never a 2xx', async () => {
    let sent = 0;
    for (const { route, path, body } of targets) {
      const method = route.method.toUpperCase();
      for (const spelled of spellings(path)) {
        const { status, head } = await raw(method, spelled, {}, body);
        if (bare(spelled) === path && route.public)
          assert.equal(status, 200, `${method} ${spelled}`); // the same path, a fragment dropped
        else assertRefused(status, head, `${method} ${spelled}`);
        sent++;
      }
      // The canonical spelling itself: refused unless the route is public.
      const { status, head } = await raw(method, path, {}, body);
      if (publicPaths.has(route.path)) assert.equal(status, 200, `${method} ${path}`);
      else assert.equal(status, 401, `${method} ${path}\n${head}`);
    }
    assert.ok(sent > 500, `${sent} requests`);
  });

  test('generated spellings of every route (fast-check): never a 2xx unless the path is exactly a public route', async () => {
    const edit = fc.oneof(
      fc.record({ kind: fc.constant('case' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('encode' as const), at: fc.nat(), lower: fc.boolean() }),
      fc.record({
        kind: fc.constant('insert' as const),
        at: fc.nat(),
        text: fc.constantFrom(
          '/',
          '//',
          '/./',
          '/../',
          '/x/../',
          ';',
          ';a=b',
          '\\',
          '%2F',
          '%2f',
          '%5c',
          '%2e',
          '%2E%2E',
          '.',
          '%00',
          '%25',
          '%',
          '~',
          '+',
          '%7E',
        ),
      }),
      fc.record({ kind: fc.constant('suffix' as const), text: fc.constantFrom('/', '/.', '?', '?x=1', ';', '%20', '/..', '#x') }),
    );
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.array(edit, { minLength: 1, maxLength: 4 }), async (which, edits) => {
        const { route, path, body } = targets[which % targets.length]!;
        let spelled = path;
        for (const e of edits) {
          const i = 'at' in e ? e.at % (spelled.length + 1) : spelled.length;
          if (e.kind === 'case') spelled = spelled.slice(0, i) + swapCase(spelled.slice(i, i + 1)) + spelled.slice(i + 1);
          else if (e.kind === 'encode' && i < spelled.length) {
            const hex = spelled.charCodeAt(i).toString(16).padStart(2, '0');
            spelled = spelled.slice(0, i) + `%${e.lower ? hex : hex.toUpperCase()}` + spelled.slice(i + 1);
          } else if (e.kind === 'insert') spelled = spelled.slice(0, Math.max(1, i)) + e.text + spelled.slice(Math.max(1, i));
          else if (e.kind === 'suffix') spelled += e.text;
        }
        const method = route.method.toUpperCase();
        const { status, head } = await raw(method, spelled, {}, body);
        if (publicPaths.has(bare(spelled)) && (status === 200 || status === 405)) return; // exactly a public route (another one, or another method)
        if (bare(spelled) === path && !route.public) assert.equal(status, 401, `${method} ${spelled}`);
        else assertRefused(status, head, `${method} ${spelled}`);
      }),
      { numRuns: 400 },
    );
  });

  test('a token that is not a key gets 401 on every route', async () => {
    for (const { route, path, body } of targets.filter((t) => !t.route.public)) {
      assert.equal((await raw(route.method.toUpperCase(), path, { authorization: 'Bearer secret2' }, body)).status, 401, path);
    }
  });
});

describe('the canonical spellings work', () => {
  test('with a valid key, every route answers 2xx (DELETE last)', async () => {
    const ordered = [...targets].sort((a, b) => Number(a.route.method === 'delete') - Number(b.route.method === 'delete'));
    for (const { route, path, body, headers } of ordered) {
      const res = await raw(route.method.toUpperCase(), path, { ...AUTH, ...headers }, body);
      assert.ok(res.status >= 200 && res.status < 300, `${route.method} ${path} → ${res.status}\n${res.head}`);
    }
  });

  test('an open server answers 404 (405 for a known path) to every other spelling: no handler runs', async () => {
    const port = new URL(open.url).port;
    for (const { route, path, body } of targets.filter((t) => !t.route.path.includes(':'))) {
      for (const spelled of spellings(path)) {
        const { status, head } = await rawTo(port, route.method.toUpperCase(), spelled, {}, body);
        if (bare(spelled) === path) continue; // the same path with a fragment the parser drops
        if (targets.some((t) => t.path === bare(spelled))) continue; // another route's own path (/v1/pipelines one letter short is /v1/pipeline)
        assert.ok(status === 404 || status === 405 || (status === 400 && !/x-request-id/i.test(head)), `${route.method} ${spelled} → ${status}\n${head}`);
      }
    }
  });

  test('the request log names the matched route, and no route for another spelling', async () => {
    const lines: string[] = [];
    const logged = await startApp({ 'api-keys': KEY }, {}, {
      log: (_level: string, _msg: string, fields: Record<string, unknown>) => void lines.push(JSON.stringify(fields)),
    } as never);
    try {
      const port = new URL(logged.url).port;
      await rawTo(port, 'POST', '/v1/chunk/token', AUTH, '{"text": "a"}');
      await rawTo(port, 'POST', '/V1/chunk/token', AUTH, '{"text": "a"}');
      const requests = lines.map((l) => JSON.parse(l) as { route: string | null; status: number }).filter((l) => 'status' in l);
      assert.deepEqual(
        requests.map((r) => [r.route, r.status]),
        [
          ['/v1/chunk/token', 200],
          [null, 404],
        ],
      );
    } finally {
      await logged.close();
    }
  });
});

/** The path a request target names once its query and fragment are dropped (and its scheme and host, in absolute form). */
const bare = (target: string) => target.replace(/^http:\/\/[^/]+/, '').replace(/[?#].*$/, '');

const swapCase = (c: string) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase());
