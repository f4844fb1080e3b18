import type { ConsentKind as StoredKind } from '#libs/database';

/**
 * What a consent is for: the `consent_kind` enum, listed once here for what the API, the events and
 * the metrics name (the type below fails to compile when this list and the schema differ).
 */
export const CONSENT_KINDS = ['ACCOUNT', 'PAYMENT', 'VRP_SWEEPING', 'VRP_COMMERCIAL'] as const;
export type ConsentKind = (typeof CONSENT_KINDS)[number];

/** The kinds payments are made under within limits, by POST /v1/vrp/consents/{consentId}/payments. */
export const VRP_KINDS = ['VRP_SWEEPING', 'VRP_COMMERCIAL'] as const satisfies readonly ConsentKind[];

export const CONSENT_KINDS_DESCRIPTION =
  'ACCOUNT: financial data; PAYMENT: one single payment; VRP_SWEEPING: payments within limits to the user’s own account; VRP_COMMERCIAL: payments within limits to the merchant, set up on the upstream’s hosted page';

// Both ways: a kind added to the schema but not here (or the reverse) is a compile error.
const SAME_AS_SCHEMA: [StoredKind] extends [ConsentKind]
  ? [ConsentKind] extends [StoredKind]
    ? true
    : never
  : never = true;
void SAME_AS_SCHEMA;
