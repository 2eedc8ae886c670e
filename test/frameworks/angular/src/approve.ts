import { Component, CUSTOM_ELEMENTS_SCHEMA, signal } from '@angular/core';
import 'bioid-sdk/elements/bio-verify.js';
import type { BioErrorDetail, BioVerifyResultDetail } from 'bioid-sdk/elements';

@Component({
  selector: 'app-approve',
  // The bio- tags are custom elements, not Angular components.
  schemas: [CUSTOM_ELEMENTS_SCHEMA],
  template: `
    <form (submit)="approve($event)">
      <!-- Attributes as written; [subjectId] binds a property. -->
      <bio-verify name="verification" required
        middleware-url="http://127.0.0.1:18081" token-endpoint="http://127.0.0.1:18082/token"
        integrator-id="demo-integrator" local-service-url="http://127.0.0.1:18065"
        [subjectId]="subject" (bio-result)="onResult($event)" (bio-error)="onError($event)"></bio-verify>
      <button>Approve</button>
      <output id="outcome">{{ outcome() }}</output>
      <output id="sent">{{ sent() }}</output>
    </form>
  `,
})
export class Approve {
  readonly subject = 'alice'; // your signed-in user
  readonly outcome = signal('');
  readonly sent = signal('');

  onResult(e: Event) {
    const { result } = (e as CustomEvent<BioVerifyResultDetail>).detail;
    this.outcome.set(result.match ? `Verified: ${result.verificationId}` : 'No match.');
  }

  onError(e: Event) {
    this.outcome.set(`Error: ${(e as CustomEvent<BioErrorDetail>).detail.code}`);
  }

  approve(e: SubmitEvent) {
    e.preventDefault();
    // The form's data holds <bio-verify name="verification">'s value, the verification id.
    this.sent.set(`Sent ${new FormData(e.target as HTMLFormElement).get('verification')}`); // your server confirms it
  }
}
