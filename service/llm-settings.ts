import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { ChunkdError } from '../kernel/errors.js';
import { envOf, settingText, type Settings } from './settings.js';

/**
 * The LLM settings reach the slumber plugin through the environment, which the kernel's host reads
 * (service/kernel-host.ts; a plugin cannot read the service's settings), and worker threads get
 * the host as their pool starts them. Each variable is set or removed, so one app's
 * LLM never leaks into the next app booted in this process. CHUNKD_LLM_API_KEY is the operator's
 * own variable and is left alone; a key file is checked here so a wrong path stops start-up.
 */
export function exportLlmSettings(settings: Settings): void {
  const base = settings.llmBaseUrl.trim();
  if (base && !/^https?:\/\/[^/]/i.test(base)) {
    throw new ChunkdError('BAD_REQUEST', `${settingText('llmBaseUrl')} must be an http:// or https:// URL such as http://127.0.0.1:8080/v1; got '${base}'.`);
  }
  const keyFile = settings.llmApiKeyFile ? resolve(settings.llmApiKeyFile) : '';
  if (keyFile) {
    try {
      accessSync(keyFile, constants.R_OK);
    } catch {
      throw new ChunkdError('BAD_REQUEST', `${settingText('llmApiKeyFile')}: cannot read '${keyFile}'; give a readable file holding the key.`);
    }
  }
  put(envOf('llmBaseUrl'), base);
  put(envOf('llmModel'), settings.llmModel.trim());
  put(envOf('llmApiKeyFile'), keyFile);
  put(envOf('llmTimeoutMs'), String(settings.llmTimeoutMs));
  put(envOf('llmMaxCalls'), String(settings.llmMaxCalls));
}

function put(name: string, value: string): void {
  if (value) process.env[name] = value;
  else delete process.env[name];
}
