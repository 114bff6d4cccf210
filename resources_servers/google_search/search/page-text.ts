/**
 * What `browse` answers for a page: its readable text, then upstream's length rule. Upstream extracts the
 * main text with trafilatura; we convert the HTML with html-to-text, leaving out the parts trafilatura drops
 * (navigation, headers, footers, scripts, forms, images), so the text is close but not byte-identical.
 */
import { compile } from 'html-to-text';
import { pythonLength, pythonSlice, pythonSplit } from 'ngym';

/** Upstream's limit: a page of more than this many whitespace-separated words is cut. */
const MAX_WORDS = 10_000;
/** Characters kept from each end of a cut page. */
const KEPT_CHARACTERS = 5_000;

const SKIPPED = ['nav', 'header', 'footer', 'aside', 'script', 'style', 'noscript', 'form', 'svg', 'iframe', 'img', 'button'];
const PLAIN_HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }));

/** A compiled converter per HTML size limit (compiling once saves the option parsing per page). */
const converters = new Map<number, (html: string) => string>();

function converter(maxHtmlCharacters: number): (html: string) => string {
  let convert = converters.get(maxHtmlCharacters);
  if (convert === undefined) {
    convert = compile({
      wordwrap: false,
      // Past this many characters of HTML the rest is ignored: a huge page costs bounded time and memory.
      limits: { maxInputLength: maxHtmlCharacters, ellipsis: '...' },
      selectors: [
        ...SKIPPED.map((selector) => ({ selector, format: 'skip' })),
        ...PLAIN_HEADINGS,
        { selector: 'a', options: { ignoreHref: true } },
        { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
      ],
    });
    converters.set(maxHtmlCharacters, convert);
  }
  return convert;
}

/** The readable text of an HTML page, its first `maxHtmlCharacters` characters read. */
export function htmlToPageText(html: string, maxHtmlCharacters: number): string {
  return converter(maxHtmlCharacters)(html).trim();
}

/** Upstream's cut: more than 10,000 words keeps the first and last 5,000 characters around "...". */
export function truncatePageText(text: string): string {
  if (pythonSplit(text).length <= MAX_WORDS) return text;
  const length = pythonLength(text);
  return `${pythonSlice(text, 0, KEPT_CHARACTERS)}...${pythonSlice(text, Math.max(0, length - KEPT_CHARACTERS))}`;
}
