// The page around the frame (/embedded): sizes each iframe marked data-fit-content to the height its page
// reports (demo/public/frame-height.js), taken only from that frame and its own origin, so the card and
// its error text are never clipped. Listening from a script before the iframe, it misses no report.
// docs/cms.md, "A frame sized to its content", shows the same lines.
addEventListener('message', (event) => {
  const frame = [...document.querySelectorAll('iframe[data-fit-content]')].find((f) => f.contentWindow === event.source);
  if (!frame || event.origin !== new URL(frame.src, location.href).origin) return;
  const height = event.data?.type === 'bioid-frame-height' ? Number(event.data.height) : NaN;
  if (height > 0 && height < 10_000) frame.style.height = `${Math.ceil(height)}px`;
});
