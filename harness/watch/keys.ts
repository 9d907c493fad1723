// Watch mode's keys, as vitest has them: read one at a time from a terminal in raw mode (no Enter
// needed, no echo), the terminal given back as it was when watch stops or the process exits.
import { emitKeypressEvents, type Key } from 'node:readline';

/** What a key asks of watch mode. */
export type KeyCommand = { kind: 'all' } | { kind: 'failed' } | { kind: 'filter'; pattern: string } | { kind: 'help' } | { kind: 'quit' };

export interface KeyListeners {
  command(command: KeyCommand): void;
  /** `p` was pressed and a pattern is being typed: what is typed so far. */
  typing(typed: string): void;
  /** Typing the pattern ended, by Enter or Esc. */
  typed(): void;
}

export interface KeyInput {
  /** Stops listening and gives the terminal back as it was. */
  stop(): void;
}

export function listenForKeys(input: NodeJS.ReadStream, listeners: KeyListeners): KeyInput {
  emitKeypressEvents(input);
  const wasRaw = input.isRaw;
  input.setRawMode(true);
  input.resume();
  /** The pattern being typed after `p`; undefined when keys are commands. */
  let pattern: string | undefined;

  const onKey = (text: string | undefined, key: Key | undefined) => {
    // in raw mode Ctrl-C is a key, not SIGINT: it quits as the signal does
    if (key?.ctrl && key.name === 'c') return listeners.command({ kind: 'quit' });
    if (pattern !== undefined) {
      if (key?.name === 'return' || key?.name === 'enter') {
        const typed = pattern;
        pattern = undefined;
        listeners.typed();
        return listeners.command(typed === '' ? { kind: 'all' } : { kind: 'filter', pattern: typed });
      }
      if (key?.name === 'escape') {
        pattern = undefined;
        return listeners.typed();
      }
      if (key?.name === 'backspace') pattern = pattern.slice(0, -1);
      else if (text !== undefined && !key?.ctrl && !key?.meta && /^[\x20-\x7e]+$/.test(text)) pattern += text;
      return listeners.typing(pattern);
    }
    const name = key?.name ?? text;
    if (name === 'a' || name === 'return' || name === 'enter') listeners.command({ kind: 'all' });
    else if (name === 'f') listeners.command({ kind: 'failed' });
    else if (name === 'h') listeners.command({ kind: 'help' });
    else if (name === 'q') listeners.command({ kind: 'quit' });
    else if (name === 'p') {
      pattern = '';
      listeners.typing(pattern);
    }
  };
  input.on('keypress', onKey);

  const restore = () => {
    if (input.isTTY) input.setRawMode(wasRaw);
  };
  // a crash or process.exit elsewhere must not leave the student's terminal raw
  process.once('exit', restore);
  return {
    stop() {
      input.off('keypress', onKey);
      process.off('exit', restore);
      restore();
      input.pause(); // a stream still read keeps the process from ending
    },
  };
}
