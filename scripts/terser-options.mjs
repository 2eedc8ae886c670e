// How the script-tag bundle is minified: rollup.config.mjs builds with these options, and the size test and
// `npm run bench` minify what they measure (the core entry, the per-tag builds, the bare Lit floor, a peer
// that ships unminified) with the same ones, so every figure is minified alike.
// @ts-check

/** @type {import('terser').MinifyOptions} */
export const TERSER_OPTIONS = {
  ecma: 2020,
  compress: {
    passes: 2,
    // An anonymous function expression that reads neither `this` nor `arguments` becomes an arrow: mostly
    // the single-use helpers terser inlines where they are called. Unsafe only for a function that is
    // called with `new` or whose prototype is read; none is (the factories on window.BioIDSDK are plain
    // calls, BioID a class).
    unsafe_arrows: true,
    // Function declarations moved to the top of their scope, where the language puts them anyway: the
    // helpers of a module then sit together, which gzip finds more of (about 70 B in the script, 50 B in the core entry).
    hoist_funs: true,
    // Unused trailing parameters dropped: they change only a function's `length`, which neither Lit nor
    // this code reads (about 10 B).
    keep_fargs: false,
  },
  format: { comments: false },
};
