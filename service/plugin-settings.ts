import { parseModelMap } from '../kernel/model-map.js';
import { bindKernelHost } from './kernel-host.js';
import { exportLlmSettings } from './llm-settings.js';
import type { Settings } from './settings.js';

/**
 * The settings the kernel and the plugins are given (also for `chunkd chunk` and the other commands,
 * which run plugins without a server): the kernel's through kernel/host.ts (model roots, model map,
 * recipes folder; worker threads get them as they start), each replacing the last app's in this
 * process; slumber's LLM settings through the environment. A module of its own, so a command that
 * only chunks loads none of the server's services (PostgreSQL's client, the job and file stores).
 */
export function exportPluginSettings(settings: Settings): void {
  parseModelMap(settings.modelMap); // a malformed entry stops the start, naming it
  bindKernelHost(settings);
  exportLlmSettings(settings);
}
