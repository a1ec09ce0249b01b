import { ChunkdError } from '../../errors.js';
import { host } from '../../host.js';
import { loadTokenizer } from '../../tokenizers/index.js';
import type { Embedder } from '../embedder-contract.js';
import { batches } from '../vectors.js';

const DEFAULT_BASE = 'https://api.openai.com/v1';
/** Inputs per request: well under the API's 2048-input and 300k-token limits for chunk-sized texts. */
export const API_BATCH = 128;
const ATTEMPTS = 5;
const TIMEOUT_MS = 60_000;
const KNOWN_DIMENSIONS: Record<string, number> = { 'text-embedding-3-small': 1536, 'text-embedding-3-large': 3072, 'text-embedding-ada-002': 1536 };

/**
 * An OpenAI-compatible embeddings API (`POST {OPENAI_BASE_URL}/embeddings`): OpenAI itself, or
 * Ollama, vLLM and similar servers when OPENAI_BASE_URL points at them. Texts go in batches;
 * 429 and 5xx answers (and network failures) are retried with exponential backoff, honouring
 * Retry-After. Tokens are counted with cl100k_base, the tokenizer of OpenAI's embedding models.
 */
export async function loadOpenAI(name: string): Promise<Embedder> {
  const model = name.startsWith('openai/') ? name.slice('openai/'.length) : name;
  const custom = host().openaiBaseUrl.trim();
  const base = (custom || DEFAULT_BASE).replace(/\/+$/, '');
  const key = host().openaiApiKey.trim();
  if (!model) throw new ChunkdError('BAD_REQUEST', `Name the API model after 'openai/', e.g. openai/text-embedding-3-small.`);
  if (!key && !custom) {
    throw new ChunkdError(
      'BAD_REQUEST',
      `Embedding model '${name}' is served by the OpenAI API, and OPENAI_API_KEY is not set. Set OPENAI_API_KEY in the server's environment (and OPENAI_BASE_URL to use an OpenAI-compatible server such as Ollama or vLLM).`,
    );
  }
  const tokenizer = await loadTokenizer('cl100k_base');
  let dimension = KNOWN_DIMENSIONS[model] ?? 0;

  const call = async (input: string[]): Promise<Float32Array[]> => {
    const body = JSON.stringify({ model, input, encoding_format: 'float' });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers.authorization = `Bearer ${key}`;
    let last = '';
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${base}/embeddings`, { method: 'POST', headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
      } catch (e) {
        last = e instanceof Error ? e.message : 'network error';
        await sleep(backoff(attempt));
        continue;
      }
      if (res.ok) return parse(await res.json(), input.length, base);
      const text = await res.text().catch(() => '');
      if (res.status === 429 || res.status >= 500) {
        last = `HTTP ${res.status}`;
        await sleep(retryAfter(res.headers) ?? backoff(attempt));
        continue;
      }
      throw new ChunkdError('BAD_REQUEST', `The embeddings API at ${base} refused the request for model '${model}' (HTTP ${res.status}): ${apiMessage(text)}`);
    }
    throw new ChunkdError('UNAVAILABLE', `The embeddings API at ${base} kept failing (${last}) after ${ATTEMPTS} attempts; retry later.`);
  };

  return {
    name,
    get dimension() {
      return dimension;
    },
    tokenizer,
    async embed(texts) {
      const out: Float32Array[] = [];
      for (const batch of batches(texts, API_BATCH)) out.push(...(await call(batch)));
      if (out[0]) dimension = out[0].length;
      return out;
    },
  };
}

function parse(json: unknown, expected: number, base: string): Float32Array[] {
  const data = (json as { data?: { embedding?: unknown; index?: number }[] })?.data;
  if (!Array.isArray(data) || data.length !== expected || !data.every((d) => Array.isArray(d.embedding))) {
    throw new ChunkdError(
      'UNAVAILABLE',
      `The embeddings API at ${base} answered without one embedding per input; check that it speaks the OpenAI embeddings protocol.`,
    );
  }
  return [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => Float32Array.from(d.embedding as number[]));
}

/** The API's own error message, shortened: it tells the user what is wrong (bad model name, quota). */
function apiMessage(body: string): string {
  try {
    const m = (JSON.parse(body) as { error?: { message?: string } }).error?.message;
    if (m) return m.slice(0, 300);
  } catch {
    // not JSON
  }
  return body.slice(0, 300) || 'no message';
}

function retryAfter(h: Headers): number | undefined {
  const ms = Number(h.get('retry-after-ms'));
  if (h.get('retry-after-ms') !== null && Number.isFinite(ms)) return Math.min(ms, 30_000);
  const s = Number(h.get('retry-after'));
  if (h.get('retry-after') !== null && Number.isFinite(s)) return Math.min(s * 1000, 30_000);
  return undefined;
}

const backoff = (attempt: number) => Math.min(8000, 500 * 2 ** attempt) * (0.5 + Math.random() / 2);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
