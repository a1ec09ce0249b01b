import { intersect, subtract, sumOfRanges, union, type Range } from './ranges.js';

/** One question's scores, as fractions (0..1). */
export interface QuestionScores {
  recall: number;
  precision: number;
  iou: number;
}

/** What the retrieved chunks cover of the references: the union of their intersections, and the reference parts no chunk reaches. */
function coverage(chunks: readonly Range[], references: readonly Range[]) {
  const hits: Range[] = [];
  const touching: Range[] = [];
  let unused: Range[] = references.map((r) => ({ ...r }));
  for (const chunk of chunks) {
    let touches = false;
    for (const ref of references) {
      const hit = intersect(chunk, ref);
      if (!hit) continue;
      touches = true;
      unused = subtract(unused, hit);
      hits.push(hit);
    }
    if (touches) touching.push(chunk);
  }
  return { covered: sumOfRanges(union(hits)), anyHit: hits.length > 0, unused, touching };
}

/**
 * The benchmark's scores for one question, given the ranges of its retrieved chunks (top k, from
 * any document) and its reference ranges:
 * - recall = covered / Σ|reference|, where covered = |∪ (chunk ∩ reference)|;
 * - precision = covered / Σ|retrieved chunk| (a sum: overlapping chunks count twice, chunks of
 *   other documents count too);
 * - IoU = covered / (Σ|retrieved chunk| + Σ|reference part no chunk reaches|).
 */
export function scoreQuestion(retrieved: readonly Range[], references: readonly Range[]): QuestionScores {
  const { covered, unused } = coverage(retrieved, references);
  const referenceChars = sumOfRanges(references);
  const retrievedChars = sumOfRanges(retrieved);
  return {
    recall: ratio(covered, referenceChars),
    precision: ratio(covered, retrievedChars),
    iou: ratio(covered, retrievedChars + sumOfRanges(unused)),
  };
}

/**
 * Precision Ω: the IoU a perfect retriever would reach with these chunks. Every chunk that touches
 * a reference (an empty intersection counts) is taken; the score is covered / |∪ (those chunks,
 * reference parts no chunk reaches)|. Measures the chunking alone, without a retriever.
 */
export function precisionOmega(chunks: readonly Range[], references: readonly Range[]): number {
  const { covered, anyHit, unused, touching } = coverage(chunks, references);
  if (!anyHit) return 0;
  return ratio(covered, sumOfRanges(union([...touching, ...unused])));
}

export interface Summary {
  mean: number;
  /** Population standard deviation (divides by n). */
  std: number;
}

/** Mean and population standard deviation (numpy's default, ddof 0); 0 and 0 for no values. */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { mean: 0, std: 0 };
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length;
  return { mean, std: Math.sqrt(variance) };
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
