import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import {
  type ConsentRecord,
  ConsentsStore,
  InstitutionsCatalog,
  type Published,
  ResetRegistryService,
  SandboxClockService,
  type SandboxContext,
  SandboxError,
  type SandboxUser,
  UsersStore,
} from '../core/index.js';

/** One-time tokens live ten minutes on the sandbox clock, and open their consent once. */
export const ONE_TIME_TOKEN_TTL_MS = 10 * 60 * 1000;

/** How many `GET /consents/{id}` an embedded consent answers "still awaiting" after its SCA code. */
export const EMBEDDED_POLLS_BEFORE_AUTHORISED = 1;

/** Wrong SCA codes an embedded consent tolerates before it turns FAILED. */
export const MAX_SCA_ATTEMPTS = 3;

/** Re-authorisation and pre-authorisation updates exist to bring these back (besides AUTHORIZED ones). */
const UPDATABLE_STATUSES = [
  'EXPIRED',
  'AWAITING_AUTHORIZATION',
  'AWAITING_RE_AUTHORIZATION',
  'AWAITING_PRE_AUTHORIZATION',
  'PRE_AUTHORIZED',
] as const;

interface OneTimeToken {
  consentId: string;
  applicationId: string;
  expiresAtMs: number;
  used: boolean;
}

/** Account-consent details this module keeps in `ConsentRecord.details` (the record's kind-owned slot). */
export interface AccountConsentDetails {
  /** The expiry a consent had when its re-authorisation was asked for (the request clears it meanwhile). */
  expiresAtBeforeReauthorisation?: string;
  lastConfirmedAt?: string;
  reconfirmBy?: string;
}

/**
 * State of the consent flows that is not the consent itself: one-time tokens and embedded-flow progress.
 */
