/**
 * Each element's first render in a task of its own. Defining the tags upgrades every element already in
 * the page there and then, and Lit would render each in a microtask of that same task: with four richer
 * elements on a slow CPU, one long task in which the page answers no tap (bench/blocking.mjs measures
 * it). Instead the task that defines the tags only upgrades them (each host takes its reserved size from
 * styles.ts there, so nothing moves when its card arrives), and the elements render one per task after
 * it, in the order they asked. updateComplete waits for that render (Lit awaits what scheduleUpdate
 * returns), so "await updateComplete, then read" holds. A task is a MessageChannel message: not clamped
 * like a nested setTimeout, in every browser of the baseline (scheduler.postTask is not), and not held
 * back by a page's fake timers.
 */
let tail: Promise<unknown> = Promise.resolve();

const task = (): Promise<unknown> =>
  new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = resolve;
    port2.postMessage(0);
  });

/** Resolves in the task where the caller may render: the one after the previous caller's. */
export const turn = (): Promise<unknown> => (tail = tail.then(task));
