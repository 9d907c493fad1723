// Text that another program wrote (a server's stderr, a client's line), shown on our terminal:
// control characters and escape sequences appear as `\x1b`, `\r`, ... so that they can neither
// move the cursor, recolour or retitle the screen, nor split one line of ours into two.

/** C0 controls but tab, DEL, C1 controls, the Unicode line breaks and the bidi overrides. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r' };

export function escapeControls(text: string): string {
  return text.replace(CONTROL, (char) => {
    const code = char.charCodeAt(0);
    return NAMED[char] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}
