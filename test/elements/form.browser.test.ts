import { expect, fixture } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioVerify } from '../../src/elements/index.js';
import { json } from '../support/fake-network.js';
import { ATTRS, MIDDLEWARE, installNetwork, restoreNetwork, type Net } from './network.js';

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
