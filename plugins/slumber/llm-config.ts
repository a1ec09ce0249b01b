import { readFile } from 'node:fs/promises';
import { ChunkdError } from '../../kernel/index.js';

/** How to reach the LLM, read from the environment service/llm-settings.ts fills in at boot. */
export interface LlmConfig {
  /** The chat-completions root, without a trailing slash: requests go to `${baseUrl}/chat/completions`. */
  baseUrl: string;
  /** '' when unset: the field is then left out of the request (llama.cpp serves its loaded model). */
  model: string;
  key: string;
  timeoutMs: number;
  maxCalls: number;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_CALLS = 50;

/**
 * Read for every text rather than once per instance: instances are cached per request config,
 * and a rotated key file takes effect without a restart.
 */
export async function llmConfig(env: NodeJS.ProcessEnv = process.env): Promise<LlmConfig> {
  const baseUrl = env.CHUNKD_LLM_BASE_URL?.trim().replace(/\/+$/, '');
  if (!baseUrl) {
    throw new ChunkdError(
      'NOT_CONFIGURED',
      'The slumber chunker needs an LLM and none is configured: start chunkd with --llm-base-url (CHUNKD_LLM_BASE_URL) pointing at an OpenAI-compatible chat-completions server, e.g. http://127.0.0.1:8080/v1 (llama.cpp) or http://127.0.0.1:11434/v1 (Ollama), with --llm-model for servers that need a model name.',
    );
  }
  return {
    baseUrl,
    model: env.CHUNKD_LLM_MODEL?.trim() ?? '',
    key: await apiKey(env),
    timeoutMs: positive(env.CHUNKD_LLM_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
    maxCalls: positive(env.CHUNKD_LLM_MAX_CALLS, DEFAULT_MAX_CALLS),
  };
}

async function apiKey(env: NodeJS.ProcessEnv): Promise<string> {
  const file = env.CHUNKD_LLM_API_KEY_FILE;
  if (!file) return env.CHUNKD_LLM_API_KEY?.trim() ?? '';
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    throw new ChunkdError(
      'NOT_CONFIGURED',
      `The LLM key file named by --llm-api-key-file (CHUNKD_LLM_API_KEY_FILE) can no longer be read: restore it or restart chunkd with a readable file.`,
    );
  }
}

const positive = (raw: string | undefined, fallback: number) => {
  const n = Number(raw);
  return raw && Number.isInteger(n) && n > 0 ? n : fallback;
};
