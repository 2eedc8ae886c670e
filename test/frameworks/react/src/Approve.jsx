import { useState } from 'react';
import 'bioid-sdk/elements/bio-verify.js';

export function Approve({ subject }) {
  const [outcome, setOutcome] = useState('');
  const [sent, setSent] = useState('');
  // React 19 form action: the FormData holds <bio-verify name="verification">'s value, the verification id.
  const approve = (data) => setSent(`Sent ${data.get('verification')}`); // your server confirms it (docs/quick-start.md, quick start 3)
  return (
    <form action={approve}>
      {/* Attributes as written; subjectId is a property (React 19 sets the element's own properties). */}
      <bio-verify name="verification" required
        middleware-url="http://127.0.0.1:18081" token-endpoint="http://127.0.0.1:18082/token"
        integrator-id="demo-integrator" local-service-url="http://127.0.0.1:18065"
        subjectId={subject}
        onbio-result={(e) => setOutcome(e.detail.result.match ? `Verified: ${e.detail.result.verificationId}` : 'No match.')}
        onbio-error={(e) => setOutcome(`Error: ${e.detail.code}`)} />
      <button>Approve</button>
      <output id="outcome">{outcome}</output>
      <output id="sent">{sent}</output>
    </form>
  );
}
