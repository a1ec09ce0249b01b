/**
 * The shipped retrieval presets (presets/retrieval/*.json), read once for the README's table
 * (`npm run docs`), their test and the held-out bench's check that they are the chosen set.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../kernel/paths.js';

export const PRESETS_DIR = join(ROOT, 'presets', 'retrieval');

export interface PresetFile {
  /** The file name, e.g. `default-passage-400.json`. */
  file: string;
  path: string;
  pipeline: { name: string; description: string; steps: unknown[] };
}

export function presetFiles(): PresetFile[] {
  return readdirSync(PRESETS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, path: join(PRESETS_DIR, file), pipeline: JSON.parse(readFileSync(join(PRESETS_DIR, file), 'utf8')) }));
}

export function presetsTable(): string {
  const rows = presetFiles().map((p) => `| \`${p.file}\` | ${p.pipeline.description} |`);
  return ['| preset (presets/retrieval/) | what it is for |', '|---|---|', ...rows].join('\n');
}
