import { tooLarge as capped } from '../kernel/caps.js';
import { Runner, DEFAULT_POOL } from '../kernel/engine/index.js';
import type { Executor } from '../kernel/engine/index.js';
import { extractPoolSettings } from './files/extract-settings.js';
import { settingOf, settingPairText, type Settings } from './settings.js';

/**
 * The settings the limits read (plain data: a worker checks them too, service/large-bodies/job.ts). The
 * extraction pool's settings are there where a runner may place an offLoop chef in that pool.
 */
export type Limits = Pick<Settings, 'maxTexts' | 'maxTextChars' | 'maxChunks' | 'maxOutputBytes' | 'maxDocumentOutputBytes' | 'maxStructureSpans'> &
  Partial<Pick<Settings, 'extractThreads' | 'maxExtractMs' | 'maxExtractQueue' | 'maxPdfDecodedBytes' | 'workerNice'>>;

/**
 * The document runner (kernel/engine/runner.ts) on this executor, under these limits' output caps; its
 * chef steps under the chefs' limits. Made once per executor and limits object, not per request:
 * the runner holds no state of its own, and copying the whole settings object into a new one on
 * every small request was a tenth of the server's CPU per request in a profile.
 */
export function runnerOf(executor: Executor, limits: Limits, isolate = false): Runner {
  let byLimits = RUNNERS.get(executor);
  if (!byLimits) RUNNERS.set(executor, (byLimits = new WeakMap()));
  let pair = byLimits.get(limits);
  if (!pair) byLimits.set(limits, (pair = [undefined, undefined]));
  return (pair[isolate ? 1 : 0] ??= newRunner(executor, limits, isolate));
}

const RUNNERS = new WeakMap<Executor, WeakMap<Limits, [Runner | undefined, Runner | undefined]>>();

const newRunner = (executor: Executor, limits: Limits, isolate: boolean): Runner =>
  new Runner(executor, {
    ...limits,
    chef: {
      ...(isolate ? { isolate } : {}),
      limits: {
        maxTextChars: limits.maxTextChars,
        maxStructureSpans: limits.maxStructureSpans,
        ...(limits.maxPdfDecodedBytes === undefined ? {} : { maxPdfDecodedBytes: limits.maxPdfDecodedBytes }),
      },
      names: LIMIT_NAMES,
      ...(limits.maxExtractMs === undefined ? {} : { pool: { ...DEFAULT_POOL, ...extractPoolSettings(limits as Required<Limits>) } }),
    },
  });

/** The batch limits of a chunker request (also a pipeline run): texts per batch and characters per text. */
export function checkTexts(input: string | string[], settings: Limits): void {
  const texts = Array.isArray(input) ? input : [input];
  if (texts.length > settings.maxTexts) throw capped(`The batch has ${texts.length.toLocaleString('en')} texts`, settings.maxTexts, settingOf('maxTexts'));
  texts.forEach((t, i) => {
    if (t.length > settings.maxTextChars) {
      const which = Array.isArray(input) ? `Text ${i}` : 'The text';
      throw capped(`${which} has ${t.length.toLocaleString('en')} characters`, settings.maxTextChars, settingOf('maxTextChars'));
    }
  });
}

/** The limit of a refinery request: chunks in one call, over all lists. */
export function checkChunks(input: unknown[], settings: Limits): void {
  checkChunkCount(
    input.reduce<number>((n, item) => n + (Array.isArray(item) ? item.length : 1), 0),
    settings,
  );
}

function checkChunkCount(count: number, settings: Limits): void {
  if (count > settings.maxChunks) throw capped(`The request has ${count.toLocaleString('en')} chunks`, settings.maxChunks, settingOf('maxChunks'));
}

/** The server settings behind the chefs' limits, as a 413 names them (kernel/engine/steps/process.ts). */
export const LIMIT_NAMES = { maxTextChars: settingPairText('maxTextChars'), maxPdfDecodedBytes: settingPairText('maxPdfDecodedBytes') };
