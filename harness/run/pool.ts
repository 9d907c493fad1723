// Runs tasks with at most `limit` at once and hands back their results in task order.
import { availableParallelism } from 'node:os';

export const CORES = availableParallelism();

/** `onResult` sees results in task order, each as soon as it and all before it are done. A task that
 *  throws starts no other; the first error is thrown once the tasks already running have ended, so
 *  that nothing of theirs (a scratch folder, a process) outlives the call. */
export async function runPooled<T>(tasks: (() => Promise<T>)[], limit: number, onResult: (result: T, index: number) => void = () => {}): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  const done: boolean[] = new Array(tasks.length).fill(false);
  let next = 0;
  let reported = 0;
  let failed: { error: unknown } | undefined;
  const worker = async () => {
    while (next < tasks.length && !failed) {
      const index = next++;
      try {
        results[index] = await tasks[index]!();
      } catch (error) {
        failed ??= { error };
        return;
      }
      done[index] = true;
      while (reported < tasks.length && done[reported]) {
        onResult(results[reported]!, reported);
        reported += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
  if (failed) throw failed.error;
  return results;
}
