/**
 * Synthetic fingers for the simulator. Each finger has a deterministic "template" (a feature vector
 * derived from its id) and a deterministic fingerprint-like image (SVG ridges), so a verify can match or
 * not, a search finds the right subject, and the test capture shows a picture without any hardware.
 */

export interface SyntheticFinger {
  id: string;
  label: string;
  /** Capture quality (0-100) this finger gives on the simulated sensor. */
  quality: number;
}

export const FINGERS: readonly SyntheticFinger[] = [
  { id: 'finger-a', label: 'Finger A (whorl)', quality: 92 },
  { id: 'finger-b', label: 'Finger B (loop)', quality: 85 },
  { id: 'finger-c', label: 'Finger C (arch)', quality: 78 },
  { id: 'finger-d', label: 'Finger D (double loop)', quality: 64 },
];

/** Score at or above which two templates are the same finger. */
export const MATCH_THRESHOLD = 0.6;

const TEMPLATE_LENGTH = 32;

export function findFinger(id: unknown): SyntheticFinger | undefined {
  return FINGERS.find((f) => f.id === id);
}

/** Small deterministic PRNG (mulberry32) seeded from a string, so templates and images never change. */
function seededRandom(seed: string): () => number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let state = h >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The finger's template: a unit feature vector. */
export function templateOf(fingerId: string): number[] {
  const random = seededRandom(`template:${fingerId}`);
  const raw = Array.from({ length: TEMPLATE_LENGTH }, () => random() * 2 - 1);
  const norm = Math.hypot(...raw);
  return raw.map((v) => v / norm);
}

/**
 * A captured template: the finger's template with a little sensor noise (seeded by `captureSeed`), as a
 * real sensor never reads the same finger twice the same way.
 */
export function captureTemplate(fingerId: string, captureSeed: string): number[] {
  const random = seededRandom(`capture:${fingerId}:${captureSeed}`);
  const noisy = templateOf(fingerId).map((v) => v + (random() - 0.5) * 0.08);
  const norm = Math.hypot(...noisy);
  return noisy.map((v) => v / norm);
}

/** Similarity of two templates mapped to 0..1 (cosine similarity, clamped, rounded to 3 places). */
export function compareTemplates(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new TypeError('templates of different lengths');
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return Math.round(Math.max(0, Math.min(1, dot)) * 1000) / 1000;
}

/**
 * A fingerprint-like SVG as a data: URL: concentric, wavy ridges around one or two cores whose shape,
 * centre and ridge spacing derive from the finger id. Same finger, same picture.
 */
export function fingerprintImage(fingerId: string): string {
  const random = seededRandom(`image:${fingerId}`);
  // A double loop: two small cores, each with a few rings of its own, inside rings around both.
  const cores = fingerId === 'finger-d' ? 3 : 1;
  const width = 160;
  const height = 200;
  const paths: string[] = [];
  for (let c = 0; c < cores; c++) {
    const inner = cores === 3 && c < 2;
    const cx = 80 + (inner ? (c === 0 ? -13 : 13) : (random() - 0.5) * 30 * (cores === 3 ? 0 : 1));
    const cy = 95 + (inner ? (c === 0 ? -6 : 6) : (random() - 0.5) * 30 * (cores === 3 ? 0 : 1));
    const stretch = 1.1 + random() * 0.5;
    const spacing = 4.2 + random() * 1.5;
    const wobble = 1 + random() * 2.5;
    const phase = random() * Math.PI * 2;
    const archiness = fingerId === 'finger-c' ? 0.6 : 0;
    const [from, to] = cores === 3 ? (inner ? [spacing, 17] : [22, 130]) : [spacing, 130];
    for (let r = from; r < to; r += spacing) {
      const points: string[] = [];
      for (let step = 0; step <= 72; step++) {
        const a = (step / 72) * Math.PI * 2;
        const wave = Math.sin(a * 5 + phase + r / 9) * wobble * Math.min(1, r / 25); // round near the core
        const x = cx + Math.cos(a) * (r + wave);
        const y = cy + Math.sin(a) * (r + wave) * stretch - archiness * Math.abs(Math.cos(a)) * r * 0.5;
        points.push(`${x.toFixed(1)},${y.toFixed(1)}`);
      }
      // Gaps in a ridge read as ridge endings and bifurcations (minutiae), as on a real print.
      const dash = `${(30 + random() * 90).toFixed(0)} ${(3 + random() * 4).toFixed(0)}`;
      paths.push(`<polyline points="${points.join(' ')}" stroke-dasharray="${dash}" stroke-dashoffset="${(random() * 100).toFixed(0)}"/>`);
    }
  }
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<defs><clipPath id="p"><ellipse cx="80" cy="100" rx="72" ry="94"/></clipPath></defs>` +
    `<rect width="${width}" height="${height}" fill="#f4efe6"/>` +
    `<g clip-path="url(#p)" fill="none" stroke="#3b3430" stroke-width="2" stroke-linecap="round">${paths.join('')}</g>` +
    `</svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
