import { assert } from 'chai';
import { captureTemplate, compareTemplates, fingerprintImage, FINGERS, MATCH_THRESHOLD, templateOf } from '../../simulator/src/fingers.js';

describe('simulator: synthetic fingers', () => {
  it('a capture of a finger matches its own template and no other finger', () => {
    for (const enrolled of FINGERS) {
      for (const presented of FINGERS) {
        for (const seed of ['1', '2', '3']) {
          const score = compareTemplates(templateOf(enrolled.id), captureTemplate(presented.id, seed));
          if (enrolled.id === presented.id) assert.ok(score >= 0.95, `${enrolled.id} vs itself scored ${score}`);
          else assert.ok(score < MATCH_THRESHOLD - 0.3, `${enrolled.id} vs ${presented.id} scored ${score}`);
        }
      }
    }
  });

  it('two captures of one finger differ slightly (sensor noise) but still match', () => {
    const a = captureTemplate('finger-b', 'x');
    const b = captureTemplate('finger-b', 'y');
    assert.notDeepEqual(a, b);
    assert.ok(compareTemplates(a, b) >= 0.95);
  });

  it('images are deterministic per finger and differ between fingers', () => {
    const images = FINGERS.map((f) => fingerprintImage(f.id));
    assert.strictEqual(new Set(images).size, FINGERS.length);
    assert.strictEqual(fingerprintImage('finger-a'), images[0]);
    for (const image of images) {
      assert.match(image, /^data:image\/svg\+xml;base64,/);
      const svg = Buffer.from(image.split(',')[1]!, 'base64').toString();
      assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      assert.ok((svg.match(/<polyline/g) ?? []).length > 10, 'has ridges');
    }
  });
});
