// A strict check that a text is a well-formed XML 1.0 document, for what the grader writes (JUnit):
// every character one XML 1.0 allows, every reference one of the five entities or a character it
// allows, tags nested and closed, attributes quoted and not repeated, one root, no `]]>` in text.
// Comments, CDATA sections, doctypes and processing instructions (the grader writes none but the
// declaration) are refused rather than read.

const NAME = /^[A-Za-z_:][\w.:-]*/;
const NOT_A_CHAR = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

/** Why `xml` is not a well-formed document (the first problem found), or undefined when it is. */
export function xmlProblem(xml: string): string | undefined {
  const bad = NOT_A_CHAR.exec(xml);
  if (bad) return `a character XML 1.0 does not allow, U+${bad[0].charCodeAt(0).toString(16).padStart(4, '0')}, at ${bad.index}`;
  let at = 0;
  const declaration = /^<\?xml version="1\.0"( encoding="UTF-8")?\?>/.exec(xml);
  if (declaration) at = declaration[0].length;
  const open: string[] = [];
  let roots = 0;
  while (at < xml.length) {
    const lt = xml.indexOf('<', at);
    const text = xml.slice(at, lt === -1 ? xml.length : lt);
    const problem = textProblem(text, open.length === 0);
    if (problem) return `${problem} at ${at}`;
    if (lt === -1) break;
    const gt = xml.indexOf('>', lt);
    if (gt === -1) return `a tag that never ends at ${lt}`;
    const tag = xml.slice(lt + 1, gt);
    if (tag.startsWith('/')) {
      if (open.pop() !== tag.slice(1).trimEnd()) return `</${tag.slice(1)}> closes no open element at ${lt}`;
    } else {
      const name = NAME.exec(tag)?.[0];
      if (name === undefined) return `markup that is not an element at ${lt}: <${tag.slice(0, 20)}`;
      const closed = tag.endsWith('/');
      const attributes = attributesProblem(tag.slice(name.length, closed ? -1 : undefined));
      if (attributes) return `${attributes} in <${name}> at ${lt}`;
      if (open.length === 0) roots++;
      if (roots > 1) return `a second root element at ${lt}`;
      if (!closed) open.push(name);
    }
    at = gt + 1;
  }
  if (open.length > 0) return `<${open.at(-1)}> is never closed`;
  return roots === 1 ? undefined : 'no root element';
}

function textProblem(text: string, outside: boolean): string | undefined {
  if (outside && text.trim() !== '') return 'text outside the root element';
  if (text.includes(']]>')) return ']]> in text';
  return referencesProblem(text);
}

function attributesProblem(text: string): string | undefined {
  const seen = new Set<string>();
  let rest = text;
  while (rest.trim() !== '') {
    const attribute = /^\s+([A-Za-z_:][\w.:-]*)\s*=\s*("[^"<]*"|'[^'<]*')/.exec(rest);
    if (!attribute) return `a malformed attribute (${rest.trim().slice(0, 20)})`;
    if (seen.has(attribute[1]!)) return `${attribute[1]} given twice`;
    seen.add(attribute[1]!);
    const problem = referencesProblem(attribute[2]!);
    if (problem) return problem;
    rest = rest.slice(attribute[0].length);
  }
  return undefined;
}

function referencesProblem(text: string): string | undefined {
  for (const match of text.matchAll(/&([^;]*);?/g)) {
    const reference = match[0];
    const named = /^&(lt|gt|amp|quot|apos);$/.test(reference);
    const numeric = /^&#(x[0-9A-Fa-f]+|[0-9]+);$/.exec(reference);
    const code = numeric ? Number.parseInt(numeric[1]!.startsWith('x') ? numeric[1]!.slice(1) : numeric[1]!, numeric[1]!.startsWith('x') ? 16 : 10) : -1;
    if (named) continue;
    if (!numeric) return `a reference XML does not define, ${reference.slice(0, 12)}`;
    if (code > 0x10ffff || NOT_A_CHAR.test(String.fromCodePoint(code))) return `a reference to a character XML 1.0 does not allow, ${reference}`;
  }
  return undefined;
}
