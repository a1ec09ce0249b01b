import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Setting } from '../kernel/caps.js';
import { setHost, type Host } from '../kernel/host.js';
import { SETTINGS, type Settings } from './settings.js';

/**
 * What the kernel is told of the machine (kernel/host.ts): the kernel reads no environment
 * variable, this module does. From the settings: the model roots, the model map and the recipes
 * folder. From the environment, read at each use (so a change takes effect while the server runs,
 * as the tests rely on): packages to treat as absent, the Hugging Face cache and endpoint (the
 * variables huggingface_hub reads), the OpenAI-compatible embeddings API, and the LLM settings
 * (service/llm-settings.ts puts them there at boot, so worker threads see them too).
 */

/** Packages chunkd treats as not installed (comma-separated): see the server without an optional package, without uninstalling it. */
export const HIDE_PACKAGES_ENV = 'CHUNKD_HIDE_PACKAGES';

/** The LLM server's key itself, for operators who keep it in the environment rather than a file (--llm-api-key-file wins). */
export const LLM_API_KEY_ENV = 'CHUNKD_LLM_API_KEY';

/** The settings the kernel is given. */
export type KernelSettings = Pick<Settings, 'modelsDir' | 'modelMap' | 'recipesDir'>;

/** Every setting's flag and environment variable, as the kernel's messages name them. */
const NAMES: Record<string, Setting> = Object.fromEntries(Object.entries(SETTINGS).map(([flag, spec]) => [flag, { flag, env: spec.env }]));

const list = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The host as `env` and `settings` describe it. Without settings (a plugin or the kernel used
 * directly, as the tests do) the settings' own variables stand in for them. With settings, an
 * empty --models-dir leaves the variable's roots in place, as it always has.
 */
export function hostOf(env: NodeJS.ProcessEnv, settings?: KernelSettings): Host {
  const variable = (name: keyof typeof SETTINGS) => env[SETTINGS[name].env];
  return {
    hiddenPackages: list(env[HIDE_PACKAGES_ENV]),
    modelsDirs: settings?.modelsDir.length ? settings.modelsDir.map((d) => resolve(d)) : list(variable('models-dir')),
    modelMap: settings ? settings.modelMap : list(variable('model-map')),
    recipesDir: settings ? (settings.recipesDir ? resolve(settings.recipesDir) : '') : (variable('recipes-dir') ?? ''),
    hubCache: env.HF_HUB_CACHE || join(env.HF_HOME ?? join(homedir(), '.cache', 'huggingface'), 'hub'),
    hubEndpoint: env.HF_ENDPOINT ?? '',
    openaiBaseUrl: env.OPENAI_BASE_URL ?? '',
    openaiApiKey: env.OPENAI_API_KEY ?? '',
    llm: {
      baseUrl: variable('llm-base-url') ?? '',
      model: variable('llm-model') ?? '',
      apiKeyFile: variable('llm-api-key-file') ?? '',
      apiKey: env[LLM_API_KEY_ENV] ?? '',
      apiKeyVariable: LLM_API_KEY_ENV,
      timeoutMs: variable('llm-timeout-ms') ?? '',
      maxCalls: variable('llm-max-calls') ?? '',
    },
    settings: NAMES,
  };
}

/** Point the kernel at this process's environment, read at each use, and at these settings (the assembly's and the CLI's). */
export function bindKernelHost(settings?: KernelSettings): void {
  setHost(() => hostOf(process.env, settings));
}
