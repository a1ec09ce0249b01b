import type { HfTokenizer } from './hf.js';

/** The punctuation class of @huggingface/tokenizers' BertPreTokenizer: Unicode P* plus ASCII symbols. */
const PUNCT = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const PIECE = new RegExp(`[^\\s${PUNCT}]+|[${PUNCT}]`, 'gu');

interface WordLevelJson {
  normalizer?: unknown;
  pre_tokenizer?: unknown;
  post_processor?: unknown;
  model?: { type?: string; vocab?: unknown };
  added_tokens?: { content: string }[];
}

/**
 * A direct implementation of the commonest static-model tokenizer.json — WordLevel vocabulary,
 * BertPreTokenizer (runs of non-space, non-punctuation characters; each punctuation character
 * alone), optional Lowercase, no post-processor — which is what chunkd's embedded model uses.
 * It gives the library's ids and counts (the pieces are the library's own regular expression's
 * matches) but reads each text once, with no token strings to re-align: the generic path spends
 * most of its time there, and the semantic chunker and the embeddings refinery tokenize every
 * byte they see. Texts holding an added token's content (e.g. a literal "[UNK]"), which the library
 * matches before pre-tokenizing, go to the generic path. Undefined for any other tokenizer.json.
 */
export function wordLevelFastPath(json: WordLevelJson, generic: HfTokenizer): HfTokenizer | undefined {
  const { normalizer, pre_tokenizer: pre, post_processor: post, model, added_tokens: added = [] } = json;
  if (model?.type !== 'WordLevel' || !model.vocab || typeof model.vocab !== 'object') return undefined;
  if (typeOf(pre) !== 'BertPreTokenizer' || post) return undefined;
  if (normalizer && typeOf(normalizer) !== 'Lowercase') return undefined;
  const lower = typeOf(normalizer) === 'Lowercase';
  const vocab = new Map(Object.entries(model.vocab as Record<string, number>));
  const unk = generic.unkId ?? 0;
  const contents = added.map((t) => t.content).filter((c) => c.length > 0);
  const addedRe = contents.length ? new RegExp(contents.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), lower ? 'iu' : 'u') : undefined;
  const hasAdded = (text: string) => addedRe !== undefined && addedRe.test(text);

  const count = (text: string) => {
    PIECE.lastIndex = 0;
    let n = 0;
    while (PIECE.exec(text) !== null) n++;
    return n;
  };
  return {
    ...generic,
    count: (text) => (hasAdded(text) ? generic.count(text) : count(text)),
    ids(text, withSpecial = false) {
      if (hasAdded(text)) return generic.ids(text, withSpecial);
      // The library lowercases the whole text before it splits it; so do we (context-dependent
      // lowercasing such as a final sigma then agrees too).
      return ((lower ? text.toLowerCase() : text).match(PIECE) ?? []).map((piece) => vocab.get(piece) ?? unk);
    },
    ends(text) {
      if (hasAdded(text)) return generic.ends(text);
      const out = new Uint32Array(count(text));
      PIECE.lastIndex = 0;
      let k = 0;
      for (let m = PIECE.exec(text); m !== null; m = PIECE.exec(text)) out[k++] = m.index + m[0].length;
      if (k > 0) out[k - 1] = text.length; // trailing whitespace belongs to the last token, as in alignTokens
      return out;
    },
  };
}

const typeOf = (section: unknown) => (section && typeof section === 'object' ? (section as { type?: unknown }).type : undefined);
