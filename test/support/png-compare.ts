/**
 * Compares a screenshot with its committed image (pngjs + pixelmatch): equal sizes, and at most
 * `maxDiffPixels` pixels that differ beyond pixelmatch's colour threshold, anti-aliased edges not
 * counted (fonts rasterise a little differently from one machine to the next).
 */
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

export interface Comparison {
  /** Pixels that differ (anti-aliasing excluded); Infinity when the sizes differ. */
  diffPixels: number;
  /** The differing pixels in red over a faded copy of the expected image, as a PNG (undefined when the sizes differ). */
  diff?: Buffer;
  sizes: string;
}

export function comparePng(expected: Buffer, actual: Buffer): Comparison {
  const a = PNG.sync.read(expected);
  const b = PNG.sync.read(actual);
  const sizes = `expected ${a.width}×${a.height}, got ${b.width}×${b.height}`;
  if (a.width !== b.width || a.height !== b.height) return { diffPixels: Infinity, sizes };
  const out = new PNG({ width: a.width, height: a.height });
  const diffPixels = pixelmatch(a.data, b.data, out.data, a.width, a.height, { threshold: 0.1 });
  return { diffPixels, diff: PNG.sync.write(out), sizes };
}
