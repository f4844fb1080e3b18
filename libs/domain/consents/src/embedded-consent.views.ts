import type { AuthorisationResponse } from '#libs/upstream-client';
import type { StoredConsent } from './consent.repository.js';
import { ConsentStatus, FINAL_FAILURE_STATUSES } from './consent-status.js';

/* What the embedded flow takes and answers (embedded-consents.service.ts runs it). */

export interface CreateEmbeddedConsentInput {
  institutionId: string;
  /** Sent straight to the upstream; never stored, never logged. */
  credentials: { id: string; password: string };
  scopes?: string[];
}

export interface EmbeddedConsentView {
  id: string;
  status: string;
  institutionId: string;
  scaMethods?: { id: string; type: string | null; description: string | null }[];
  expiresAt: string;
}

export const isFinalFailure = (status: string | undefined): status is ConsentStatus =>
  (FINAL_FAILURE_STATUSES as readonly (string | undefined)[]).includes(status);

/**
 * A new embedded consent as its creator sees it: the SCA methods to choose from, while one is awaited,
 * and the expiry it was stored with.
 */
export function embeddedView(
  consent: StoredConsent,
  created: AuthorisationResponse,
  status: string,
  expiresAt: Date,
): EmbeddedConsentView {
  return {
    id: consent.id,
    status,
    institutionId: consent.institutionId,
    ...(status === ConsentStatus.AwaitingScaMethod
      ? {
          scaMethods: (created.scaMethods ?? []).map((m) => ({
            id: m.id,
            type: m.type ?? null,
            description: m.description ?? null,
          })),
        }
      : {}),
    expiresAt: expiresAt.toISOString(),
  };
}
