import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApp, type TestApp } from './app.js';
import { withEnv } from './env.js';

/**
 * A local OpenAI-compatible chat-completions server for tests (127.0.0.1 only): it records every
 * request and answers deterministically. Unless replies are scripted, it reads the numbered
 * passages of the prompt (`ID n: …` lines) and answers the first passage that opens a markdown
 * heading as the split index, or the passage count when none does (see headingRule).
 */
export interface Recorded {
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
  /** The client closed the connection before an answer (its abort signal or timeout fired). */
  abandoned: boolean;
}

/** One scripted reply: a status with a raw body, an assistant message content, or no answer at all. */
export type Scripted = { status: number; body?: string; headers?: Record<string, string> } | { content: string } | { hang: true };

export interface FakeLlm {
  /** The API root to configure (…/v1). */
  url: string;
  requests: Recorded[];
  /** Replies used, in order, before the default rule takes over again. */
  script(...replies: Scripted[]): void;
  /** Drop scripted replies that were not used. */
  unscript(): void;
  close(): Promise<void>;
}

export function passagesOf(prompt: string): string[] {
  const inner = /<passages>\n([\s\S]*)\n<\/passages>/.exec(prompt)?.[1] ?? '';
  return inner
    .split(/^ID \d+: /m)
    .slice(1)
    .map((p) => p.replace(/\n$/, ''));
}

/** The split index the default rule answers for a window of passages. */
export function headingRule(passages: string[]): number {
  const i = passages.findIndex((p, n) => n > 0 && p.startsWith('#'));
  return i > 0 ? i : passages.length;
}

export const completion = (content: string) =>
  JSON.stringify({ id: 'cmpl-test', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });

export async function startFakeLlm(rule: (passages: string[]) => number = headingRule): Promise<FakeLlm> {
  const requests: Recorded[] = [];
  const queue: Scripted[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        body = undefined;
      }
      const record: Recorded = { url: req.url ?? '', headers: req.headers, body, abandoned: false };
      requests.push(record);
      res.on('close', () => (record.abandoned ||= !res.writableEnded));
      const reply = queue.shift();
      if (reply && 'hang' in reply) return; // never answers: the client's timeout has to act
      if (reply && 'status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        return res.end(reply.body ?? '{}');
      }
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      }
      const content = reply ? reply.content : JSON.stringify({ split_index: rule(passagesOf(String(body?.messages?.at(-1)?.content ?? ''))) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(completion(content));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    script: (...replies) => void queue.push(...replies),
    unscript: () => void queue.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Run fn with a fake LLM configured through the environment, as service/assembly.ts would configure it:
 * for tests that run every chunker through the kernel directly, without an app.
 */
export async function withFakeLlmEnv<T>(fn: () => Promise<T>): Promise<T> {
  const llm = await startFakeLlm();
  try {
    return await withEnv({ CHUNKD_LLM_BASE_URL: llm.url, CHUNKD_LLM_MAX_CALLS: String(UNLIMITED_CALLS) }, fn);
  } finally {
    await llm.close();
  }
}

/** A call budget no test's fixtures or batches reach. */
const UNLIMITED_CALLS = 100_000;

/**
 * The real app (test/helpers/app.ts) with its LLM plugins (slumber) configured as an operator
 * would, against a fake chat-completions server, the call budget lifted: for suites that run every
 * chunker. Closing the app closes the fake server too.
 */
export async function startAppWithFakeLlm(flags: Record<string, string | boolean> = {}): Promise<TestApp & { llm: FakeLlm }> {
  const llm = await startFakeLlm();
  const app = await startApp({ 'llm-base-url': llm.url, 'llm-max-calls': String(UNLIMITED_CALLS), ...flags });
  return {
    ...app,
    llm,
    async close() {
      await app.close();
      await llm.close();
    },
  };
}
