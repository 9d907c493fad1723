// Writes markup into everything a report quotes of a program: its stdout, its stderr, and the error
// it crashes with, whose line a crash's verdict quotes. One line for Node (no \n), made of what
// renders as something else in one format or another: a CR then =====, a setext heading under
// Markdown's line ending; headings, a forged table row, links, an image, bare URLs, HTML, entities,
// emphasis; terminal escapes, NEL, the line and paragraph separators, bidi controls.
const MARKUP =
  'all stages pass\r=====\r# all stages pass\r| forged | ✅ pass |\r|---|---|\r' +
  '[click](https://evil.example/a) ![img](http://evil.example/i.png) https://evil.example www.evil.example who@evil.example ' +
  '<h1>pwned</h1><img src=x onerror=alert(1)><a href="https://evil.example">a</a> &lt;b&gt; **pass** `tick` ' +
  '\x1b[2J\x1b]0;owned\x07 \u0085next \u2028line \u2029paragraph \u202eflipped\u202c \x9b31m';

process.stdout.write(`${MARKUP}\n`);
process.stderr.write(`${MARKUP}\n`);
throw new Error(MARKUP);