@Injectable()
export class ConsentFlowsService {
  private oneTimeTokens = new Map<string, OneTimeToken>();
  private pendingPolls = new Map<string, number>();
  private scaAttempts = new Map<string, number>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly consents: ConsentsStore,
    private readonly users: UsersStore,
    private readonly clock: SandboxClockService,
    private readonly catalog: InstitutionsCatalog,
    resets: ResetRegistryService,
  ) {
    resets.registerMaps(
      'consent-flows',
      () => ({
        oneTimeTokens: this.oneTimeTokens,
        pendingPolls: this.pendingPolls,
        scaAttempts: this.scaAttempts,
      }),
      (maps) => {
        ({
          oneTimeTokens: this.oneTimeTokens,
          pendingPolls: this.pendingPolls,
          scaAttempts: this.scaAttempts,
        } = maps);
      },
    );
  }

  // ---- reads

  find(applicationId: string, id: string): ConsentRecord | undefined {
    return this.consents.get(applicationId, id);
  }

  mustFind(applicationId: string, id: string): ConsentRecord {
    const record = this.find(applicationId, id);
    if (!record) throw SandboxError.notFound(`Consent ${id} was not found`);
    return record;
  }

  list(applicationId: string): ConsentRecord[] {
    return this.consents.list(applicationId);
  }

  /** The wire form plus the account-consent fields the store does not know about. */
  wire(record: ConsentRecord, apiVersion: SandboxContext['apiVersion'] = '1') {
    const view = this.consents.view(record, apiVersion);
    const details = (record.details ?? {}) as AccountConsentDetails;
    if (record.kind === 'ACCOUNT' && details.lastConfirmedAt) {
      Object.assign(view, { lastConfirmedAt: details.lastConfirmedAt, reconfirmBy: details.reconfirmBy });
    }
    return view;
  }

  /** `institutionConsents` of a user: the institutions where the user has an authorised consent. */
  userView(user: SandboxUser): Published<'ApplicationUser'> {
    const institutions = new Set(
      this.list(user.applicationUuid)
        .filter((c) => c.userUuid === user.uuid && c.status === 'AUTHORIZED')
        .map((c) => c.institutionId),
    );
    return {
      uuid: user.uuid,
      applicationUuid: user.applicationUuid,
      applicationUserId: user.applicationUserId,
      referenceId: user.referenceId,
      createdAt: user.createdAt,
      institutionConsents: [...institutions].map((institutionId) => ({ institutionId })),
      vopOptOut: user.vopOptOut ?? false,
    };
  }

  /**
   * Deletes a user and every consent of theirs: each is announced as revoked, then removed, so its token
   * is refused as deleted.
   */
  deleteUser(user: SandboxUser) {
    const consents = this.list(user.applicationUuid).filter((c) => c.userUuid === user.uuid);
    for (const record of consents) {
      record.status = 'REVOKED';
      this.consents.update(record);
      this.consents.delete(record.id);
      this.pendingPolls.delete(record.id);
    }
    this.users.delete(user.uuid);
    return consents;
  }

  // ---- tokens

  /**
   * The account consent behind a `consent` header for re-authorisation and pre-authorisation updates:
   * unlike `ConsentsStore.fromToken` it accepts expired (and not yet authorised) consents, because
   * bringing those back is the point of these operations.
   */
  consentForUpdate(ctx: SandboxContext, token: string | undefined): ConsentRecord {
    return this.consents.fromToken(ctx, token, ['ACCOUNT'], { alsoAccept: UPDATABLE_STATUSES });
  }

  /**
   * Authorises a consent of any kind after the PSU approved it. A re-authorised account consent gets a
   * token that differs from the superseded one and a new validity: the longest a data consent lasts
   * (upstream spec §1, rule 2), counted from this approval, since the re-authorisation request names no expiry
   * (upstream spec §4.1: PATCH without a body). An institution with the `reauthorisationKeepsExpiry` quirk keeps
   * the expiry the consent had instead.
   */
  authorize(record: ConsentRecord): ConsentRecord {
    this.scaAttempts.delete(record.id);
    this.pendingPolls.delete(record.id);
    if (record.kind === 'ACCOUNT' && record.status === 'AWAITING_RE_AUTHORIZATION') {
      const { expiresAtBeforeReauthorisation: kept, ...details } = (record.details ??
        {}) as AccountConsentDetails;
      record.details = { ...details };
      // No expiry asked for: the store gives the longest, from the same instant it records the approval
      // at (a time read here would be a few milliseconds earlier on a busy machine).
      record.expiresAt =
        this.catalog.quirksOf(record.institutionId).reauthorisationKeepsExpiry && kept ? kept : undefined;
    }
    return this.consents.authorize(record);
  }

  issueOneTimeToken(record: ConsentRecord): string {
    const token = randomBytes(32).toString('base64url');
    this.oneTimeTokens.set(token, {
      consentId: record.id,
      applicationId: record.applicationId,
      expiresAtMs: this.clock.nowMs() + ONE_TIME_TOKEN_TTL_MS,
      used: false,
    });
    return token;
  }

  redeemOneTimeToken(ctx: SandboxContext, token: string): ConsentRecord {
    const entry = this.oneTimeTokens.get(token);
    const refuse = (message: string) => SandboxError.invalidProperty('oneTimeToken', message);
    if (!entry || entry.applicationId !== ctx.application.id) throw refuse('Unknown one-time token');
    if (entry.used) throw refuse('This one-time token has already been exchanged');
    if (entry.expiresAtMs <= this.clock.nowMs()) throw refuse('This one-time token has expired');
    entry.used = true;
    const record = this.mustFind(ctx.application.id, entry.consentId);
    if (record.status !== 'AUTHORIZED') throw refuse(`Consent ${record.id} is ${record.status}`);
    return record;
  }

  newState(): string {
    return randomUUID().replace(/-/g, '');
  }

  // ---- embedded flow

  /** The institution has the code: the consent becomes AUTHORIZED once the client has polled for it. */
  awaitInstitution(record: ConsentRecord): void {
    this.scaAttempts.delete(record.id);
    record.status = 'AWAITING_AUTHORIZATION';
    this.consents.update(record);
    this.pendingPolls.set(record.id, EMBEDDED_POLLS_BEFORE_AUTHORISED);
  }

  /** Called by Get Consent: advances an embedded consent the institution is authorising. */
  poll(record: ConsentRecord): ConsentRecord {
    const remaining = this.pendingPolls.get(record.id);
    if (remaining === undefined || record.status !== 'AWAITING_AUTHORIZATION') return record;
    if (remaining > 0) {
      this.pendingPolls.set(record.id, remaining - 1);
      return record;
    }
    return this.authorize(record);
  }

  /** Counts a wrong SCA code; the consent fails after MAX_SCA_ATTEMPTS. Returns the attempts left. */
  wrongScaCode(record: ConsentRecord): number {
    const attempts = (this.scaAttempts.get(record.id) ?? 0) + 1;
    this.scaAttempts.set(record.id, attempts);
    if (attempts >= MAX_SCA_ATTEMPTS) {
      record.status = 'FAILED';
      this.consents.update(record);
      this.scaAttempts.delete(record.id);
    }
    return Math.max(0, MAX_SCA_ATTEMPTS - attempts);
  }
}
