/**
 * The statuses a consent row holds: the upstream's own words, kept verbatim (the merchant API shows them
 * as they are), of which the embedded flow's SCA steps are a part. A closed set: a status the upstream
 * invents later is not written until it is added here with its transitions.
 */
export const ConsentStatus = {
  AwaitingAuthorisation: 'AWAITING_AUTHORIZATION',
  AwaitingReauthorisation: 'AWAITING_RE_AUTHORIZATION',
  AwaitingScaMethod: 'AWAITING_SCA_METHOD',
  AwaitingScaCode: 'AWAITING_SCA_CODE',
  Authorised: 'AUTHORIZED',
  Rejected: 'REJECTED',
  Failed: 'FAILED',
  Expired: 'EXPIRED',
  Revoked: 'REVOKED',
  Consumed: 'CONSUMED',
  Invalid: 'INVALID',
} as const;
export type ConsentStatus = (typeof ConsentStatus)[keyof typeof ConsentStatus];

const S = ConsentStatus;
const ALL: readonly ConsentStatus[] = Object.values(S);

/** Waiting for the user or the bank: what a callback, an SCA step or the embedded poll may still settle. */
export const AWAITING_STATUSES: readonly ConsentStatus[] = [
  S.AwaitingAuthorisation,
  S.AwaitingReauthorisation,
  S.AwaitingScaMethod,
  S.AwaitingScaCode,
];

/** Upstream statuses after which an authorisation will never succeed: the embedded poll stops. */
export const FINAL_FAILURE_STATUSES: readonly ConsentStatus[] = [
  S.Rejected,
  S.Failed,
  S.Expired,
  S.Revoked,
  S.Consumed,
  S.Invalid,
];

/**
 * Statuses from which a consent may be renewed (re-authorised, or its terms updated): authorised, or
 * waiting for the user to renew it (upstream spec §3: re-authorisation starts from AUTHORIZED). A consent that
 * has ended (revoked, expired, rejected, failed) is not brought back: a new consent for the same
 * institution is, and the user's accounts carry over to it.
 */
const RENEWABLE: readonly ConsentStatus[] = [S.Authorised, S.AwaitingReauthorisation];

/**
 * Every way a stored consent's status may change, named by intent: the statuses it may start from and
 * those it may end in. The repository writes each one guarded by `from`, so a late or concurrent step
 * that finds the consent elsewhere changes nothing (and says so) instead of undoing a newer state.
 */
export const CONSENT_TRANSITIONS = {
  /** An embedded SCA step moved on: method chosen, then the code handed to the bank. */
  advanceEmbedded: {
    from: [S.AwaitingScaMethod, S.AwaitingScaCode],
    to: [S.AwaitingScaCode, S.AwaitingAuthorisation],
  },
  /** The user approved (callback, SCA answer or poll): the token and terms are stored. */
  authorise: { from: AWAITING_STATUSES, to: [S.Authorised] },
  /** The user, the bank or the token exchange ended an authorisation before it succeeded. */
  fail: { from: AWAITING_STATUSES, to: FINAL_FAILURE_STATUSES },
  /** The bank no longer honours an authorised consent (a consent call said expired, revoked or used). */
  gone: { from: [S.Authorised], to: [S.Expired, S.Revoked, S.Consumed] },
  /** The consent reached its expiry (our clock): from authorised, or while a re-authorisation waits. */
  expire: { from: [S.Authorised, S.AwaitingReauthorisation], to: [S.Expired] },
  /** A re-authorisation was asked for; the bank's page waits for the user. */
  requestReauthorisation: { from: RENEWABLE, to: [S.AwaitingReauthorisation] },
  /** New terms agreed upstream; the user must authorise them. */
  updatePreAuthorisation: {
    from: [...RENEWABLE, S.AwaitingAuthorisation],
    to: [S.AwaitingAuthorisation],
  },
  /** A single-payment consent made its one payment (upstream spec §1, rule 3): never used again. */
  consume: { from: [S.Authorised], to: [S.Consumed] },
  /** Revoked by the merchant or the user: final, from anywhere else. */
  revoke: { from: ALL.filter((s) => s !== S.Revoked), to: [S.Revoked] },
} as const satisfies Record<string, { from: readonly ConsentStatus[]; to: readonly ConsentStatus[] }>;

export type ConsentTransition = keyof typeof CONSENT_TRANSITIONS;

/** The statuses `transition` may start from: the guard of its write. */
export function allowedFrom(transition: ConsentTransition): ConsentStatus[] {
  return [...CONSENT_TRANSITIONS[transition].from];
}

/** Whether `transition` may start from `from`: checked before an upstream call the write would follow. */
export function canStart(transition: ConsentTransition, from: string): boolean {
  return (CONSENT_TRANSITIONS[transition].from as readonly string[]).includes(from);
}

/** Whether `transition` may take a consent from `from` to `to`. */
export function canTransition(transition: ConsentTransition, from: string, to: string): boolean {
  const rule = CONSENT_TRANSITIONS[transition];
  return (rule.from as readonly string[]).includes(from) && (rule.to as readonly string[]).includes(to);
}

/** Whether `transition` may end in `to`, from wherever it is allowed to start. */
export function endsIn(transition: ConsentTransition, to: string): boolean {
  return (CONSENT_TRANSITIONS[transition].to as readonly string[]).includes(to);
}

/** An upstream status word as ours, or undefined when it is not one we know. */
export function parseConsentStatus(value: string | undefined): ConsentStatus | undefined {
  return (ALL as readonly (string | undefined)[]).includes(value) ? (value as ConsentStatus) : undefined;
}

/** What a guarded write did: `applied`, or the status it found instead (null: no such consent). */
export type TransitionResult = { applied: true } | { applied: false; found: string | null };

/** The reason of an authorisation its user never completed within the callback's window (EXPIRED). */
export const AUTHORISATION_ABANDONED = 'AUTHORISATION_ABANDONED';
