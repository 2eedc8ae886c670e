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

  it('the form is accessible', async () => {
    const { form } = await verifyForm();
    await expect(form).to.be.accessible();
  });
});
