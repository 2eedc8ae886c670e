/**
 * Each element's first render in a task of its own. Defining the tags upgrades every element already in
 * the page there and then, and Lit renders each in a microtask of that same task: with four richer
 * elements on a slow CPU, one long task in which the page answers no tap (bench/blocking.mjs measures
 * it). The first element to ask renders at once, as before; each one asking while others wait gets the
 * task after theirs, in the order they asked. A task is a MessageChannel message: not clamped like a
 * nested setTimeout, present in every browser of the baseline (scheduler.postTask is not), and not
 * held back by a page's fake timers.
 */
let tail: Promise<unknown> | undefined;

const task = (): Promise<unknown> =>
  new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = resolve;
    port2.postMessage(0);
  });

/** Undefined: render now. Else a promise that resolves in the task where the caller may render. */
export function turn(): Promise<unknown> | undefined {
  const mine = tail;
  // The queue empties one task after the last turn: an element added later renders at once again.
  const next: Promise<unknown> = (tail = (mine ?? Promise.resolve())
    .then(task)
    .then(() => {
      if (tail === next) tail = undefined;
    }));
  return mine;
}
