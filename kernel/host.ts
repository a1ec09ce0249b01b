import { homedir } from 'node:os';
import { join } from 'node:path';
import { getEnvironmentData, isMainThread, setEnvironmentData } from 'node:worker_threads';
import type { Setting } from './caps.js';

/**
 * What the kernel is told of the machine it runs on: where models and recipes are, which names the
 * operator mapped, the API endpoints, and how the settings are spelled. The service gives it
 * (service/kernel-host.ts, from the settings and the environment); the kernel reads no environment
 * variable itself. Worker threads get a copy as they start (shareHost), as they once got a copy of
 * the environment.
 */
export interface Host {
  /** Packages treated as not installed: how the server behaves without them (an operator's or a test's view). */
  hiddenPackages: readonly string[];
  /** The model roots the operator configured, before the Hugging Face cache and the shipped models. */
  modelsDirs: readonly string[];
  /** The operator's model map: `requested=installed` entries. */
  modelMap: readonly string[];
  /** The folder of the operator's recursive recipes, searched before the shipped ones; '' for none. */
  recipesDir: string;
  /** The Hugging Face hub cache, where hub names are looked up. */
  hubCache: string;
  /** A hub (or mirror) that hub names missing from the cache are downloaded from; '' for none. */
  hubEndpoint: string;
  /** An OpenAI-compatible embeddings server ('' for OpenAI's own) and its key ('' for none). */
  openaiBaseUrl: string;
  openaiApiKey: string;
  /**
   * The OpenAI-compatible chat server the slumber chunker asks, as the operator set it (raw text:
   * the plugin checks and defaults each value); the key is the key file's path or the key itself,
   * from the variable `apiKeyVariable` names.
   */
  llm: { baseUrl: string; model: string; apiKeyFile: string; apiKey: string; apiKeyVariable: string; timeoutMs: string; maxCalls: string };
  /** How the operator sets each setting, by its name (`models-dir` → `--models-dir`, `CHUNKD_MODELS_DIR`), for messages that name one. */
  settings: Readonly<Record<string, Setting>>;
}

/** What the kernel assumes when told nothing (a plugin used as a library): no operator settings. */
export const BARE_HOST: Host = {
  hiddenPackages: [],
  modelsDirs: [],
  modelMap: [],
  recipesDir: '',
  hubCache: join(homedir(), '.cache', 'huggingface', 'hub'),
  hubEndpoint: '',
  openaiBaseUrl: '',
  openaiApiKey: '',
  llm: { baseUrl: '', model: '', apiKeyFile: '', apiKey: '', apiKeyVariable: '', timeoutMs: '', maxCalls: '' },
  settings: {},
};

const SHARED = 'chunkd:host';

/** In a worker thread: the host its pool shared as it started the thread. */
const inherited = isMainThread ? undefined : (getEnvironmentData(SHARED) as Host | undefined);
let source: () => Host = fixed(inherited ?? BARE_HOST);

function fixed(host: Host): () => Host {
  return () => host;
}

/**
 * Tell the kernel where it runs: a Host, or a function read at each use (the service's, which
 * reads the environment then, so a change made while the server runs takes effect as before).
 */
export function setHost(host: Host | (() => Host)): void {
  source = typeof host === 'function' ? host : fixed(host);
}

/** The host as the kernel sees it now. */
export const host = (): Host => source();

/** Hand worker threads started from now on the host as it is now (a pool calls this as it starts its threads). */
export function shareHost(): void {
  setEnvironmentData(SHARED, host());
}

/** How the operator sets a setting the kernel names in a message (the flag alone when the service told none). */
export function settingOf(name: string): Setting {
  return host().settings[name] ?? { flag: name, env: '' };
}
