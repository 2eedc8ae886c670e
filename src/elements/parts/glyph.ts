/**
 * The fingerprint glyph of the operation elements: one drawing of the ridges, and per state a shape of
 * its own besides its colour (WCAG 1.4.1, colour is never the only cue): idle is the bare print, waiting
 * adds a scan bar that sweeps over it (still where the user prefers reduced motion), success a check
 * badge, no match a cross badge, an error an exclamation badge. The glyph is decoration
 * (`aria-hidden`): the live region beside it says the same in words. Its colour is the status line's
 * (the same tone class).
 */
import { css } from 'lit';

/** The element's view: idle, running, done (success), negative (no match) or failed (an error). */
export type GlyphState = 'idle' | 'running' | 'done' | 'negative' | 'failed';

/**
 * The mark in the badge of each finished state. The drawing itself (24×24 view box, `part="glyph"`, its
 * colour the status line's tone class) is written in the operation element's template, not a template of
 * its own, which every element would prepare and fill apart at start-up: the ridges, arches around one
 * core, open at the bottom and broken here and there like a fingertip's print; the scan bar, drawn only
 * while running; the badge, a disc on the print's lower corner ringed in the surface colour, with its
 * mark, drawn only when finished.
 */
export const GLYPH_MARKS: Partial<Record<GlyphState, string>> = {
  done: 'M16.4 18.6l1.4 1.4 2.8-3',
  negative: 'M16.8 16.8l3.4 3.4m0-3.4l-3.4 3.4',
  failed: 'M18.5 16v2.6m0 2v.1',
};

export const glyphStyles = css`
  svg {
    position: absolute;
    inset-inline-start: 0.75em;
    inline-size: 3.5em;
    color: var(--_accent);
    fill: none;
    stroke: currentColor;
    stroke-width: 1.5;
    stroke-linecap: round;
  }
  /* The scan bar sweeps, while running, only where the user has not asked for reduced motion; elsewhere it stands still. */
  @media (prefers-reduced-motion: no-preference) {
    .running .scan {
      animation: bio-scan 1.4s infinite alternate;
    }
  }
  @keyframes bio-scan {
    from {
      translate: 0 -11px;
    }
  }
  circle {
    fill: currentColor;
  }
  circle,
  .mark {
    stroke: var(--_surface);
  }
`;
