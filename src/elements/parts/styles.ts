/**
 * Shared styles (adopted stylesheets: no inline style attributes, so a strict CSP needs no
 * 'unsafe-inline'). Theming goes through the documented custom properties and parts only; logical
 * properties keep the layout right in right-to-left pages. The build minifies this text.
 *
 * One palette, light and dark in each colour (`light-dark()`): the card's `color-scheme` picks the half.
 * Which one is the element's (src/elements/base/bio-element.ts marks the card with `data-scheme`): the `theme` attribute's,
 * else the colour scheme the page declares, light where it declares none; `auto` follows the system. Each
 * colour is its documented `--bio-*` property when the page sets one; the `--_*` names hold the palette,
 * so that the fallback at the end sets it in one place. Every text colour has at least 4.5:1 against the
 * surface in both halves (WCAG AA; test/elements/theme.browser.test.ts computes the ratios from the
 * rendered colours, with and without `light-dark()`).
 */
import { css } from 'lit';

/** The dark half of the palette in plain colours, for engines without light-dark() (the fallback below uses it twice). */
const darkPalette = css`
  --_surface: var(--bio-surface, #1f1f1f);
  --_accent: var(--bio-accent, #a8c7fa);
  --_success: var(--bio-success-color, #6dd58c);
  --_error: var(--bio-error-color, #f2b8b5);
  --_text: #e3e3e3;
  --_on-accent: #062e6f;
  --_muted: #c4c7c5;
`;

