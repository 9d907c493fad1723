// Wall time as the grader saw it pass. A program that waits for the grader (its cassette player, the
// property runner's next call) waits longer when the machine is too loaded to run the grader, and that
// wait is not the program's: a wall-time backstop counts only the time the grader's own event loop was
// running. One timer per grader process samples it; a step longer than MAX_STEP_MS (the loop was held
// up: no core for it, or a long piece of the grader's own work) counts as MAX_STEP_MS. On a quiet
// machine this clock keeps pace with the wall clock.
const TICK_MS = 100;
const MAX_STEP_MS = 2 * TICK_MS;

let counted = 0;
let last = 0;
let ticking: NodeJS.Timeout | undefined;

function tick(): void {
  const now = performance.now();
  counted += Math.min(now - last, MAX_STEP_MS);
  last = now;
}

/** Milliseconds of progress since this process first asked: only differences between two readings mean anything. */
export function progressNow(): number {
  if (ticking === undefined) {
    last = performance.now();
    ticking = setInterval(tick, TICK_MS);
    ticking.unref(); // it keeps nothing alive
  }
  return counted + Math.min(performance.now() - last, MAX_STEP_MS);
}

/** Calls `then` once `ms` of progress have passed (a timer that a loaded machine fires early in progress
 *  is armed again for the rest). Keeps nothing alive. */
export function afterProgress(ms: number, then: () => void): { cancel(): void } {
  const due = progressNow() + ms;
  let timer: NodeJS.Timeout;
  const check = () => {
    const left = due - progressNow();
    if (left > 0) timer = setTimeout(check, left).unref();
    else then();
  };
  timer = setTimeout(check, ms).unref();
  return { cancel: () => clearTimeout(timer) };
}
