import { tooLarge } from '../../kernel/caps.js';
import { settingOf } from '../settings.js';
import type { PipelineRecord } from '../storage/store.js';

/**
 * What a pipeline takes in storage: the UTF-8 bytes of its steps as JSON (validated, defaults
 * filled in), its name and its description. The one computation of it: the stores keep it per row
 * to bound a list page (service/storage/sqlite.ts, postgres.ts), so all agree on any back-end.
 */
export const storedSizeOf = (stepsJson: string, name: string, description: string | null): number =>
  Buffer.byteLength(stepsJson) + Buffer.byteLength(name) + Buffer.byteLength(description ?? '');

export const storedSize = (p: Pick<PipelineRecord, 'name' | 'description' | 'steps'>): number => storedSizeOf(JSON.stringify(p.steps), p.name, p.description);

/** A stored pipeline is read back whole on every list page and every execute, so its size is capped when it is written. */
export function checkStoredSize(p: Pick<PipelineRecord, 'name' | 'description' | 'steps'>, max: number): void {
  const size = storedSize(p);
  if (size > max) {
    throw tooLarge(
      `The pipeline takes ${size} bytes as stored (its steps as JSON with defaults filled in, its name and description, in UTF-8)`,
      String(max),
      settingOf('maxPipelineBytes'),
      'Use fewer or smaller steps',
    );
  }
}
