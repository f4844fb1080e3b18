import type { BffClient } from '../bff-client.js';
import type { Institution } from '../models.js';
import { codeView, credentialsView, methodsView, type View } from './connect-views.js';

/** A step of the embedded flow as the API answers it. */
interface EmbeddedStep {
  id: string;
  status: string;
  scaMethods?: { id: string; type: string | null; description: string | null }[];
}

/** What the embedded flow needs of the element. */
export interface EmbeddedHost {
  bff: BffClient;
  userId: string;
  /** Runs a user's action (one at a time; a failure is shown and reported). */
  run(task: () => Promise<void>): void;
  /** Shows the next step and moves focus to it. */
  show(view: View): void;
  /** The consent exists: a cancel from now on reports it. */
  created(consentId: string): void;
  /** Waits for the bank's decision and ends the flow with it. */
  decide(consentId: string): Promise<void>;
  cancel(): void;
}

/**
 * The embedded flow, in place: the user's credentials at the bank, then the SCA method the bank offers
 * (when it asks), then the code; then the bank decides and the API polls it, and so does the host.
 */
export function credentialsStep(host: EmbeddedHost, institution: Institution): View {
  return credentialsView(institution, {
    submit: (credentials) =>
      host.run(async () => {
        const step = await host.bff.consents.createEmbedded(host.userId, {
          institutionId: institution.id,
          credentials,
        });
        host.created(step.id);
        await nextStep(host, step);
      }),
    cancel: () => host.cancel(),
  });
}

/** The step the bank asks for next: a method, a code, or its decision. */
async function nextStep(host: EmbeddedHost, step: EmbeddedStep): Promise<void> {
  const cancel = () => host.cancel();
  if (step.status === 'AWAITING_SCA_METHOD' && step.scaMethods?.length) {
    const choose = (scaMethodId: string) =>
      host.run(async () => nextStep(host, await host.bff.consents.selectScaMethod(step.id, { scaMethodId })));
    return host.show(methodsView(step.scaMethods, { choose, cancel }));
  }
  if (step.status === 'AWAITING_SCA_CODE') {
    const submit = (code: string) =>
      host.run(async () => {
        await host.bff.consents.submitScaCode(step.id, { code });
        await host.decide(step.id);
      });
    return host.show(codeView({ submit, cancel }));
  }
  await host.decide(step.id);
}
