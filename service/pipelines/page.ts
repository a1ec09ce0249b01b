import { validationError } from '../../kernel/errors.js';
import { InvalidCursorError, type PipelinePage, type PipelineStore } from '../storage/store.js';
import { PAGE_MAX } from '../../wire/pipelines.js';

/**
 * One page of stored pipelines for either pipeline API. Pipelines stored before the size cap (or
 * under a higher one) may be larger: a page is never more than a full page of pipelines at the cap.
 * A cursor the store did not make is a 422 on the query; `howToPage` tells the client what to send.
 */
export async function listPage(
  store: PipelineStore,
  page: { limit: number; cursor?: string },
  maxPipelineBytes: number,
  howToPage: string,
): Promise<PipelinePage> {
  try {
    return await store.list({ limit: page.limit, after: page.cursor, maxBytes: PAGE_MAX * maxPipelineBytes });
  } catch (e) {
    if (!(e instanceof InvalidCursorError)) throw e;
    throw validationError(['query', 'cursor'], `cursor is not one this server gave: start again without it, then ${howToPage}.`, 'cursor_invalid');
  }
}
