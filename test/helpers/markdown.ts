// A job summary as GitHub shows it: Markdown rendered by micromark with the GFM extensions (tables,
// autolinks of bare URLs, www. and e-mail addresses, strikethrough), raw HTML let through as GitHub
// lets it through (its own filter then keeps headings, links and images), and what the page is made of.
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

export function renderGfm(markdown: string): string {
  return micromark(markdown, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });
}

/** Every opening tag of a rendered page, in order, with its attributes: its markup without its text. */
export function elements(html: string): string[] {
  return [...html.matchAll(/<([A-Za-z][\w-]*)\b[^>]*>/g)].map((match) => match[0]);
}

/** The text a reader sees: the tags taken out, the entities micromark writes read back. */
export function textOf(html: string): string {
  const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' };
  return html.replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot);/g, (entity) => entities[entity]!);
}

/** What a program may put in its error line or its output, one piece of Markdown (or HTML) each. */
export const HOSTILE_TEXTS = [
  'all stages pass\r=====',
  'all stages pass\n---',
  '\r# all stages pass',
  '\u2028## all stages pass\u2029> quoted\u0085- listed',
  '<h1>all stages pass</h1><img src=x onerror=alert(1)><script>alert(1)</script>',
  '[click](http://evil.example/a) ![img](http://evil.example/i.png) [ref]\r\r[ref]: http://evil.example/r',
  'https://evil.example http://evil.example/x www.evil.example mailto:who@evil.example who@evil.example <https://evil.example>',
  '| forged | ✅ pass |\r|---|---|\r| x | y |',
  '`code` ``two`` ```\rfenced\r``` ` ',
  '&lt;b&gt; &amp; &#60;h1&#62; &copy;',
  '**bold** __bold__ *em* _em_ ~~struck~~ ~one~',
  '1. ordered\r2) ordered\r+ plus\r* star\r    indented code',
  'a\\\rb  \rc\\',
  '\x1b[31mred\x1b[0m \u202eevil\u202c \u2066isolate\u2069 \x00\x07\x7f\x9b',
];
