/**
 * The benchmark's own format (Chroma's chunking evaluation): a folder of corpora (`<corpus_id>.md`)
 * and a CSV of questions with columns question, references (a JSON list of {content, start_index,
 * end_index}, offsets in characters of the corpus) and corpus_id.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parseCsv } from './csv.js';
import type { EvalDocument, EvalQuestion } from './spec.js';

export class BenchmarkFormatError extends Error {}

const readWhole: ReadFile = (path, what) => {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new BenchmarkFormatError(`Cannot read the ${what} ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`);
  }
};

/** Reads one file of the benchmark (`what` names it in errors); the CLI's refuses what is not a bounded regular file. */
export type ReadFile = (path: string, what: string) => Buffer;

/**
 * The corpora the questions name, in the order the questions first name them (one index over all
 * of them, as the benchmark builds it), and the questions with their references.
 */
export function readBenchmark(corporaDir: string, questionsFile: string, read: ReadFile = readWhole): { documents: EvalDocument[]; questions: EvalQuestion[] } {
  let rows: Record<string, string>[];
  const questionsText = read(questionsFile, 'questions').toString('utf8');
  try {
    rows = parseCsv(questionsText);
  } catch (e) {
    throw new BenchmarkFormatError(`Cannot read the questions ${questionsFile}: ${(e as Error).message}`);
  }
  const ids: string[] = [];
  const questions = rows.map((row, i): EvalQuestion => {
    const line = `${questionsFile} row ${i + 2}`;
    const { question, references, corpus_id: corpus } = row;
    if (question === undefined || references === undefined || corpus === undefined) {
      throw new BenchmarkFormatError(`${line}: the CSV needs the columns question, references and corpus_id.`);
    }
    let refs: unknown;
    try {
      refs = JSON.parse(references);
    } catch {
      throw new BenchmarkFormatError(`${line}: references must be a JSON list of {"content", "start_index", "end_index"}.`);
    }
    if (!Array.isArray(refs) || !refs.every((r) => Number.isInteger(r?.start_index) && Number.isInteger(r?.end_index))) {
      throw new BenchmarkFormatError(`${line}: references must be a JSON list of {"content", "start_index", "end_index"} with whole-number offsets.`);
    }
    if (!ids.includes(corpus)) ids.push(corpus);
    return {
      question,
      references: refs.map((r: { start_index: number; end_index: number }) => ({ document: corpus, start_index: r.start_index, end_index: r.end_index })),
    };
  });
  const root = resolve(corporaDir);
  const documents = ids.map((id) => {
    const file = join(corporaDir, `${id}.md`);
    // A corpus_id names a file in the corpora folder, never one outside it (../../etc/passwd).
    const inside = relative(root, resolve(file));
    if (inside.startsWith('..') || isAbsolute(inside)) {
      throw new BenchmarkFormatError(
        `The questions name corpus '${id}', which is outside ${corporaDir}: a corpus_id is the name of a file in that folder, without .md.`,
      );
    }
    try {
      return { id, text: read(file, `corpus '${id}'`).toString('utf8') };
    } catch (e) {
      // A missing file is most often a corpus_id written with its extension or another name.
      if (e instanceof Error && / does not exist/.test(e.message))
        throw new BenchmarkFormatError(`${e.message.replace(/\.?\s*$/, '')}: the corpus_id is the file name without .md.`);
      throw e;
    }
  });
  return { documents, questions };
}
