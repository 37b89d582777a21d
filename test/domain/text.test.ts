import fc from 'fast-check';
import { describe, it, expect } from 'vitest';
import { cleanMultiline, cleanText } from '../../domain/text.js';

describe('tags are stripped and entities decoded', () => {
  it('keeps the text of tags and decodes entities once', () => {
    expect(cleanText("Ben &amp; Jerry's <b>x</b>")).toBe("Ben & Jerry's x");
    expect(cleanText('&amp;lt;b&amp;gt;')).toBe('&lt;b&gt;');
    expect(cleanText('caf&eacute; &#233; &#xE9;')).toBe('café é é');
  });

  it('drops script and style content entirely', () => {
    expect(cleanText('<script>alert(1)</script>Hi<style>p { color: red }</style> there')).toBe('Hi there');
    expect(cleanText('<SCRIPT type="x">alert(1)</SCRIPT>ok')).toBe('ok');
    expect(cleanText('<script>never closed')).toBeNull();
  });

  it('drops attributes, comments and links but keeps link text', () => {
    expect(cleanText('<a href="javascript:alert(1)" onclick="x()">Shop</a><!-- hidden -->')).toBe('Shop');
    expect(cleanText('<img src=x onerror=alert(1)>Name')).toBe('Name');
  });

  it('keeps characters that are not markup', () => {
    expect(cleanText('a < b & c > d "q"')).toBe('a < b & c > d "q"');
    expect(cleanText('1<2 and 3>2')).toBe('1<2 and 3>2');
    expect(cleanText('Zoë • 東京 • الدار البيضاء')).toBe('Zoë • 東京 • الدار البيضاء');
  });

  it('an escaped tag comes out as text, not as a tag to strip', () => {
    expect(cleanText('&lt;b&gt;bold&lt;/b&gt;')).toBe('<b>bold</b>');
  });
});

describe('single-line whitespace', () => {
  it('trims and collapses every whitespace run, non-breaking spaces included', () => {
    expect(cleanText('  Rue  des\tFleurs\n 12 &nbsp; ')).toBe('Rue des Fleurs 12');
  });

  it('a line break written as HTML still separates words', () => {
    expect(cleanText('Rue 1<br>Casablanca')).toBe('Rue 1 Casablanca');
    expect(cleanText('<p>Rue 1</p><p>Casablanca</p>')).toBe('Rue 1 Casablanca');
    expect(cleanText('<div>a</div><div>b</div>')).toBe('a b');
  });

  it('removes control characters PostgreSQL cannot store', () => {
    expect(cleanText('ab\u0000c\u0007d')).toBe('abcd');
  });

  it('text already tidy (single spaces) comes out as it went in, and any other whitespace collapses as before', () => {
    // Text without markup or controls: the result is exactly the plain collapse-and-trim.
    const whitespace = [' ', ' ', ' ', '\t', '\n', '\r', '\u00a0', '\u3000', '\u2009', '\ufeff', '\u205f'];
    const text = fc
      .array(fc.oneof(fc.constantFrom(...whitespace), fc.constantFrom('a', 'é', '東', '👩', ',')), { maxLength: 40 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (s) => cleanText(s) === (s.replace(/\s+/g, ' ').trim() || null)),
      { numRuns: 2000 },
    );
  });
});

describe('multi-line notes', () => {
  it('keeps newlines, trims each line and collapses spaces inside a line', () => {
    expect(cleanMultiline('  Leave at   the door \r\n  Ring twice  ')).toBe('Leave at the door\nRing twice');
  });

  it('turns <br> and blocks into line breaks', () => {
    expect(cleanMultiline('Line 1<br/>Line 2<p>Line 3</p>')).toBe('Line 1\nLine 2\nLine 3');
  });

  it('keeps at most one blank line in a row', () => {
    expect(cleanMultiline('a\n\n\n\n\nb')).toBe('a\n\nb');
  });
});

describe('empty and non-string values', () => {
  it('empty after cleaning is null', () => {
    for (const value of ['', '   ', '<b></b>', '<script>x</script>', '&nbsp;', '\n\n']) {
      expect(cleanText(value)).toBeNull();
      expect(cleanMultiline(value)).toBeNull();
    }
  });

  it('undefined and null pass through', () => {
    expect(cleanText(undefined)).toBeUndefined();
    expect(cleanText(null)).toBeNull();
  });

  it('finite numbers become strings; objects, arrays and booleans are absent', () => {
    expect(cleanText(20250)).toBe('20250');
    expect(cleanText(Number.NaN)).toBeUndefined();
    expect(cleanText({ a: 1 })).toBeUndefined();
    expect(cleanText(['x'])).toBeUndefined();
    expect(cleanText(true)).toBeUndefined();
  });
});

describe('very long strings (1 MB) clean in linear time', () => {
  const MB = 1 << 20;
  const cases: [string, string, string | null][] = [
    ['plain text', 'a'.repeat(MB), 'a'.repeat(MB)],
    ['nested unclosed tags', '<b>'.repeat(Math.floor(MB / 3)), null],
    ['nested unclosed blocks', '<div><span>'.repeat(Math.floor(MB / 11)), null],
    ['lone angle brackets', '<'.repeat(MB), '<'.repeat(MB)],
    ['many small tags', '<i>x</i>'.repeat(MB / 8), 'x'.repeat(MB / 8)],
    ['an unclosed attribute', `<a title="${'x'.repeat(MB)}`, null],
    ['an unclosed comment', `<!--${'x'.repeat(MB)}`, null],
  ];
  it.each(cases)('%s', (_, input, expected) => {
    const started = performance.now();
    expect(cleanText(input)).toBe(expected);
    // Without slicing, the nested cases take tens of seconds.
    expect(performance.now() - started).toBeLessThan(3000);
  });
});
