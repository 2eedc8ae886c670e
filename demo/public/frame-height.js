// In the framed page (/embedded/frame): tells the page around it how tall this page is, each time that
// changes, so the frame grows with a result or an error's text instead of clipping it. The page around
// it takes the height from this frame alone (demo/public/embedded.js); docs/cms.md shows both halves.
// A height is all it says, so it may go to any embedding origin ('*').
const postHeight = () => {
  const { bottom } = document.body.getBoundingClientRect();
  const margin = parseFloat(getComputedStyle(document.body).marginBottom) || 0;
  parent.postMessage({ type: 'bioid-frame-height', height: Math.ceil(bottom + margin + scrollY) }, '*');
};
new ResizeObserver(postHeight).observe(document.body);
