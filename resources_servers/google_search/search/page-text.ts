/**
 * What `browse` answers for a page: its readable text, then upstream's length rule. Upstream extracts the
 * main text with trafilatura; we convert the HTML with html-to-text, leaving out the parts trafilatura drops
 * (navigation, headers, footers, scripts, forms, images), so the text is close but not byte-identical.
 */
import { compile } from 'html-to-text';
import { pythonLength, pythonSlice, pythonSplit } from 'ngym/python-compat';

/** Upstream's limit: a page of more than this many whitespace-separated words is cut. */
const MAX_WORDS = 10_000;
/** Characters kept from each end of a cut page. */
const KEPT_CHARACTERS = 5_000;

const SKIPPED = ['nav', 'header', 'footer', 'aside', 'script', 'style', 'noscript', 'form', 'svg', 'iframe', 'img', 'button'];
const PLAIN_HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }));

// Compiled once: html-to-text parses its options on every call otherwise.
const convert = compile({
  wordwrap: false,
  // The caller cuts the HTML to its own limit (html-to-text's would log a warning per page).
  limits: { maxInputLength: Number.MAX_SAFE_INTEGER },
  selectors: [
    ...SKIPPED.map((selector) => ({ selector, format: 'skip' })),
    ...PLAIN_HEADINGS,
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
});

/** The readable text of an HTML page, of which only the first `maxHtmlCharacters` characters are read (bounded time and memory). */
export function htmlToPageText(html: string, maxHtmlCharacters: number): string {
  return convert(html.length > maxHtmlCharacters ? html.slice(0, maxHtmlCharacters) : html).trim();
}

/** Upstream's cut: more than 10,000 words keeps the first and last 5,000 characters around "...". */
export function truncatePageText(text: string): string {
  if (pythonSplit(text).length <= MAX_WORDS) return text;
  const length = pythonLength(text);
  return `${pythonSlice(text, 0, KEPT_CHARACTERS)}...${pythonSlice(text, Math.max(0, length - KEPT_CHARACTERS))}`;
}
