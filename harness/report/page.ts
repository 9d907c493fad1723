// A self-contained HTML page and the one way text gets into it: the `html` template, which escapes
// every interpolated string (control characters shown as `\x1b`, markup characters as entities), and
// a Content-Security-Policy that admits the page's own style and script and nothing else, so that a
// program's text that holds markup shows as text, and could not run or fetch anything even if an
// escape were missed. The run's report (html.ts) and a class's gradebook (classroom/gradebook.ts) are
// such pages.
import { createHash } from 'node:crypto';
import { escapeControls } from '../terminal-text.ts';

/** The element a report's page scrolls to when it opens (`page`'s `scroll`). */
export const FIRST_FAILURE_ID = 'first-failure';

/** Markup made here; anything else put into the page is text, and escaped. */
export class Html {
  constructor(readonly markup: string) {}
}

export type Part = Html | string | number | false | null | undefined | readonly Part[];

/** Template for markup: each interpolated string is escaped, Html is kept, false/null/undefined are nothing, arrays joined. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  return new Html(strings.reduce((markup, text, index) => markup + text + (index < parts.length ? render(parts[index]!) : ''), ''));
}

function render(part: Part): string {
  if (part instanceof Html) return part.markup;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === false || part === null || part === undefined) return '';
  return escapeText(String(part));
}

export function join(parts: readonly (Html | string)[], separator: string): Html {
  return new Html(parts.map(render).join(escapeText(separator)));
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Control characters shown as `\x1b` and the like (newlines and tabs kept), markup characters as entities. */
function escapeText(text: string): string {
  return text
    .split('\n')
    .map(escapeControls)
    .join('\n')
    .replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}

/** Where a page served live (watch mode, live-page.ts) hears that a newer grading was written. */
export const LIVE_EVENTS = '/events';

/** A live page reloads when told to; opened from its file, it has nothing to listen to. */
const LIVE_SCRIPT = `if (location.protocol === 'http:') new EventSource(${JSON.stringify(LIVE_EVENTS)}).onmessage = () => location.reload();`;

const SCRIPT = `if (!location.hash) document.getElementById(${JSON.stringify(FIRST_FAILURE_ID)})?.scrollIntoView({ block: 'start' });`;

