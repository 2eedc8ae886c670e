/**
 * The screenshot page on 127.0.0.1 port 0: screenshot-page.ts bundled with esbuild, in a page that follows
 * the system's colour scheme and says so (the cards follow what the page declares). The screenshot tests
 * (screenshots.node.test.ts) and the state sheets of `npm run screenshot -- --states` (scripts/screenshot.mjs)
 * both open it, so both picture the same page.
 */
import { build } from 'esbuild';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The one font of every picture, so they are the same on every machine (Debian: fonts-dejavu-core). */
export const FONT = 'DejaVu Sans';
/** The user agent <bio-diagnostics> shows: one fixed string, whatever Chromium takes the picture. */
export const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36';

const PAGE = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<meta name="color-scheme" content="light dark">
<title>bioid-sdk screenshots</title>
<style>
  body { margin: 0; padding: 8px; font: 16px/1.25 "${FONT}", sans-serif; background: #fff; }
  @media (prefers-color-scheme: dark) { body { background: #131314; } }
</style>
<div id="stage"></div>
<script src="/page.js"></script>`;

export interface ScreenshotPage {
  url: string;
  close(): Promise<void>;
}

export async function startScreenshotPage(): Promise<ScreenshotPage> {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('screenshot-page.ts', import.meta.url))],
    bundle: true,
    format: 'iife',
    target: 'es2022',
    write: false,
    tsconfig: fileURLToPath(new URL('../../tsconfig.json', import.meta.url)),
    // package.json "sideEffects" names dist/ files only; honoured here it would drop the tag definitions.
    ignoreAnnotations: true,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.contents;
  const server = createServer((req, res) => {
    const js = req.url === '/page.js';
    res.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html; charset=utf-8' });
    res.end(js ? script : PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
