/**
 * Headings of a plain-text benchmark corpus, as a chef would give them (Structure.headings), for the
 * index-text measurement: ATX lines (`## Title`) and MediaWiki lines (`= Title =`, `= = Section = =`
 * as WikiText spaces them). Offsets in code points, like the evaluation's. Of the five benchmark
 * corpora only wikitexts has any (MediaWiki); chunkd's markdown chef reads ATX and setext headings
 * only, so on wikitexts this stands in for a chef that knew its syntax.
 */
export interface CorpusHeading {
  level: number;
  text: string;
  start: number;
  end: number;
}

const ATX = /^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$/;
const WIKI = /^\s*((?:=\s*){1,6}?)\s*([^=\s][^=]*?)\s*((?:=\s*){1,6})$/;

export function corpusHeadings(text: string): CorpusHeading[] {
  const out: CorpusHeading[] = [];
  let at = 0; // code points before the line
  for (const line of text.split('\n')) {
    const m = ATX.exec(line);
    const w = m ? undefined : WIKI.exec(line);
    const level = m ? m[1]!.length : w ? (w[1]!.match(/=/g) ?? []).length : 0;
    if (level && (!w || level === (w[3]!.match(/=/g) ?? []).length)) {
      out.push({ level: Math.min(level, 6), text: (m ? m[2]! : w![2]!).trim(), start: at, end: at + [...line].length });
    }
    at += [...line].length + 1;
  }
  return out;
}

/** The heading path in force at code point `at`: the last heading of each level above it, outermost first. */
export function pathAt(headings: readonly CorpusHeading[], at: number): string[] {
  const path: CorpusHeading[] = [];
  for (const h of headings) {
    if (h.start > at) break;
    while (path.length && path[path.length - 1]!.level >= h.level) path.pop();
    path.push(h);
  }
  return path.map((h) => h.text);
}
