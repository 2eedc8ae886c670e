/**
 * At most one line per interval for something that can fail on every request (a store that is down):
 * the first occurrence is written at once, later ones are counted and the count goes with the next line.
 */
export function throttled(write: (suppressed: number) => void, intervalMs = 60_000, now: () => number = Date.now): () => void {
  let last = -Infinity;
  let suppressed = 0;
  return () => {
    const time = now();
    if (time - last < intervalMs) {
      suppressed += 1;
      return;
    }
    last = time;
    const count = suppressed;
    suppressed = 0;
    write(count);
  };
}
