import type { Static } from '#typebox';
import { ChunkdError, createRecursive, loadTokenizer, settingName, settingOf, spanCounter, type ChunkerImpl, type Span } from '../../kernel/index.js';
import { budgetFor } from './budget.js';
import { chatCompletion } from './client.js';
import type { SlumberConfig } from './index.js';
import { llmConfig } from './llm-config.js';
import { parseSplitIndex, requestBody } from './prompt.js';
import { leastQuestions, windowEnd } from './windows.js';

type Config = Static<typeof SlumberConfig>;

/** How a chunk's end was chosen, in its metadata (`split_by`). */
export type SplitBy = 'llm' | 'fallback' | 'budget' | 'single';

/**
 * Candidates come from the recursive chunker (candidate_size tokens at most); then, from the first
 * candidate not yet in a chunk, a window of candidates fitting chunk_size is shown to the LLM,
 * which names the first candidate of a new topic. The chunk ends there and the next window starts
 * at that candidate. Chunks are unions of whole candidates, so they tile the input.
 */
export async function create(config: Config): Promise<ChunkerImpl> {
  const size = config.chunk_size;
  const candidates = await createRecursive({
    tokenizer: config.tokenizer,
    chunk_size: Math.min(config.candidate_size, size),
    recipe: config.recipe,
    lang: config.lang,
    min_characters_per_chunk: config.min_characters_per_chunk,
    min_characters_rule: 'chonkie',
  });
  const tokenizer = await loadTokenizer(config.tokenizer);
  return {
    async chunk(text, context) {
      const llm = await llmConfig();
      const cands = await candidates.chunk(text);
      const budget = budgetFor(context, llm.maxCalls);
      const least = leastQuestions(cands, size);
      if (least > budget.left) {
        throw new ChunkdError(
          'TOO_LARGE',
          `This text needs at least ${least} LLM questions (${cands.length} candidates in windows of chunk_size ${size} tokens) and slumber asks at most ${llm.maxCalls} per request (${budget.left} left): send less text per request, raise chunk_size, or raise ${settingName(settingOf('llm-max-calls'))}.`,
        );
      }
      const count = spanCounter(tokenizer, text).count;
      const out: Span[] = [];
      for (let i = 0; i < cands.length;) {
        const end = windowEnd(cands, i, size);
        let stop = end;
        let how: SplitBy;
        if (end - i === 1) how = 'single';
        else if (budget.left === 0) how = 'budget';
        else {
          budget.left--;
          const passages = cands.slice(i, end).map((c) => text.slice(c.start, c.end).trim());
          const answer = parseSplitIndex(await chatCompletion(llm, requestBody(llm.model, passages), context?.signal), end - i);
          if (answer === undefined) how = 'fallback';
          else {
            stop = i + answer;
            how = 'llm';
          }
        }
        const start = cands[i]!.start;
        const last = cands[stop - 1]!.end;
        out.push({ start, end: last, tokenCount: count(start, last), metadata: { split_by: how } });
        i = stop;
      }
      return out;
    },
  };
}
