/**
 * Subjects enrolled when the simulator starts, so a pasted `<bio-verify subject-id="alice">` matches at
 * once. Enrolled through bioid-sdk's own core in Node (client credentials at the simulated IdP, discovery
 * at the local service, dispatch at the middleware): the path an integrator's server would take, with
 * the finger that is on the simulated sensor.
 */
import { BioID } from 'bioid-sdk';

export interface SeedOptions {
  issuerUrl: string;
  realm: string;
  clientId: string;
  clientSecret: string;
  middlewareUrl: string;
  localServiceUrl: string;
}

export async function enrollSubjects(subjects: readonly string[], options: SeedOptions): Promise<void> {
  if (subjects.length === 0) return;
  const bio = new BioID({
    middlewareUrl: options.middlewareUrl,
    integratorId: options.clientId,
    readerServiceUrl: options.localServiceUrl,
    auth: {
      type: 'idpClientCredentials',
      issuerUrl: options.issuerUrl,
      realm: options.realm,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
    },
  });
  try {
    for (const subjectId of subjects) await bio.reader.enroll({ subjectId });
  } finally {
    bio.reader.close();
  }
}
