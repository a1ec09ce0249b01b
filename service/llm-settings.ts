import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { ChunkdError } from '../kernel/errors.js';
import type { Settings } from './settings.js';

/**
 * The LLM settings reach the slumber plugin through the environment, as the recipes folder does:
 * worker threads copy process.env when they start. Each variable is set or removed, so one app's
 * LLM never leaks into the next app booted in this process. CHUNKD_LLM_API_KEY is the operator's
 * own variable and is left alone; a key file is checked here so a wrong path stops start-up.
 */
export function exportLlmSettings(settings: Settings): void {
  const base = settings.llmBaseUrl.trim();
  if (base && !/^https?:\/\/[^/]/i.test(base)) {
    throw new ChunkdError('BAD_REQUEST', `--llm-base-url (CHUNKD_LLM_BASE_URL) must be an http:// or https:// URL such as http://127.0.0.1:8080/v1; got '${base}'.`);
  }
  const keyFile = settings.llmApiKeyFile ? resolve(settings.llmApiKeyFile) : '';
  if (keyFile) {
    try {
      accessSync(keyFile, constants.R_OK);
    } catch {
      throw new ChunkdError('BAD_REQUEST', `--llm-api-key-file (CHUNKD_LLM_API_KEY_FILE): cannot read '${keyFile}'; give a readable file holding the key.`);
    }
  }
  put('CHUNKD_LLM_BASE_URL', base);
  put('CHUNKD_LLM_MODEL', settings.llmModel.trim());
  put('CHUNKD_LLM_API_KEY_FILE', keyFile);
  put('CHUNKD_LLM_TIMEOUT_MS', String(settings.llmTimeoutMs));
  put('CHUNKD_LLM_MAX_CALLS', String(settings.llmMaxCalls));
}

function put(name: string, value: string): void {
  if (value) process.env[name] = value;
  else delete process.env[name];
}
