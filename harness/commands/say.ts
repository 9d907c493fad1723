// One line on stderr for a command, `theinference <command>: <line>`; what it quotes (a client's
// line, a cassette's text) cannot drive the terminal.
import { escapeControls } from '../terminal-text.ts';

export function say(command: string, line: string): void {
  process.stderr.write(`theinference ${command}: ${escapeControls(line)}\n`);
}
