import { webhookSecretKey } from '#libs/crypto';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode } from '#libs/errors';
import type { CallOptions, RegisteredWebhook } from '#libs/upstream-client';
import type { UpstreamWebhookView } from './upstream-webhook.repository.js';

/* What the registration service makes of the upstream's answers: a webhook's secret and status, and a
   migration's report. */

/** Where a registration goes: the root application, or the sub-application of a merchant. */
export interface WebhookApplication {
  /** The merchant owning `subApplicationId`; null for the root application. */
  merchantId: string | null;
  /** Null: the root application (UPSTREAM_APPLICATION_ID). */
  subApplicationId: string | null;
}

export interface WebhookRegistrationRequest {
  /** Absent: every category the upstream offers. */
  categories?: string[];
  /** Absent: our receiver, API_PUBLIC_URL + /v1/webhooks/upstream. */
  callbackUrl?: string;
}

/** The most the upstream accepts as a reset's `delay` (the sandbox refuses more than a day). */
export const MAX_SECRET_RESET_DELAY_SECONDS = 86_400;

/** An upstream failure as the API answers it. */
export const rethrowMapped = (error: unknown): never => {
  throw mapUpstreamFailure(error);
};

/** The same categories, in any order. */
export const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x) => b.includes(x));

export type MigrationStepName = 'list-subscriptions' | 'delete-subscription' | 'list-categories' | 'register';

export interface MigrationStep {
  step: MigrationStepName;
  target?: string;
  outcome: 'done' | 'skipped' | 'failed';
  detail?: string;
}

export interface MigrationReport {
  applicationId: string;
  steps: MigrationStep[];
  /** The registration in use once the run ends (a failed run throws instead). */
  registration: UpstreamWebhookView;
}

/** The secret of a new registration, refused unless the signature scheme can use it. */
export function webhookSecretOf({ webhookSecret }: RegisteredWebhook): string {
  if (typeof webhookSecret !== 'string' || webhookSecret === '') {
    throw new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, 'The upstream answered without a webhook secret.');
  }
  // The scheme's own check (base64, optionally whsec_): a secret it cannot use would verify nothing.
  try {
    webhookSecretKey(webhookSecret);
  } catch {
    throw new DomainError(
      ErrorCode.UPSTREAM_UNAVAILABLE,
      'The upstream answered with a webhook secret the signature scheme cannot use.',
    );
  }
  return webhookSecret;
}

export function webhookStatusOf(webhook: RegisteredWebhook): string | null {
  return typeof webhook.status === 'string' ? webhook.status.slice(0, 32) : null;
}

/** The failure of a migration step as the API answers it: the usual mapping, plus the run so far. */
export function failedAt(
  steps: MigrationStep[],
  step: MigrationStepName,
  target: string | undefined,
  error: unknown,
): unknown {
  // The registration itself arrives mapped already (its refusals are the operator's input).
  const mapped = mapUpstreamFailure(error);
  if (!(mapped instanceof DomainError)) return mapped;
  steps.push({ step, ...(target ? { target } : {}), outcome: 'failed', detail: mapped.message });
  const report = steps.map((s, i) => ({
    field: `steps[${i}]`,
    issue: `${s.step}${s.target ? ` ${s.target}` : ''}: ${s.outcome}${s.detail ? ` (${s.detail})` : ''}`,
  }));
  return new DomainError(mapped.code, `Migration stopped at step ${step}: ${mapped.message}`, {
    ...mapped.extra,
    details: [...(mapped.extra.details ?? []), ...report],
  });
}

/** Spec 6.3: every call for a sub-application carries the `sub-application` header; the root's none. */
export function callOptionsFor(applicationId: string, rootId: string): CallOptions {
  return applicationId === rootId ? {} : { subApplication: applicationId };
}
