// The environment a student's program runs in: only what a Node program needs, so that no
// token, key or password of the person or CI machine running the grader reaches it.

const PASS_THROUGH = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TMPDIR', 'TZ', 'SHELL'];

export function programEnv(from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of PASS_THROUGH) {
    if (from[name] !== undefined) env[name] = from[name];
  }
  // Stack traces and Node warnings without colour codes: they are relayed line by line.
  env.NO_COLOR = '1';
  return env;
}
