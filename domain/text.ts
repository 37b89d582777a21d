// Cleaning of free text from outside systems: no HTML tags, entities decoded, tidy whitespace.
// The result is plain text, not HTML: whoever renders it as HTML must escape it.
import sanitizeHtml from 'sanitize-html';
import { decodeHTML } from 'entities';

// Elements that separate lines; kept through sanitizing (as <p> or <br />) only to become newlines.
const BLOCK_TAGS = [
  'address',
  'article',
  'blockquote',
  'dd',
  'div',
  'dl',
  'dt',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'li',
  'ol',
  'pre',
  'section',
  'table',
  'tr',
  'ul',
] as const;

const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ['br', 'p'],
  allowedAttributes: {},
  // The content of these is code or form data, not text the sender meant: dropped entirely.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'template', 'title'],
  transformTags: Object.fromEntries(BLOCK_TAGS.map((tag) => [tag, 'p'])),
};

// Where the HTML tokenizer starts a tag, comment or declaration; anything else is text.
const TAG_START = /<[a-zA-Z!/?]/;
const TAG_STARTS = new RegExp(TAG_START.source, 'g');
// The HTML parser keeps open elements in an array it unshifts into, so deep unclosed nesting
// ("<b><b><b>…") costs quadratic time. Parsing in slices of this many tags bounds that; an element
// cut by a slice boundary may leak a little script text, acceptable for input that big and odd.
const TAGS_PER_SLICE = 2000;
// The only markup left in sanitized output is the canonical form of the two allowed tags.
const LINE_BREAK_MARKUP = /<\/?p>|<br \/>/g;
// NUL cannot be stored in PostgreSQL text; other control characters are never meant in a name or note.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;
// Whitespace that collapsing would change: anything but a lone space. Tested first because replace()
// with /\s+/g builds a new string even when every run is already one space (most text).
const UNTIDY_SPACE = /[^\S ]|\s\s/;
const oneSpace = (text: string) => (UNTIDY_SPACE.test(text) ? text.replace(/\s+/g, ' ') : text);

function sliceAtTags(html: string): string[] {
  const starts = [...html.matchAll(TAG_STARTS)].map((m) => m.index);
  if (starts.length <= TAGS_PER_SLICE) return [html];
  const slices: string[] = [];
  let from = 0;
  for (let i = TAGS_PER_SLICE; i < starts.length; i += TAGS_PER_SLICE) {
    const cut = starts[i] as number;
    slices.push(html.slice(from, cut));
    from = cut;
  }
  slices.push(html.slice(from));
  return slices;
}

function toPlainText(html: string): string {
  // Without a tag start the parser would only decode entities: skip it.
  if (!TAG_START.test(html)) return decodeHTML(html);
  return sliceAtTags(html)
    .map((slice) => decodeHTML(sanitizeHtml(slice, SANITIZE_OPTIONS).replace(LINE_BREAK_MARKUP, '\n')))
    .join('');
}

// undefined and null pass through; numbers are accepted because platforms send postcodes as numbers.
// Other non-strings are treated as absent: types are validated before cleaning, not here.
function prepare(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return String(value);
  if (typeof value !== 'string') return undefined;
  return toPlainText(value).replace(CONTROL_CHARS, '');
}

// Text that cleaning would leave as it is: no tag or entity start, no control character, no whitespace but
// lone inner spaces. Most names, SKUs and URLs are such text, and skip the steps below (a 200-item
// order cleans a thousand of them per request).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_CLEAN = /[<&\u0000-\u001F\u007F]|[^\S ]| {2}|^ | $/;

/** Single-line plain text: no tags, entities decoded, whitespace runs one space, trimmed; empty → null. */
export function cleanText(value: unknown): string | null | undefined {
  if (typeof value === 'string' && value !== '' && !NOT_CLEAN.test(value)) return value;
  const text = prepare(value);
  if (text == null) return text;
  const cleaned = oneSpace(text).trim();
  return cleaned === '' ? null : cleaned;
}

/** Like cleanText but keeps line breaks (also <br>, <p> and other blocks), at most one blank line in a row. */
export function cleanMultiline(value: unknown): string | null | undefined {
  const text = prepare(value);
  if (text == null) return text;
  const cleaned = text
    .split(/\r\n|[\r\n\u2028\u2029]/)
    .map((line) => oneSpace(line).trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return cleaned === '' ? null : cleaned;
}
