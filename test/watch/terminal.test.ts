// Watch mode driven as a person drives it, in a real terminal (tmux): a broken save graded, its first
// failure on the screen without scrolling, a fix saved and passing, then the keys, and `q` quits with
// the terminal given back as it was. Every wait polls the screen; the backstop only ends a hung run.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { courseCopy, REPO, trimCourse } from '../helpers/cli.ts';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
/** A tmux server of this test's own, so that no one's sessions are seen or touched; its socket is
 *  in a folder of the test's, removed with it (tmux leaves its socket behind when killed). */
const SOCKETS = mkdtempSync(join(tmpdir(), 'tmux-'));
const SOCKET = join(SOCKETS, 'watch.sock');
const SESSION = 'watch';
/** How long any one wait may take before the test gives up: far beyond a grading's few seconds. */
const BACKSTOP_MS = 25_000;
/** A terminal as a student has one: what must be seen has to fit in it. */
const ROWS = 50;

function tmux(...args: string[]): string {
  const { TMUX: _inside, ...env } = process.env; // started from inside tmux, it would nest
  return execFileSync('tmux', ['-S', SOCKET, ...args], { encoding: 'utf8', env });
}

/** What the terminal shows now: its visible rows only, as a person sees them. */
function screen(): string {
  return tmux('capture-pane', '-p', '-t', SESSION);
}

/** Polls the screen until `seen` holds of it; its last look goes with a timeout's error. */
async function waitFor(what: string, seen: (text: string) => boolean): Promise<string> {
  const deadline = performance.now() + BACKSTOP_MS;
  for (;;) {
    const text = screen();
    if (seen(text)) return text;
    if (performance.now() > deadline) throw new Error(`never saw ${what}; the screen:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const WAITING = 'press h to show help, q to quit';

describe.skipIf(!hasTmux)('watch mode in a terminal', () => {
  const dir = courseCopy();
  afterAll(() => {
    spawnSync('tmux', ['-S', SOCKET, 'kill-server']);
    rmSync(SOCKETS, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the first failure and a compile error on screen, grades a fix, keeps the grading of the same code, answers f, p, a, h and q, gives the terminal back', {
    timeout: 4 * BACKSTOP_MS,
  }, async () => {
    trimCourse(dir, [], ['config-and-framing']);
    const source = join(dir, 'src/mcp.ts');
    const reference = readFileSync(source, 'utf8');
    const framing = "  return JSON.stringify(msg) + '\\n';";
    expect(reference).toContain(framing);
    writeFileSync(source, reference.replace(framing, "  return JSON.stringify(msg, null, 2) + '\\n';"));

    // after the grader: whether it left the terminal raw (-icanon), and its exit code
    const grader = `node ${join(REPO, 'bin/theinference.js')} test --stage 1 --watch --runs 20 --seed 3`;
    const then = 'code=$?; if stty -a | grep -qw -- -icanon; then echo "terminal left raw"; else echo "terminal restored"; fi; echo "exit code $code"';
    tmux('new-session', '-d', '-s', SESSION, '-x', '120', '-y', String(ROWS), '-c', dir, `${grader}; ${then}`);
    tmux('set-option', '-t', SESSION, 'remain-on-exit', 'on');

    const failed = await waitFor('the broken save graded', (text) => text.includes(WAITING));
    expect(failed).toContain('stage config-and-framing fails');
    // the recap: the first failure, its difference's hint, and how to grade just it, all on the screen
    expect(failed).toContain('first failure (config-and-framing)');
    expect(failed).toMatch(/hint: .*pretty-printed/);
    expect(failed).toMatch(/grade just it: npx theinference test --stage 1 --case mcp-frame\/\S+/);

    // a save that does not compile: where, said once, with its line and a caret; the checks not run counted
    writeFileSync(source, reference.replace(framing, "  return JSON.stringify(msg) + '\\n;"));
    const broken = await waitFor('the save that does not compile graded', (text) => text.includes('Unterminated') && text.includes(WAITING));
    expect(broken.match(/Unterminated string literal \(your code does not compile\)/g)).toHaveLength(1);
    expect(broken).toContain("  return JSON.stringify(msg) + '\\n;");
    expect(broken).toMatch(/^ +\| +\^$/m);
    expect(broken).toMatch(/^ +\d+ checks not run; --verbose lists them$/m);
    expect(broken).toContain('stage config-and-framing fails: none of its');

    writeFileSync(source, reference);
    const passed = await waitFor('the fix graded', (text) => text.includes('all graded stages pass') && text.includes(WAITING));
    expect(passed).toContain('all graded stages pass: config-and-framing');

    tmux('send-keys', '-t', SESSION, 'f');
    await waitFor('f answered', (text) => text.includes('nothing failed in the last grading'));

    tmux('send-keys', '-t', SESSION, 'p');
    await waitFor('the pattern prompt', (text) => text.includes('pattern (Enter to filter'));
    tmux('send-keys', '-t', SESSION, '-l', 'mcp-frame/*');
    tmux('send-keys', '-t', SESSION, 'Enter');
    const filtered = await waitFor('the filtered grading', (text) => text.includes('(grading cases matching mcp-frame/*; a grades all)'));
    expect(filtered).toContain('✓ mcp-frame/');
    expect(filtered).not.toContain('mcp-config/');
    expect(filtered).not.toContain('property:');

    // a save whose code is the same (a comment's words at the end) leaves the grading on the screen, says
    // so under it, and a grades the same code again
    writeFileSync(source, `${reference}// a note\n`);
    const kept = await waitFor('the save of the same code', (text) => text.includes('the grading above stands'));
    expect(kept).toMatch(/src\/mcp\.ts changed, but not the code that runs: the grading above stands \(press a to grade it again\)/);
    expect(kept).toContain('✓ mcp-frame/');
    tmux('send-keys', '-t', SESSION, 'a');
    const again = await waitFor('a graded', (text) => text.includes('grading every case again') && text.includes(WAITING));
    expect(again).toContain('all graded stages pass: config-and-framing');

    tmux('send-keys', '-t', SESSION, 'h');
    await waitFor('the help', (text) => text.includes('watch keys') && /press q +quit/.test(text));

    tmux('send-keys', '-t', SESSION, 'q');
    const ended = await waitFor('the grader to end', (text) => /exit code \d+/.test(text));
    expect(ended).toContain('[watch] stopped');
    expect(ended).toContain('terminal restored');
    expect(ended).toMatch(/exit code 0$/m); // as when Ctrl-C stops watch
  });
});
