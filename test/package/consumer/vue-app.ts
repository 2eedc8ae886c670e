// A Vue 3 app's use of the tags, type-checked against the installed package
// (test/package/package.node.test.ts). Each `@ts-expect-error` line must be an error, or tsc fails.
import type {} from 'bioid-sdk/vue';
import 'bioid-sdk/elements/bio-verify.js';
import { h, type GlobalComponents } from 'vue';

type Props<Tag extends keyof GlobalComponents> = InstanceType<GlobalComponents[Tag]>['$props'];

export const verifyProps: Props<'bio-verify'> = {
  'middleware-url': '/middleware',
  'token-endpoint': '/bioid/token',
  'integrator-id': 'acme',
  'subject-id': 'alice',
  name: 'verification',
  required: true,
  'onbio-result': (e) => {
    const match: boolean = e.detail.result.match;
    const id: string | undefined = e.detail.result.verificationId;
    console.log(match, id);
  },
  'onbio-error': (e) => console.warn(e.detail.code),
};

// A template's :subjectId and @bio-result: the property by its own name, the listener as Vue names it.
export const templateProps: Props<'bio-verify'> = {
  subjectId: 'alice',
  middlewareUrl: '/middleware',
  onBioResult: (e) => {
    const match: boolean = e.detail.result.match;
    console.log(match);
  },
};

export const statusProps: Props<'bio-reader-status'> = {
  'onbio-status': (e) => console.log(e.detail.state),
};

export const misspelled: Props<'bio-verify'> = {
  // @ts-expect-error a misspelled attribute
  'subject-idd': 'alice',
};

export const wrongType: Props<'bio-verify'> = {
  // @ts-expect-error required is a boolean
  required: 'yes',
};

export const wrongSetting: Props<'bio-enroll'> = {
  // @ts-expect-error middleware-url is a string
  'middleware-url': 42,
};

export const vnode = h('bio-verify', { 'subject-id': 'alice' });
