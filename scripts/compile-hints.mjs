// A rollup plugin (rollup.config.mjs) that writes the script's first line: V8's compile hint
// `//# allFunctionsCalledOnLoad` (Chromium 136 and later; other engines read a comment). Without it, V8
// compiles each function on the page's main thread the first time it runs, which at start-up is most of the
// script, in the one task that defines the tags; with it, the functions are compiled with the script, on the
// thread that streams it, before that task starts
// (bench/startup-profile.mjs --cpu 6 shows the main thread's compile time; bench/blocking.mjs the task).
// After terser, which keeps no comment; the entry only: a part loads on use, when the page is up.
import MagicString from 'magic-string';

export const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n';

export function compileHints() {
  return {
    name: 'compile-hints',
    renderChunk(code, chunk) {
      if (!chunk.isEntry) return null;
      const ms = new MagicString(code).prepend(COMPILE_HINT);
      return { code: ms.toString(), map: ms.generateMap({ hires: true }) };
    },
  };
}
