import { createRequire } from 'node:module';

type Parser = typeof import('htmlparser2').Parser;

/**
 * How deep an HTML document nests its elements, as html-to-text's own parser (htmlparser2) nests
 * them: that parser runs here with callbacks only (no tree), and the depth is the count of
 * elements it has opened and not yet closed. Its rules therefore hold by construction: elements
 * an opening tag closes implicitly (p, li, td, option, …, but not <html> or <thead>), void
 * elements, end tags that match no open element (`</x>` closes nothing), raw text (script,
 * style, title, textarea, xmp), comments and CDATA, `/>` only inside svg or math.
 *
 * htmlparser2 keeps its open elements in an array it shifts and searches at every tag, so a
 * document 80,000 elements deep costs time in proportion to the square of its length: the scan
 * stops as soon as the depth passes `cap` (the limit), so the parser's stack never holds more
 * than cap + 1 elements and the scan is linear in the input. The document is refused before the
 * real parse when the answer is over the limit.
 */
export function nestingDepth(html: string, cap = Number.POSITIVE_INFINITY): number {
  const HtmlParser = parserClass();
  let depth = 0;
  let deepest = 0;
  const parser = new HtmlParser({
    // onopentag, not onopentagname: a tag cut off by the end of the input opens no element.
    onopentag() {
      if (++depth > deepest) deepest = depth;
      if (depth > cap) throw TOO_DEEP;
    },
    onclosetag() {
      if (depth > 0) depth--;
    },
  });
  try {
    parser.end(html);
  } catch (e) {
    if (e !== TOO_DEEP) throw e;
  }
  return deepest;
}

const TOO_DEEP = Symbol('too deep');

let loaded: Parser | undefined;

/** The htmlparser2 package html-to-text imports (resolved from html-to-text's own directory, so it is the same version). */
function parserClass(): Parser {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const fromConverter = createRequire(require.resolve('html-to-text'));
    loaded = (fromConverter('htmlparser2') as typeof import('htmlparser2')).Parser;
  }
  return loaded;
}
