/**
 * The page of the screenshot tests (bundled with esbuild by test/elements/screenshots.node.test.ts):
 * `showScene(name)` puts one scene of screenshot-scenes.ts in #stage, in its own fake network, and
 * resolves once the element is at rest in the state the scene pictures.
 */
import '../../src/elements/index.js';
import { clearBrokerTokens } from '../../src/index.js';
import type { BioOperationElement } from '../../src/elements/base/operation-element.js';
import { fakeNetwork } from '../support/fake-network.js';
import { SCENES, defaultRoutes } from './screenshot-scenes.js';

const once = (el: Element, name: string, test: (detail: { phase?: string; state?: string }) => boolean = () => true) =>
  new Promise<void>((resolve) => el.addEventListener(name, (e) => test((e as CustomEvent).detail) && resolve()));

async function showScene(name: string): Promise<void> {
  const scene = SCENES.find((s) => s.name === name);
  if (!scene) throw new Error(`no scene ${name}`);
  const stage = document.getElementById('stage')!;
  stage.replaceChildren();
  clearBrokerTokens();
  const net = fakeNetwork();
  defaultRoutes(net);
  scene.routes?.(net);
  globalThis.fetch = net.fetch as typeof fetch;

  const holder = document.createElement('div');
  holder.innerHTML = `<div ${scene.wrap ?? ''}>${scene.markup}</div>`;
  const parent = holder.firstElementChild!;
  const el = parent.firstElementChild as BioOperationElement<unknown>;
  const status = once(el, 'bio-status', (d) => d.state === scene.until);
  stage.append(parent);
  await el.updateComplete;
  if (scene.until === 'diagnosed') {
    await (el as unknown as { start(): Promise<string> }).start();
  } else if (scene.until === 'locating' || scene.until === 'waiting') {
    const reached = once(el, 'bio-progress', (d) => d.phase === (scene.until === 'waiting' ? 'dispatched' : scene.until));
    el.start().catch(() => {});
    await reached;
  } else if (scene.until === 'settled') {
    const done = Promise.race([once(el, 'bio-result'), once(el, 'bio-error')]);
    el.start().catch(() => {});
    await done;
  } else if (scene.until !== 'idle') {
    await status; // a state of <bio-reader-status>
  }
  await el.updateComplete;
  if (scene.freezeAt !== undefined) {
    for (const animation of el.shadowRoot!.getAnimations()) {
      animation.pause();
      animation.currentTime = scene.freezeAt;
    }
  }
}

/** Whether `family` is installed: its text is as wide as neither generic fallback's. */
function hasFont(family: string): boolean {
  const context = document.createElement('canvas').getContext('2d')!;
  const width = (font: string) => {
    context.font = `16px ${font}`;
    return context.measureText('Verify fingerprint 0.97 ws-demo-1').width;
  };
  return width(`"${family}", monospace`) !== width('monospace') || width(`"${family}", serif`) !== width('serif');
}

Object.assign(window, { showScene, hasFont });
