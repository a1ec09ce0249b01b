import { readFile } from 'node:fs/promises';
import { ChunkdError, host, settingName, settingOf, type Host } from '../../kernel/index.js';

/** How to reach the LLM, from the settings the host carries (service/llm-settings.ts sets them at boot). */
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

/** A setting as the operator writes it: `--flag (ENV)`. */
const named = (name: string) => settingName(settingOf(name));

/**
 * Read for every text rather than once per instance: instances are cached per request config,
 * and a rotated key file takes effect without a restart. The values are the host's (the service
 * fills them from the LLM settings; kernel/host.ts).
 */
export async function llmConfig(llm: Host['llm'] = host().llm): Promise<LlmConfig> {
  const baseUrl = llm.baseUrl.trim().replace(/\/+$/, '');
  if (!baseUrl) {
    throw new ChunkdError(
      'NOT_CONFIGURED',
      `The slumber chunker needs an LLM and none is configured: start chunkd with ${named('llm-base-url')} pointing at an OpenAI-compatible chat-completions server, e.g. http://127.0.0.1:8080/v1 (llama.cpp) or http://127.0.0.1:11434/v1 (Ollama), with --${settingOf('llm-model').flag} for servers that need a model name.`,
    );
  }
  return {
    baseUrl,
    model: llm.model.trim(),
    key: await apiKey(llm),
    timeoutMs: positive(llm.timeoutMs, DEFAULT_TIMEOUT_MS),
    maxCalls: positive(llm.maxCalls, DEFAULT_MAX_CALLS),
  };
}

async function apiKey(llm: Host['llm']): Promise<string> {
  if (!llm.apiKeyFile) return llm.apiKey.trim();
  try {
    return (await readFile(llm.apiKeyFile, 'utf8')).trim();
  } catch {
    throw new ChunkdError(
      'NOT_CONFIGURED',
      `The LLM key file named by ${named('llm-api-key-file')} can no longer be read: restore it or restart chunkd with a readable file.`,
    );
  }
}

const positive = (raw: string | undefined, fallback: number) => {
  const n = Number(raw);
  return raw && Number.isInteger(n) && n > 0 ? n : fallback;
};
