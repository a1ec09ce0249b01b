/**
 * The corpora of the held-out protocol, each on its own (its text, its questions, its own index),
 * read from one or more benchmark data folders (corpora/*.md, questions.csv, reference-results.md),
 * and the benchmark's reference rows per corpus to be matched (recall ≥ and IoU ≥).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readBenchmark } from '../../service/evaluation/benchmark-files.js';
import type { EvalDocument, EvalQuestion } from '../../service/evaluation/spec.js';

export type Retriever = 'bm25' | 'embeddings';

/** Recall and IoU means in %, as printed (recall to 0.1, IoU to 0.01). */
export interface Point {
  recall: number;
  iou: number;
}

export interface Corpus {
  id: string;
  document: EvalDocument;
  questions: EvalQuestion[];
  /** Reference rows measured on this corpus alone, by name; absent when the data has none per corpus. */
  reference?: Map<string, Record<Retriever, Point>>;
}

/** The corpora of every folder, in folder order, each with its questions. */
export function readCorpora(dirs: string[]): Corpus[] {
  return dirs.flatMap((dir) => {
    const { documents, questions } = readBenchmark(join(dir, 'corpora'), join(dir, 'questions.csv'));
    const refs = perCorpusReference(dir);
    return documents.map((document) => ({
      id: document.id,
      document,
      questions: questions.filter((q) => q.references.every((r) => r.document === document.id)),
      reference: refs.get(document.id),
    }));
  });
}

/**
 * Tables of reference-results.md whose columns are `<corpus> BM25` and `<corpus> built-in model`
 * with `recall / IoU` cells (rows measured with each corpus as its own index).
 */
function perCorpusReference(dir: string): Map<string, Map<string, Record<Retriever, Point>>> {
  const out = new Map<string, Map<string, Record<Retriever, Point>>>();
  const file = join(dir, 'reference-results.md');
  if (!existsSync(file)) return out;
  const cells = (l: string) =>
    l
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
  const point = (cell: string | undefined): Point | undefined => {
    const m = /^([\d.]+)\s*\/\s*([\d.]+)$/.exec(cell ?? '');
    return m ? { recall: Number(m[1]), iou: Number(m[2]) } : undefined;
  };
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('|') || lines[i - 1]?.startsWith('|')) continue;
    const header = cells(lines[i]!);
    const corpora = header.map((h) => /^(\S+) BM25$/.exec(h)?.[1]).filter((c): c is string => !!c);
    for (const corpus of corpora) {
      const bm = header.indexOf(`${corpus} BM25`);
      const em = header.indexOf(`${corpus} built-in model`);
      if (em < 0) continue;
      const rows = new Map<string, Record<Retriever, Point>>();
      for (let j = i + 2; j < lines.length && lines[j]!.startsWith('|'); j++) {
        const row = cells(lines[j]!);
        const bm25 = point(row[bm]);
        const embeddings = point(row[em]);
        if (bm25 && embeddings) rows.set(row[0]!, { bm25, embeddings });
      }
      if (rows.size) out.set(corpus, rows);
    }
  }
  return out;
}

/** The data folders the setting names: CHUNKD_QUALITY_DATA, several joined with ':' (or ';' on Windows). */
export function dataDirs(setting: string | undefined, delimiter: string): string[] {
  return (setting ?? '').split(delimiter).filter(Boolean);
}
