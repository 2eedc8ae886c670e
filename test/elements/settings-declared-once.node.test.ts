/**
 * Each element setting is declared once, in src/elements/parts/settings.ts (docs/architecture.md, "Adding an
 * element setting"): its attribute, property, type, default and doc reach every tag of
 * custom-elements.json from there, the Lit properties come from the same rows, and what the core takes is
 * read from the core's own option tables. It reads custom-elements.json: `npm run build` first.
 */
import { assert } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readSettings } from '../../scripts/framework-types.mjs';
import { READER_OPTIONS } from '../../src/core/reader.js';
import { WATCH_OPTIONS } from '../../src/core/status-watch.js';
import { WATCHED_SETTINGS, settingProperties } from '../../src/elements/parts/settings.js';

interface Attribute {
  name: string;
  fieldName?: string;
  type?: { text: string };
  description?: string;
  default?: string;
}
interface Member extends Omit<Attribute, 'fieldName'> {
  kind: string;
  attribute?: string;
}
interface Declaration {
  tagName?: string;
  attributes?: Attribute[];
  members?: Member[];
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const settings = readSettings(`${root}src/elements/parts/settings.ts`);
const manifest = JSON.parse(readFileSync(`${root}custom-elements.json`, 'utf8')) as { modules: { declarations?: Declaration[] }[] };
const tags = manifest.modules.flatMap((m) => m.declarations ?? []).filter((d) => d.tagName);

describe('element settings, declared once (src/elements/parts/settings.ts)', () => {
  it('the Settings interface and the SETTINGS rows name the same settings, in the Lit properties too', () => {
    assert.isAbove(settings.length, 5);
    assert.deepEqual(
      Object.keys(settingProperties),
      settings.map((s) => s.name),
    );
    for (const { name, attribute } of settings) {
      assert.strictEqual(settingProperties[name as keyof typeof settingProperties].attribute, attribute ?? false, name);
    }
  });

  it('every tag of custom-elements.json has each setting as a field and, unless a property only, an attribute, typed and documented from src/elements/parts/settings.ts', () => {
    assert.isAbove(tags.length, 5);
    for (const tag of tags) {
      for (const setting of settings) {
        const field = tag.members?.find((m) => m.kind === 'field' && m.name === setting.name);
        assert.ok(field, `<${tag.tagName}> has the field ${setting.name}`);
        assert.strictEqual(field.type?.text, setting.type);
        assert.strictEqual(field.description, setting.doc);
        assert.strictEqual(field.default, setting.defaultValue);
        assert.isNotEmpty(setting.doc, `${setting.name} is documented`);
        const attribute = tag.attributes?.find((a) => a.fieldName === setting.name);
        if (setting.attribute === undefined) {
          assert.isUndefined(attribute, `${setting.name} is a property only`);
          continue;
        }
        assert.ok(attribute, `<${tag.tagName}> has the attribute ${setting.attribute}`);
        assert.strictEqual(attribute.name, setting.attribute);
        assert.strictEqual(attribute.description, setting.doc);
      }
    }
  });

  it('a reader and a status watch get the settings their core option tables name, and a watch restarts on a change to exactly those', () => {
    const names = settings.map((s) => s.name);
    assert.includeMembers(Object.keys(READER_OPTIONS), [
      'middlewareUrl',
      'integratorId',
      'workstationId',
      'deviceId',
      'localServiceUrl',
      'timeoutMs',
    ]);
    assert.deepEqual(
      WATCHED_SETTINGS,
      names.filter((name) => Object.hasOwn(WATCH_OPTIONS, name)),
    );
    assert.sameMembers(WATCHED_SETTINGS, ['workstationId', 'deviceId', 'localServiceUrl', 'timeoutMs']);
  });
});
