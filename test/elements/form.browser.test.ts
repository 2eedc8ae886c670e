import { expect, fixture, waitUntil } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioVerify } from '../../src/elements/index.js';
import { json } from '../support/fake-network.js';
import { ATTRS, MIDDLEWARE, everythingVisible, installNetwork, restoreNetwork, type Net } from './network.js';

async function verifyForm() {
  const form = await fixture<HTMLFormElement>(`<form>
    <label>Amount <input name="amount" value="250"></label>
    <bio-verify ${ATTRS} subject-id="alice" name="verification" required></bio-verify>
    <button type="submit">Approve</button>
  </form>`);
  const el = form.querySelector('bio-verify')!;
  await el.updateComplete;
  const submissions: FormData[] = [];
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submissions.push(new FormData(form));
  });
  return { form, el, submissions };
}

describe('bio-verify as a form control (ElementInternals)', () => {
  let net: Net;
  beforeEach(() => {
    net = installNetwork();
  });
  afterEach(restoreNetwork);

  it('required: the form does not submit until a match; then it submits the verification id', async () => {
    const { form, el, submissions } = await verifyForm();
    expect(el.form).to.equal(form);
    expect(form.checkValidity()).to.equal(false);
    expect(el.validity.valueMissing).to.equal(true);
    form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
    expect(submissions).to.have.length(0);

    await el.start();
    await el.updateComplete;
    expect(el.value).to.equal('ver-42');
    expect(form.checkValidity()).to.equal(true);
    form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
    expect(submissions).to.have.length(1);
    expect(submissions[0]!.get('verification')).to.equal('ver-42');
    expect(submissions[0]!.get('amount')).to.equal('250');
  });

  it('a result without a match submits nothing and keeps the form invalid', async () => {
    net.on('POST', `${MIDDLEWARE}/orchestrator/verify`, () =>
      json({ subjectId: 'alice', match: false, score: 0.1, verificationId: 'ver-no' }),
    );
    const { form, el } = await verifyForm();
    await el.start();
    await el.updateComplete;
    expect(el.value).to.equal('');
    expect(form.checkValidity()).to.equal(false);
    expect(new FormData(form).has('verification')).to.equal(false);
  });

  it('a form reset forgets the verification', async () => {
    const { form, el } = await verifyForm();
    await el.start();
    await el.updateComplete;
    expect(form.checkValidity()).to.equal(true);
    form.reset();
    await el.updateComplete;
    expect(el.value).to.equal('');
    expect(form.checkValidity()).to.equal(false);
  });

  it('without required, the form is valid before verification and submits no value', async () => {
    const form = await fixture<HTMLFormElement>(`<form><bio-verify ${ATTRS} subject-id="alice" name="v"></bio-verify></form>`);
    await form.querySelector<BioVerify>('bio-verify')!.updateComplete;
    expect(form.checkValidity()).to.equal(true);
    expect(new FormData(form).has('v')).to.equal(false);
  });

  it('validationMessage and willValidate answer as a native control does', async () => {
    const { el } = await verifyForm();
    expect(el.willValidate).to.equal(true);
    expect(el.validationMessage).to.equal('Verify your fingerprint first.');
    expect(el.checkValidity()).to.equal(false);
    await el.start();
    await el.updateComplete;
    expect(el.validationMessage).to.equal('');
    expect(el.checkValidity()).to.equal(true);
    expect(el.reportValidity()).to.equal(true);
  });

  it("the validation message follows a change of the page's language", async () => {
    const { form, el } = await verifyForm();
    expect(el.validationMessage).to.equal('Verify your fingerprint first.');
    form.lang = 'de';
    // The element hears of an ancestor's lang through a MutationObserver and renders again; 8 s rather
    // than waitUntil's 1 s default, which a loaded machine can exceed.
    await waitUntil(() => el.validationMessage === 'Bitte zuerst den Fingerabdruck prüfen.', 'the message in German', { timeout: 8000 });
  });

  it('a blocked submit focuses the element (its button), which Firefox otherwise reports as "not focusable"', async () => {
    const { form, el, submissions } = await verifyForm();
    el.focus();
    // Compared as booleans: chai's message for two elements would print whole DOM trees.
    expect(document.activeElement === el, 'the element itself is focusable').to.equal(true);
    form.querySelector('input')!.focus();
    form.requestSubmit();
    expect(submissions).to.have.length(0);
    // Firefox logs "The invalid form control with name='verification' is not focusable." exactly when
    // it cannot move focus to the invalid control; focus reaching the element is that message's absence.
    expect(document.activeElement === el, 'focus is on the element').to.equal(true);
    expect(el.shadowRoot!.activeElement === el.shadowRoot!.querySelector('button'), 'on its button').to.equal(true);
  });

  it('the form is accessible', async () => {
    const { form } = await verifyForm();
    await expect(form).to.be.accessible();
  });
});

