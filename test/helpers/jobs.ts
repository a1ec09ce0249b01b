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
  return Array.from({ length: n }, (_, i) => ({ id: `d${i}`, text: Array.from({ length: size * (1 + (i % 7)) }, (_, k) => pieces[(i + k) % pieces.length]).join('') + ` #${i}` }));
}

export const TOKEN_STEPS = [{ type: 'chunk', chunker: 'token', config: { chunk_size: 16, chunk_overlap: 4 } }];

export async function submitJob(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/v1/jobs`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

export async function jobStatus(url: string, id: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/v1/jobs/${id}`);
  return { status: res.status, body: await res.json() };
}

/** Poll until the job leaves queued/running (no timing asserted: the test's own timeout bounds it). */
export async function waitForJob(url: string, id: string, until: (job: any) => boolean = (j) => !['queued', 'running'].includes(j.status), everyMs = 100): Promise<any> {
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
  return { status: res.status, headers: res.headers, lines: text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as ResultLine) };
}
