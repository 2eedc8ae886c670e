// A React 19 app as an integrator writes it, type-checked against the installed package
// (test/package/package.node.test.ts). Each `@ts-expect-error` line must be an error, or tsc fails.
import type {} from 'bioid-sdk/react';
import 'bioid-sdk/elements/bio-verify.js';
import type { BioVerify } from 'bioid-sdk/elements/bio-verify.js';
import { useRef, useState, type JSX } from 'react';

export function Approve(): JSX.Element {
  const verify = useRef<BioVerify>(null);
  const [verificationId, setVerificationId] = useState<string>();
  return (
    <form method="post" action="/approve">
      <bio-reader-status onbio-status={(e) => console.log(e.detail.state, e.detail.pinned)} />
      <bio-verify
        ref={verify}
        middleware-url="/middleware"
        token-endpoint="/bioid/token"
        integrator-id="acme"
        subject-id="alice"
        name="verification"
        required
        className="approve"
        onbio-result={(e) => {
          const match: boolean = e.detail.result.match;
          if (match) setVerificationId(e.detail.result.verificationId);
          // @ts-expect-error match is a boolean
          const wrong: number = e.detail.result.match;
          void wrong;
        }}
        onbio-error={(e) => console.warn(e.detail.code, e.detail.retryable)}
        onbio-start={(e) => e.detail.operation}
      />
      <bio-enroll subject-id="alice" onbio-result={(e) => console.log(e.detail.result.enrollmentId)} />
      <bio-search onbio-result={(e) => console.log(e.detail.result.candidates?.length)} />
      <bio-enrolled subject-id="alice" onbio-result={(e) => console.log(e.detail.result.records)} />
      {/* Properties by their own names, as React 19 sets them on the element (docs/frameworks.md binds subjectId). */}
      <bio-verify subjectId="alice" middlewareUrl="/middleware" hiddenInput />
      {/* @ts-expect-error a misspelled attribute (no such property either) */}
      <bio-verify subject-id="alice" requird />
      {/* @ts-expect-error a misspelled property */}
      <bio-verify subjectID="alice" />
      {/* @ts-expect-error timeout-ms is a number */}
      <bio-verify timeout-ms={{ seconds: 5 }} />
      {/* @ts-expect-error middleware-url is a string */}
      <bio-verify middleware-url={42} />
      <output>{verificationId}</output>
    </form>
  );
}

// A hyphenated name that is not an attribute: JSX itself lets any `a-b` name through (TypeScript's rule
// for dashed attribute names), so the props object is where the misspelling is caught.
export const props: JSX.IntrinsicElements['bio-verify'] = {
  'subject-id': 'alice',
  // @ts-expect-error a misspelled attribute
  'subject-idd': 'alice',
};