/** The part of jQuery a legacy page uses on a form, the same in 1.12, 3.7 and 4. */
interface PageJQuery {
  (form: HTMLFormElement): { serialize(): string };
  post(url: string, data: string): PromiseLike<{ type: string; body: string }>;
  fn: { jquery: string };
  noConflict(removeAll: true): PageJQuery;
}

/** A jQuery release as a legacy page loads it: its UMD file in a script tag; then off the page's globals again. */
function loadJQuery(folder: string): Promise<PageJQuery> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = `/node_modules/${folder}/dist/jquery.js`;
    script.onload = () => {
      script.remove();
      resolve((window as unknown as { jQuery: PageJQuery }).jQuery.noConflict(true));
    };
    script.onerror = () => reject(new Error(`${script.src} did not load`));
    document.head.append(script);
  });
}

async function jQueryForm(hiddenInput: boolean) {
  const form = await fixture<HTMLFormElement>(`<form>
    <input name="amount" value="250">
    <bio-verify ${ATTRS} subject-id="alice" name="verification"${hiddenInput ? ' hidden-input' : ''}></bio-verify>
  </form>`);
  const el = form.querySelector('bio-verify')!;
  await el.updateComplete;
  return { form, el };
}

// package.json's devDependencies: jquery-1.12 and jquery-3.7 are npm aliases of those releases, jquery is 4.
for (const [folder, version] of [
  ['jquery-1.12', '1.12.4'],
  ['jquery-3.7', '3.7.1'],
  ['jquery', '4.0.0'],
] as const) {
  describe(`bio-verify in a form that jQuery ${version} serializes`, () => {
    let $: PageJQuery;
    let net: Net;
    before(async () => {
      $ = await loadJQuery(folder);
      expect($.fn.jquery).to.equal(version);
    });
    beforeEach(() => {
      net = installNetwork();
    });
    afterEach(restoreNetwork);

    it('with hidden-input, serialize() and $.post() send the verification id after a match, and nothing once it is cleared', async () => {
      const { form, el } = await jQueryForm(true);
      expect($(form).serialize()).to.equal('amount=250');

      await el.start();
      expect($(form).serialize()).to.equal('amount=250&verification=ver-42');
      const posted = await $.post('/__test/echo', $(form).serialize());
      expect(posted.body).to.equal('amount=250&verification=ver-42');
      expect(posted.type).to.match(/^application\/x-www-form-urlencoded/);
      // A native submit sends it once: the child carries it, the element itself then submits nothing.
      expect(new FormData(form).getAll('verification')).to.deep.equal(['ver-42']);
      // The child holds what the form submits, the verification id the server confirms; never the token.
      expect(everythingVisible(form)).not.to.include('token-1');

      form.reset();
      expect($(form).serialize()).to.equal('amount=250');
      expect(el.childElementCount).to.equal(0);
    });

    it('with hidden-input, a later verify that does not match leaves no verification behind', async () => {
      const { form, el } = await jQueryForm(true);
      await el.start();
      expect($(form).serialize()).to.equal('amount=250&verification=ver-42');
      net.on('POST', `${MIDDLEWARE}/orchestrator/verify`, () =>
        json({ subjectId: 'alice', match: false, score: 0.1, verificationId: 'ver-no' }),
      );
      await el.start();
      expect($(form).serialize()).to.equal('amount=250');
      expect(new FormData(form).has('verification')).to.equal(false);
    });

    it('without hidden-input the element adds no child, and serialize() leaves it out (it reads input, select and textarea only)', async () => {
      const { form, el } = await jQueryForm(false);
      await el.start();
      expect(el.childNodes).to.have.length(0);
      expect($(form).serialize()).to.equal('amount=250');
      expect(new FormData(form).get('verification')).to.equal('ver-42');
    });
  });
}

describe('bio-verify hidden-input set and unset after a match', () => {
  beforeEach(() => installNetwork());
  afterEach(restoreNetwork);

  it('the child follows name, and the element submits the value itself again once hidden-input is gone', async () => {
    const { form, el } = await jQueryForm(true);
    await el.start();
    el.name = 'fingerprint';
    await el.updateComplete;
    expect(el.querySelector('input')?.name).to.equal('fingerprint');
    expect([...new FormData(form).keys()]).to.deep.equal(['amount', 'fingerprint']);

    el.removeAttribute('hidden-input');
    await el.updateComplete;
    expect(el.childElementCount).to.equal(0);
    expect(new FormData(form).getAll('fingerprint')).to.deep.equal(['ver-42']);
  });
});
