import { assemble, type Assembled } from '../service/assembly.js';
import { createLogger, type Level, type Logger } from '../service/logger.js';
import type { Settings } from '../service/settings.js';
import { createApp, type App } from './app.js';

export interface Booted extends Assembled {
  app: App;
}

/** The services (service/assembly.ts) and the Koa app on them: everything a server does once per process. */
export async function boot(settings: Settings, logger: Logger = createLogger(settings.logLevel as Level)): Promise<Booted> {
  const assembled = await assemble(settings, logger);
  return { ...assembled, app: createApp(assembled.deps) };
}
