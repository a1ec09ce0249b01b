/**
 * The question asked for each window, and how its answer is read. Like Chonkie's SlumberChunker,
 * the LLM sees numbered passages and names the first one whose topic departs from those before
 * it; here the numbers are local to the window (0 … k−1), "no change" is k, and the answer is
 * forced into a JSON object by a JSON schema (structured output).
 */

export const SYSTEM_PROMPT = 'You split documents into sections that each keep to one topic. You answer with a JSON object only.';

export function userPrompt(passages: readonly string[]): string {
  const k = passages.length;
  const listed = passages.map((p, i) => `ID ${i}: ${p}`).join('\n');
  return [
    `Below are ${k} consecutive passages of one document, numbered from 0 to ${k - 1}.`,
    'Find the first passage whose content clearly moves away from the passages before it in topic or meaning.',
    `Passage 0 always belongs to the current section, so the answer is between 1 and ${k}: answer ${k} when all the passages continue one topic.`,
    'Prefer sections of a manageable length over very long ones.',
    'Answer with the JSON object {"split_index": <number>} and nothing else.',
    '',
    '<passages>',
    listed,
    '</passages>',
  ].join('\n');
}

/** The chat-completions request body for one window of `passages`. */
export function requestBody(model: string, passages: readonly string[]): Record<string, unknown> {
  const k = passages.length;
  return {
    ...(model ? { model } : {}),
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: userPrompt(passages) },
    ],
    temperature: 0,
    // The answer is a few tokens; the cap stops a server that ignores the schema from rambling.
    max_tokens: 64,
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'split',
        strict: true,
        schema: {
          type: 'object',
          properties: { split_index: { type: 'integer', minimum: 1, maximum: k } },
          required: ['split_index'],
          additionalProperties: false,
        },
      },
    },
  };
}

/**
 * The split index in 1 … k, or undefined when the answer cannot be used (not JSON, no
 * split_index, not a whole number, out of range): the caller then falls back to the window's end.
 * A JSON object wrapped in prose or a code fence is still read (small local models add them).
 */
export function parseSplitIndex(content: string, k: number): number | undefined {
  const value = splitIndexOf(parseObject(content));
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= k ? n : undefined;
}

function parseObject(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    const m = /\{[^{}]*\}/.exec(content);
    if (!m) return undefined;
    try {
      return JSON.parse(m[0]);
    } catch {
      return undefined;
    }
  }
}

const splitIndexOf = (o: unknown): unknown =>
  o !== null && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>).split_index : undefined;
