import type { ExtractPoolOptions } from '../../kernel/engine/index.js';
import { settingPairText, type Settings } from '../settings.js';

/** The extraction pool as the server settings size it (kernel/engine/placement/extract-pool.ts), for every route that runs a chef. */
export function extractPoolSettings(
  settings: Pick<Settings, 'extractThreads' | 'maxExtractMs' | 'maxExtractQueue'> & Partial<Pick<Settings, 'workerNice'>>,
): Partial<Omit<ExtractPoolOptions, 'memoryMb'>> {
  return {
    ...(settings.extractThreads === 'auto' ? {} : { threads: settings.extractThreads }),
    maxMs: settings.maxExtractMs,
    maxQueue: settings.maxExtractQueue,
    ...(settings.workerNice === undefined ? {} : { nice: settings.workerNice }),
    names: { maxMs: settingPairText('maxExtractMs'), maxQueue: settingPairText('maxExtractQueue') },
  };
}
