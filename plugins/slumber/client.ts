import { ChunkdError, host, settingName, settingOf } from '../../kernel/index.js';
import type { LlmConfig } from './llm-config.js';

/** Tries per question: the first call and up to three retries. */
export const ATTEMPTS = 4;
const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 4000;
const RETRY_AFTER_MAX_MS = 10_000;

/** A setting as the operator writes it: `--flag (ENV)`. */
const named = (name: string) => settingName(settingOf(name));
const flag = (name: string) => `--${settingOf(name).flag}`;

/**
 * POST one chat-completions request and return the first choice's message content. Network
 * errors, per-call timeouts, 429 and 5xx are retried with exponential backoff (Retry-After
 * honoured, capped), at most ATTEMPTS tries; a 400 that names response_format is asked again
 * in JSON mode (`json_object`); other refusals are not retried. Every failure ends
 * as a 502 UPSTREAM naming the server and the setting. An abort of `signal` (the request's
 * deadline) stops at once, between tries too, and is rethrown as is.
 */
export async function chatCompletion(llm: LlmConfig, body: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
  const url = `${llm.baseUrl}/chat/completions`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (llm.key) headers.authorization = `Bearer ${llm.key}`;
  let payload = JSON.stringify(body);
  let last = '';
  let retryAfter: number | undefined; // the server's own Retry-After from the last failed try
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (attempt > 0) await sleep(retryAfter ?? backoff(attempt - 1), signal);
    retryAfter = undefined;
    signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(llm.timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { method: 'POST', headers, body: payload, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
      text = await res.text();
    } catch (e) {
      signal?.throwIfAborted();
      last = timeout.aborted ? `no answer within ${llm.timeoutMs} ms (${flag('llm-timeout-ms')})` : networkReason(e);
      continue;
    }
    if (res.ok) return content(text, llm.baseUrl);
    if (res.status === 429 || res.status >= 500) {
      last = `HTTP ${res.status}`;
      retryAfter = retryAfterMs(res.headers);
      continue;
    }
    // A server without JSON-schema support often has JSON mode: ask again with it (one try).
    if (res.status === 400 && /response_format|json_schema/i.test(text) && (body.response_format as { type?: string } | undefined)?.type === 'json_schema') {
      body = { ...body, response_format: { type: 'json_object' } };
      payload = JSON.stringify(body);
      last = `HTTP 400 to json_schema`;
      retryAfter = 0;
      continue;
    }
    throw new ChunkdError('UPSTREAM', `The LLM at ${llm.baseUrl} refused the request (HTTP ${res.status}: ${apiMessage(text)}); ${hint(res.status)}`);
  }
  throw new ChunkdError(
    'UPSTREAM',
    `The LLM at ${llm.baseUrl} failed ${ATTEMPTS} times (last: ${last}); check that it is running and that ${named('llm-base-url')} points at its OpenAI-compatible root (…/v1), or retry later.`,
  );
}

function content(text: string, base: string): string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const message = (json as { choices?: { message?: { content?: unknown } }[] } | undefined)?.choices?.[0]?.message;
  if (typeof message?.content === 'string') return message.content;
  throw new ChunkdError(
    'UPSTREAM',
    `The LLM at ${base} answered without choices[0].message.content; ${named('llm-base-url')} must point at an OpenAI-compatible chat-completions server (llama.cpp, Ollama and vLLM serve one under /v1).`,
  );
}

function hint(status: number): string {
  if (status === 401 || status === 403)
    return `check the key in ${flag('llm-api-key-file')}${host().llm.apiKeyVariable ? ` or ${host().llm.apiKeyVariable}` : ''}.`;
  if (status === 404) return `check that ${named('llm-base-url')} ends at the API root (…/v1) and that ${flag('llm-model')} names a model the server has.`;
  return `check ${flag('llm-model')} and that the server supports structured output (response_format json_schema).`;
}

function networkReason(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : 'network error');
}

/** The API's own message, shortened: it says what is wrong (unknown model, bad key). */
function apiMessage(body: string): string {
  try {
    const err = (JSON.parse(body) as { error?: { message?: unknown } | string }).error;
    const m = typeof err === 'string' ? err : err?.message;
    if (typeof m === 'string' && m) return m.slice(0, 300);
  } catch {
    // not JSON
  }
  return body.slice(0, 300) || 'no message';
}

function retryAfterMs(h: Headers): number | undefined {
  const raw = h.get('retry-after');
  if (raw === null) return undefined;
  const s = Number(raw);
  return Number.isFinite(s) && s >= 0 ? Math.min(s * 1000, RETRY_AFTER_MAX_MS) : undefined;
}

const backoff = (retry: number) => Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** retry) * (0.5 + Math.random() / 2);

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
