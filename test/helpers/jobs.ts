import assert from 'node:assert/strict';

/** Client side of the jobs API for tests and the bench: submit, poll, read results. */

export interface ResultLine {
  document_id: string;
  index: number;
  chunks?: { text: string; start_index: number; end_index: number }[];
  error?: { code: string; detail: unknown };
}

/** n documents of varied length and script (ASCII, CJK, emoji, CRLF, repeated text), ids `d<i>`. */
export function corpus(n: number, size = 1): { id: string; text: string }[] {
  const pieces = ['The quick brown fox jumps over the lazy dog. ', '東京は日本の首都です。', 'Emoji 🎉👩‍💻 here.\r\n', 'repeat repeat repeat. '];
  return Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    text: Array.from({ length: size * (1 + (i % 7)) }, (_, k) => pieces[(i + k) % pieces.length]).join('') + ` #${i}`,
  }));
}

export const TOKEN_STEPS = [{ type: 'chunk', chunker: 'token', config: { chunk_size: 16, chunk_overlap: 4 } }];

export async function submitJob(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

export async function jobStatus(url: string, id: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/v1/jobs/${id}`);
  return { status: res.status, body: await res.json() };
}

/** Poll until the job leaves queued/running (no timing asserted: the test's own timeout bounds it). */
export async function waitForJob(
  url: string,
  id: string,
  until: (job: any) => boolean = (j) => !['queued', 'running'].includes(j.status),
  everyMs = 100,
): Promise<any> {
  for (;;) {
    const { status, body } = await jobStatus(url, id).catch(() => ({ status: 0, body: undefined }));
    if (status === 200 && until(body)) return body;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function jobResults(url: string, id: string, query = ''): Promise<{ status: number; headers: Headers; lines: ResultLine[] }> {
  const res = await fetch(`${url}/v1/jobs/${id}/results${query}`);
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, headers: res.headers, lines: [JSON.parse(text)] };
  return {
    status: res.status,
    headers: res.headers,
    lines: text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ResultLine),
  };
}

/**
 * Input PostgreSQL cannot hold (U+0000, a 32-bit overflow, an id that is not a UUID) gets the 4xx
 * on either back-end, never a 500: the same answers whichever store is behind `url`.
 */
export async function assertBadIdsRefused(url: string): Promise<void> {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { code: string; detail: unknown } };
  };
  const expect = async (want: number, code: string, method: string, path: string, body?: unknown) => {
    const got = await call(method, path, body);
    assert.deepEqual([got.status, got.body.code], [want, code], `${method} ${path} ${JSON.stringify(body) ?? ''} → ${JSON.stringify(got.body)}`);
  };
  for (const id of ['a%00b', 'not-a-uuid', '00000000-0000-0000-0000-00000000000g']) {
    await expect(404, 'NOT_FOUND', 'GET', `/v1/jobs/${id}`);
    await expect(404, 'NOT_FOUND', 'DELETE', `/v1/jobs/${id}`);
    await expect(404, 'NOT_FOUND', 'GET', `/v1/jobs/${id}/results`);
  }
  await expect(404, 'NOT_FOUND', 'GET', '/v1/pipelines/a%00b');
  await expect(404, 'NOT_FOUND', 'DELETE', '/v1/pipelines/a%00b');
  await expect(422, 'VALIDATION', 'POST', '/v1/pipelines', { name: 'a\u0000b', steps: TOKEN_STEPS });
  await expect(422, 'VALIDATION', 'POST', '/v1/pipelines', { name: 'nul-description', description: 'x\u0000y', steps: TOKEN_STEPS });
  await expect(422, 'VALIDATION', 'POST', '/v1/jobs', { pipeline_id: 'a\u0000b', documents: [{ text: 'a' }] });
  await expect(422, 'VALIDATION', 'POST', '/v1/jobs', { steps: TOKEN_STEPS, documents: [{ id: 'a\u0000b', text: 'a' }] });
  const sub = await submitJob(url, { steps: TOKEN_STEPS, documents: [{ text: 'a' }] });
  assert.equal(sub.status, 202);
  await expect(422, 'VALIDATION', 'GET', `/v1/jobs/${sub.body.id}/results?after=3000000000`);
  const last = await fetch(`${url}/v1/jobs/${sub.body.id}/results?after=${2 ** 31 - 2}`);
  assert.equal(last.status, 200, 'the largest after is accepted');
  await last.text();
}
