// The schema check in a worker thread, for the replay command: importing the SDK's schemas costs
// more than a short replay session, and off the main thread it no longer delays the answers.
import { isMainThread, parentPort } from 'node:worker_threads';
import { Worker } from 'node:worker_threads';
import type { JsonObject } from './model.ts';
import { checkClientMessage, loadSchemas } from './schema.ts';

export interface SchemaChecker {
  /** A problem in plain words, or undefined when the message is valid for `version`. */
  check(message: JsonObject, version: string | undefined): Promise<string | undefined>;
  close(): void;
}

/** In this thread: the schemas load in the background, checks wait for them. */
export const inThreadChecker: SchemaChecker = {
  async check(message, version) {
    await loadSchemas();
    return checkClientMessage(message, version) as string | undefined;
  },
  close() {},
};

/** In a worker thread; falls back to this thread if the worker cannot start. */
export function workerChecker(): SchemaChecker {
  let worker: Worker;
  try {
    // A worker's entry cannot be TypeScript by itself: a few lines of JavaScript register tsx first.
    const tsx = import.meta.resolve('tsx/esm/api');
    const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`;
    worker = new Worker(code, { eval: true });
  } catch {
    return inThreadChecker;
  }
  worker.unref();
  const waiting = new Map<number, { message: JsonObject; version: string | undefined; resolve: (problem: string | undefined) => void }>();
  let next = 0;
  let broken = false;
  worker.on('message', ({ seq, problem }: { seq: number; problem?: string }) => {
    waiting.get(seq)?.resolve(problem);
    waiting.delete(seq);
  });
  worker.on('error', () => {
    // the worker could not run: what it was asked is checked here instead
    broken = true;
    for (const { message, version, resolve } of waiting.values()) void inThreadChecker.check(message, version).then(resolve);
    waiting.clear();
  });
  return {
    check(message, version) {
      if (broken) return inThreadChecker.check(message, version);
      const seq = next++;
      return new Promise((resolve) => {
        waiting.set(seq, { message, version, resolve });
        worker.postMessage({ seq, message, version });
      });
    },
    close() {
      void worker.terminate();
    },
  };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  void loadSchemas();
  port.on('message', async ({ seq, message, version }: { seq: number; message: JsonObject; version?: string }) => {
    await loadSchemas();
    port.postMessage({ seq, problem: checkClientMessage(message, version) });
  });
}