export const baseStyles = css`
  :host {
    --_surface: var(--bio-surface, light-dark(#fff, #1f1f1f));
    --_accent: var(--bio-accent, light-dark(#0b57d0, #a8c7fa));
    --_success: var(--bio-success-color, light-dark(#146c2e, #6dd58c));
    --_error: var(--bio-error-color, light-dark(#b3261e, #f2b8b5));
    --_text: light-dark(#1f1f1f, #e3e3e3);
    --_on-accent: light-dark(#fff, #062e6f);
    --_muted: light-dark(#474747, #c4c7c5);
    /* A fixed inline size (a page may set another on the element): a longer message wraps inside
       instead of pushing the neighbours aside; top-aligned, so a change of content never moves its line. */
    display: inline-block;
    inline-size: 22em;
    max-inline-size: 100%;
    vertical-align: top;
    font: var(--bio-font, inherit);
  }
  :host([hidden]) {
    display: none;
  }
  /* The card's scheme (src/elements/base/bio-element.ts): light unless the theme or the page says dark, or both (the system's). */
  .base {
    color-scheme: light;
    color: var(--bio-color, var(--_text));
    display: flex;
    flex-direction: column;
    align-items: flex-start;
    gap: var(--bio-gap, 0.5em);
    padding: 0.75em;
    border: 1px solid #8886;
    border-radius: 0.75em;
    background: var(--_surface);
    /* A word longer than the line (a URL, a user agent, a long id) breaks rather than overflow the card (WCAG 1.4.10 at 320px). */
    overflow-wrap: anywhere;
  }
  [data-scheme='dark'] {
    color-scheme: dark;
  }
  [data-scheme='auto'] {
    color-scheme: light dark;
  }
  /* The glyph stands in the inline-start padding of an operation element, beside the column of its parts. */
  .op {
    position: relative;
    padding-inline-start: 5em;
  }
  button {
    font: inherit;
    padding: 0.5em 1em;
    border: 1px solid var(--_accent);
    border-radius: var(--bio-radius, 0.375em);
    background: var(--_accent);
    color: var(--bio-on-accent, var(--_on-accent));
    cursor: pointer;
  }
  button:focus-visible {
    outline: var(--bio-focus-ring, 3px solid var(--_accent));
    outline-offset: 2px;
  }
  button[aria-disabled='true'] {
    opacity: 0.7;
    cursor: progress;
  }
  progress {
    inline-size: 100%;
    accent-color: var(--_accent);
  }
  /* Room for two lines of status and one of progress, score or detail is kept in every state, so the element keeps its height;
     the em before each lh is about as much, for engines without the lh unit (before Firefox 120). */
  .status {
    margin: 0;
    min-block-size: 2.4em;
    min-block-size: 2lh;
  }
  .footer {
    align-self: stretch;
    min-block-size: 1.2em;
    min-block-size: 1lh;
  }
  .failed {
    color: var(--_error);
  }
  .done {
    color: var(--_success);
  }
  .detail {
    margin: 0;
    font-size: 0.875em;
    color: var(--bio-muted-color, var(--_muted));
  }
  ul,
  ol {
    margin: 0;
    padding-inline-start: 1.25em;
  }
  /* <bio-diagnostics>: a support panel, wider than a card where the page has room. */
  :host(bio-diagnostics) {
    inline-size: 30em;
  }
  dl {
    margin: 0;
    display: grid;
    grid-template-columns: auto minmax(0, 1fr);
    column-gap: 0.5em;
  }
  /* A row's status word stands apart from its finding, which wraps in a column of its own; a failure's detail below both. */
  dd {
    margin: 0;
    display: flex;
    flex-wrap: wrap;
    column-gap: 0.5em;
  }
  /* A finding too narrow for 6em beside its status word (a long word, "unreachable", at 320px) goes below it, whole width, not a word per line. */
  [part='finding'] {
    flex: 1 1 6em;
  }
  /* Each word of a finding, and a workstation's id in a card's status, whole where it fits a line: "ws-demo-1: dev-1" never breaks after "dev-" at 320px; a longer one (a URL) still wraps. */
  [part='finding'] > span,
  .id {
    display: inline-block;
    max-inline-size: 100%;
    overflow-wrap: anywhere;
  }
  dd > p {
    flex-basis: 100%;
  }
  /* The user agent on one line (its full text in the title and in the copied report), not six at 320px. */
  [data-row='browser'] > * {
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  .row {
    display: flex;
    align-items: baseline;
    gap: 0.5em;
  }
  /* The dot is a border, not a background: forced colours (Windows high contrast) keep it, in the text colour. */
  .dot {
    border: 0.375em solid var(--bio-warning-color, #b06000);
    border-radius: 50%;
    flex: none;
  }
  .ready,
  .pinned {
    border-color: var(--bio-ready-color, var(--_success));
  }
  .unreachable,
  .blocked,
  .error,
  .config {
    border-color: var(--_error);
  }
  /* Engines without light-dark() (before Chrome 123, Firefox 120, Safari 17.5) would drop every colour
     above, the card then transparent in the page's text colour: there the palette's halves are plain
     colours, picked as the color-scheme rules above pick them (the card's scheme, the system's for auto). */
  @supports not (color: light-dark(#000, #fff)) {
    .base {
      --_surface: var(--bio-surface, #fff);
      --_accent: var(--bio-accent, #0b57d0);
      --_success: var(--bio-success-color, #146c2e);
      --_error: var(--bio-error-color, #b3261e);
      --_text: #1f1f1f;
      --_on-accent: #fff;
      --_muted: #474747;
    }
    .base[data-scheme='dark'] {
      ${darkPalette}
    }
    @media (prefers-color-scheme: dark) {
      .base[data-scheme='auto'] {
        ${darkPalette}
      }
    }
  }
`;

/*
 * The size of an element's card, held by its host from the task that upgrades it: the first render waits
 * for a later task (turn.ts), and a frame painted in between would otherwise show an empty host that grows
 * when its card arrives, moving what follows (bench/blocking.mjs counts the layout shift). Each figure is
 * its card's first render, summed from the rules above: lines of text (lh; the em before it for engines
 * without lh), gaps, the card's padding and its two 1px borders, a button's too. A floor, not a size: a
 * card that needs more takes it.
 */

/** An operation card: the button, two lines of status, the footer's line; two gaps between them. */
export const operationReserve = css`
  :host {
    min-block-size: calc(4.8em + 2 * var(--bio-gap, 0.5em) + 2.5em + 4px);
    min-block-size: calc(4lh + 2 * var(--bio-gap, 0.5em) + 2.5em + 4px);
  }
`;

/** <bio-reader-status>: its dot's two lines of state; pinned, the workstation's and the device's lines below a gap. */
export const statusReserve = css`
  :host {
    min-block-size: calc(2.4em + 1.5em + 2px);
    min-block-size: calc(2lh + 1.5em + 2px);
  }
  :host([workstation-id][device-id]) {
    min-block-size: calc(4.8em + var(--bio-gap, 0.5em) + 1.5em + 2px);
    min-block-size: calc(4lh + var(--bio-gap, 0.5em) + 1.5em + 2px);
  }
`;
