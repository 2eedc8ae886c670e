/**
 * Shared styles (adopted stylesheets: no inline style attributes, so a strict CSP needs no
 * 'unsafe-inline'). Theming goes through the documented custom properties and parts only; logical
 * properties keep the layout right in right-to-left pages. The build minifies this text.
 */
import { css } from 'lit';

export const baseStyles = css`
  :host {
    display: inline-block;
    color: var(--bio-color, inherit);
    font: var(--bio-font, inherit);
  }
  :host([hidden]) {
    display: none;
  }
  .base {
    display: flex;
    flex-direction: column;
    align-items: flex-start;
    gap: var(--bio-gap, 0.5em);
  }
  button {
    font: inherit;
    padding: 0.5em 1em;
    border: 1px solid var(--bio-accent, #0b57d0);
    border-radius: var(--bio-radius, 0.375em);
    background: var(--bio-accent, #0b57d0);
    color: var(--bio-on-accent, #fff);
    cursor: pointer;
  }
  button:focus-visible {
    outline: var(--bio-focus-ring, 3px solid #1a73e8);
    outline-offset: 2px;
  }
  button[aria-disabled='true'] {
    opacity: 0.7;
    cursor: progress;
  }
  progress {
    inline-size: 100%;
    accent-color: var(--bio-accent, #0b57d0);
  }
  .status {
    min-block-size: 1.25em;
    margin: 0;
  }
  .failed {
    color: var(--bio-error-color, #b3261e);
  }
  .done {
    color: var(--bio-success-color, #146c2e);
  }
  .detail {
    margin: 0;
    font-size: 0.875em;
    color: var(--bio-muted-color, #444);
    overflow-wrap: anywhere;
  }
  ul,
  ol {
    margin: 0;
    padding-inline-start: 1.25em;
  }
  dl {
    margin: 0;
    display: grid;
    grid-template-columns: auto 1fr;
    column-gap: 0.5em;
  }
  dd {
    margin: 0;
  }
  .row {
    display: flex;
    align-items: center;
    gap: 0.5em;
  }
  .dot {
    inline-size: 0.75em;
    block-size: 0.75em;
    border-radius: 50%;
    flex: none;
    background: var(--bio-warning-color, #b06000);
  }
  .dot.ready,
  .dot.pinned {
    background: var(--bio-ready-color, #146c2e);
  }
  .dot.unreachable,
  .dot.error,
  .dot.config {
    background: var(--bio-error-color, #b3261e);
  }
`;