const STYLE = `
:root { --pass: #1a7f37; --fail: #cf222e; --error: #bc4c00; --dim: #6e7781; --line: #8c959f; --client: #0969da; --server: #8250df; --soft: #f6f8fa; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem 4rem; color: #1f2328; }
h1 { font-size: 1.4rem; margin: 0.5rem 0; } h2 { font-size: 1.15rem; margin: 2rem 0 0.5rem; } h3, h4, figcaption { font-size: 0.95rem; margin: 0.75rem 0 0.25rem; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { background: var(--soft); padding: 0.5rem 0.75rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; margin: 0.25rem 0; }
.dim, .facts { color: var(--dim); } .facts { margin: 0.25rem 0; }
.badge { display: inline-block; white-space: nowrap; border-radius: 0.3rem; padding: 0 0.4rem; color: #fff; font-weight: 600; font-size: 0.85em; background: var(--dim); }
.badge.status-pass { background: var(--pass); } .badge.status-fail { background: var(--fail); } .badge.status-error, .badge.status-timeout, .badge.status-crash, .badge.status-interrupted { background: var(--error); }
.count { margin-right: 0.75rem; font-weight: 600; } .count.status-pass { color: var(--pass); } .count.status-fail { color: var(--fail); } .count.status-error, .count.status-timeout, .count.status-crash { color: var(--error); }
.notes li { color: var(--error); }
details.check { border-left: 3px solid var(--line); margin: 0.4rem 0; padding: 0.2rem 0 0.2rem 0.75rem; }
details.check.status-pass { border-color: var(--pass); } details.check:not(.status-pass) { border-color: var(--fail); }
details.check > summary { cursor: pointer; } .check .name { font-weight: 600; } .check .message { display: block; margin-left: 1.2rem; }
.difference .heading { font-weight: 700; } .difference .dim, .difference .mark { color: var(--dim); }
.difference .expected, .difference .expected-mark, .difference .caret-expected { color: var(--pass); }
.difference .actual, .difference .actual-mark, .difference .caret-actual { color: var(--fail); }
.difference .expected-mark, .difference .actual-mark { opacity: 0.7; } .difference .caret-expected, .difference .caret-actual { font-weight: 700; }
.hints { list-style: none; padding: 0; } .hints b { color: #9a6700; }
.protocol ol { margin: 0.25rem 0; padding-left: 1.5rem; } .diagnosis b { color: var(--fail); }
.kept > summary { cursor: pointer; color: var(--dim); }
.exchange { margin: 0.75rem 0; } .lanes { display: flex; justify-content: space-between; font-weight: 600; font-size: 0.85rem; }
.lanes span:first-child { color: var(--client); } .lanes span:last-child { color: var(--server); }
.sequence { list-style: none; margin: 0; padding: 0.25rem 0;
  background: linear-gradient(var(--client), var(--client)) 1rem 0 / 2px 100% no-repeat, linear-gradient(var(--server), var(--server)) calc(100% - 1rem) 0 / 2px 100% no-repeat; }
.sequence > li { margin: 0 1rem; padding: 0.15rem 0; }
.step > details > summary { list-style: none; cursor: pointer; } .step > details > summary::-webkit-details-marker { display: none; }
.arrow { position: relative; display: block; padding: 0 1rem 0.1rem; border-bottom: 2px solid var(--client); font: 13px/1.4 ui-monospace, monospace; overflow-wrap: anywhere; }
.from-server .arrow { border-color: var(--server); text-align: right; }
.kind-response .arrow { border-bottom-style: dashed; } .kind-notification .arrow { border-bottom-style: dotted; } .kind-line .arrow { color: var(--dim); } .kind-transport.from-server .arrow { color: var(--fail); }
.arrow::after { content: ''; position: absolute; bottom: -6px; border: 5px solid transparent; }
.from-client .arrow::after { right: -1px; border-left: 9px solid var(--client); border-right: 0; }
.from-server .arrow::after { left: -1px; border-right: 9px solid var(--server); border-left: 0; }
.diverged .arrow { border-bottom-color: var(--fail); color: var(--fail); } .from-client.diverged .arrow::after { border-left-color: var(--fail); }
.recorded { display: block; color: var(--pass); } .recorded::before { content: '≠ '; }
.flag { display: inline-block; margin-left: 0.5rem; padding: 0 0.35rem; border-radius: 0.25rem; background: var(--fail); color: #fff; font: 600 12px system-ui, sans-serif; }
.step .diagnosis { margin: 0.1rem 1rem 0.3rem; font-size: 0.9rem; }
table.gradebook { border-collapse: collapse; } .gradebook th, .gradebook td { padding: 0.2rem 0.6rem; border-bottom: 1px solid var(--soft); text-align: left; }
.gradebook td.status-pass { color: var(--pass); } .gradebook td.status-fail, .gradebook td.status-error { color: var(--fail); }
.messages { display: flex; gap: 0.75rem; margin: 0.25rem 1rem; } .messages > div { flex: 1; min-width: 0; } .messages pre { max-height: 24rem; overflow: auto; }
.sequence .more, .sequence .end { text-align: center; color: var(--dim); font-size: 0.9rem; } .sequence .end.diverged { color: var(--fail); }
`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const POLICY = `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(SCRIPT)}; base-uri 'none'; form-action 'none'`;
/** A live page may also ask its own server for LIVE_EVENTS, and nothing else. */
const LIVE_POLICY = `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(SCRIPT)} ${hash(LIVE_SCRIPT)}; connect-src 'self'; base-uri 'none'; form-action 'none'`;

export interface PageOptions {
  /** The page scrolls to FIRST_FAILURE_ID when it opens (a session alone). */
  scroll?: boolean;
  /** Served by watch mode (live-page.ts): it reloads when a newer grading is written. */
  live?: boolean;
}

export function page(title: string, body: Html, { scroll = true, live = false }: PageOptions = {}): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${live ? LIVE_POLICY : POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${new Html(STYLE)}</style></head>
<body>
${body}
${scroll && html`<script>${new Html(SCRIPT)}</script>`}${live && html`<script>${new Html(LIVE_SCRIPT)}</script>`}
</body></html>
`.markup;
}
