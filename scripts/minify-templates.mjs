// A rollup plugin that minifies the text of Lit's html`` and css`` templates, which terser leaves as
// written: the sources keep readable markup and CSS, the build ships them compact. It rewrites only the
// literal parts of a template (never a ${binding}), with rules that do not change what the page shows:
//  - html: whitespace that holds a line break is dropped next to a tag and at either end of a template
//    part, and becomes one space elsewhere (between attributes);
//  - css: comments dropped, whitespace collapsed, and dropped around { } ; : , > (our selectors have no
//    descendant pseudo-classes such as `div :hover`, whose meaning that would change).
import { parse } from 'acorn';
import MagicString from 'magic-string';

const minifyHtml = (text) =>
  text
    .replace(/>\s*\n\s*/g, '>')
    .replace(/\s*\n\s*</g, '<')
    .replace(/^\s*\n\s*|\s*\n\s*$/g, '')
    .replace(/\s*\n\s*/g, ' ');

const minifyCss = (text) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{};:,>])\s*/g, '$1')
    .replace(/;}/g, '}')
    .trim();

const MINIFIERS = { html: minifyHtml, css: minifyCss };

/** Calls `visit` on every node of an ESTree tree. */
function walk(node, visit) {
  if (!node || typeof node.type !== 'string') return;
  visit(node);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) value.forEach((child) => walk(child, visit));
    else if (value && typeof value === 'object') walk(value, visit);
  }
}

export function minifyTemplates() {
  return {
    name: 'minify-templates',
    transform(code, id) {
      if (!/\/src\/elements\/.*\.ts$/.test(id) || !/\b(html|css)\s*`/.test(code)) return null;
      const source = new MagicString(code);
      walk(parse(code, { ecmaVersion: 'latest', sourceType: 'module' }), (node) => {
        const minify = node.type === 'TaggedTemplateExpression' && MINIFIERS[node.tag.name];
        if (!minify) return;
        for (const quasi of node.quasi.quasis) {
          const raw = quasi.value.raw;
          const small = minify(raw);
          if (small !== raw && quasi.end > quasi.start) source.overwrite(quasi.start, quasi.end, small);
          else if (small !== raw) source.appendLeft(quasi.start, small); // an empty part: nothing to replace
        }
      });
      return { code: source.toString(), map: source.generateMap({ hires: true }) };
    },
  };
}
