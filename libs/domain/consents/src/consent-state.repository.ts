import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { Prisma, PrismaService, ReadCache, retryingConflicts } from '#libs/database';
import { AccountSyncStateRepository } from '#libs/domain/accounts';
import { MerchantEventRepository, type MerchantEventType } from '#libs/domain/events';
import { FIRST_SYNC_ASKED_WITHIN_MS } from '#libs/domain/sync-runs';
import { consentEvent } from './consent-events.js';
import {
  allowedFrom,
  canTransition,
  ConsentStatus,
  type ConsentTransition,
  endsIn,
  type TransitionResult,
} from './consent-status.js';

type Tx = Prisma.TransactionClient;

/**
 * The merchant event each status change announces, recorded with the change (the outbox): the transition
 * and where it ends decide it. Steps in between (SCA steps, a re-authorisation asked for) announce nothing.
 */
function announcedBy(transition: ConsentTransition, to: ConsentStatus): MerchantEventType | null {
  if (transition === 'authorise') return 'consent.authorized';
  if (transition === 'fail') return 'consent.failed';
  if (transition === 'revoke') return 'consent.revoked';
  if (transition === 'expire') return 'consent.expired';
  if (transition === 'requestReauthorisation') return 'consent.reauthorisation_required';
  if (transition === 'gone') {
    if (to === ConsentStatus.Revoked) return 'consent.revoked';
    if (to === ConsentStatus.Expired || to === ConsentStatus.Invalid) return 'consent.expired';
  }
  return null;
}

/** What markGone records: the bank no longer honours the consent, in the words of a gone signal. */
export interface MarkGone {
  consentId: string;
  status: ConsentStatus;
  code: string;
  message: string;
  now?: Date;
  /** The sealed token the refused call used: a re-authorisation since (a new token) stands. */
  tokenUsed?: string | null;
  /** The caller's transaction (webhook fan-out), else one of its own. */
  within?: Tx;
}

/** Clears what only an authorisation in progress needs: its links and our single-use proof. */
const NOTHING_PENDING = { authorisationUrl: null, reauthorisationUrl: null, stateNonce: null };

/**
 * The one writer of a consent's status. Each write is a transition of `CONSENT_TRANSITIONS`,
 * applied only while the consent is in one of its `from` statuses (one conditional update), so a late
 * callback, poll or upstream answer cannot undo a newer state; a write that finds the consent elsewhere
 * changes nothing and answers what it found, for the caller to act on or log.
 */
@Injectable()
export class ConsentStateRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly events: MerchantEventRepository,
    private readonly cache: ReadCache,
    private readonly syncState: AccountSyncStateRepository,
  ) {}

  /** After a write that may change the consent's accounts: this process reads its own write at once. */
  private async touchingAccounts<T>(merchantId: MerchantId, write: Promise<T>): Promise<T> {
    try {
      return await write;
    } finally {
      this.cache.invalidate(merchantId);
    }
  }

  /** An embedded SCA step moved on; only from the very status the step was taken in. */
  advanceEmbedded(merchantId: MerchantId, consentId: string, from: ConsentStatus, to: ConsentStatus) {
    return this.apply(merchantId, this.prisma, consentId, 'advanceEmbedded', to, {}, from);
  }

  /**
   * The token (sealed), the terms and AUTHORIZED; and, in the same transaction, the consent's accounts due
   * for a sync now (a re-authorised consent's were stopped when the bank let it go). An account being
   * synced at this moment is left to finish.
   *
   * `reauthorisationNotExtended`: a completed re-authorisation left the expiry where it was (or inside the
   * warning window). The consent is stamped so (the expiry scan asks the bank no more for it) and
   * `consent.reauthorisation_not_extended` is recorded after `consent.authorized`; its expiry's warning
   * went out already and stands. Any other authorisation clears the stamp.
   *
   * `placeAccounts`: written in the same transaction once the change applies (and not otherwise), before
   * the accounts are made due: the placement of the accounts the bank listed, so a consent that is not
   * authorised here (revoked meanwhile, a duplicate callback) takes no accounts from another, and of two
   * consents authorised at once the placement that runs second sees the first one authorised. The whole
   * write is made again on a deadlock (it is conditional, so whole or not at all).
   */
  markAuthorised(
    merchantId: MerchantId,
    consentId: string,
    data: {
      tokenCiphertext: string;
      tokenKeyId: string;
      authorizedAt: Date;
      expiresAt: Date | null;
      featureScope: string[];
      institutionConsentId: string | null;
      reauthorisationNotExtended?: boolean;
    },
    now = new Date(),
    placeAccounts?: (tx: Tx) => Promise<void>,
  ): Promise<TransitionResult> {
    const { reauthorisationNotExtended: notExtended = false, ...terms } = data;
    const attempt = () =>
      this.prisma.$transaction(async (tx) => {
        const result = await this.apply(merchantId, tx, consentId, 'authorise', ConsentStatus.Authorised, {
          ...terms,
          ...NOTHING_PENDING,
          reauthorisationRequestedAt: null,
          ...(notExtended
            ? { reauthorisationNotExtendedAt: now }
            : // A new expiry: its warning is still to come.
              { reauthorisationNotExtendedAt: null, expiringNotifiedAt: null }),
          lastErrorCode: null,
          lastErrorMessage: null,
        });
        if (result.applied && notExtended) {
          await this.announce(merchantId, tx, consentId, 'consent.reauthorisation_not_extended');
        }
        if (result.applied && placeAccounts) await placeAccounts(tx);
        // Due for the dispatcher a little later: the authoriser asks for their first syncs itself once
        // this commits, on the user's behalf when they are present (FIRST_SYNC_ASKED_WITHIN_MS).
        const dueAt = new Date(now.getTime() + FIRST_SYNC_ASKED_WITHIN_MS);
        if (result.applied) await this.syncState.resumeConsent(merchantId, tx, consentId, { now, dueAt });
        return result;
      });
    return this.touchingAccounts(merchantId, retryingConflicts(attempt));
  }

  /** An authorisation that ended before it succeeded, with the code and message of why. */
  markFailed(
    merchantId: MerchantId,
    consentId: string,
    status: ConsentStatus,
    code: string,
    message: string | null,
  ): Promise<TransitionResult> {
    return this.prisma.$transaction((tx) =>
      this.apply(merchantId, tx, consentId, 'fail', status, {
        ...NOTHING_PENDING,
        lastErrorCode: code.slice(0, 64),
        lastErrorMessage: message?.slice(0, 1000) ?? null,
      }),
    );
  }

  /**
   * The bank no longer honours an authorised consent: record why and stop syncing its accounts. The token
   * is kept: a re-authorisation sends it.
   */
  markGone(
    merchantId: MerchantId,
    { consentId, status, code, message, now = new Date(), tokenUsed, within }: MarkGone,
  ): Promise<TransitionResult> {
    const run = <T>(fn: (tx: Tx) => Promise<T>) => (within ? fn(within) : this.prisma.$transaction(fn));
    const write = run(async (tx) => {
      const result = await this.apply(
        merchantId,
        tx,
        consentId,
        'gone',
        status,
        {
          lastErrorCode: code.slice(0, 64),
          lastErrorMessage: message.slice(0, 1000),
          ...(status === ConsentStatus.Revoked ? { revokedAt: now } : {}),
        },
        undefined,
        // The bank refused the token the caller used: a re-authorisation since (a new token) stands.
        tokenUsed !== undefined ? { tokenCiphertext: tokenUsed } : {},
      );
      if (result.applied) await this.syncState.stopConsent(merchantId, tx, consentId);
      return result;
    });
    return this.touchingAccounts(merchantId, write);
  }

  /**
   * A re-authorisation is pending: the bank's new page is shown on the consent, the merchant's page for the
   * return replaces the old one, and the upstream's own single-use `state` for this round is what the
   * callback must present (ours, forwarded since creation, may have expired long ago).
   */
  markReauthorisationPending(
    merchantId: MerchantId,
    consentId: string,
    data: { reauthorisationUrl: string; redirectUrl: string; upstreamState: string },
  ): Promise<TransitionResult> {
    return this.prisma.$transaction((tx) =>
      this.apply(merchantId, tx, consentId, 'requestReauthorisation', ConsentStatus.AwaitingReauthorisation, {
        reauthorisationUrl: data.reauthorisationUrl,
        reauthorisationRequestedAt: new Date(),
        redirectUrl: data.redirectUrl,
        stateNonce: data.upstreamState,
      }),
    );
  }

  /** New terms agreed upstream: back to awaiting the user, with a fresh nonce for our signed state. */
  markPreAuthorisationUpdated(
    merchantId: MerchantId,
    consentId: string,
    data: {
      authorisationUrl: string | null;
      redirectUrl: string;
      stateNonce: string;
      featureScope: string[];
      expiresAt: Date | null;
      transactionsFrom?: Date;
      transactionsTo?: Date;
    },
  ): Promise<TransitionResult> {
    return this.apply(
      merchantId,
      this.prisma,
      consentId,
      'updatePreAuthorisation',
      ConsentStatus.AwaitingAuthorisation,
      {
        ...data,
        reauthorisationUrl: null,
        reauthorisationRequestedAt: null,
      },
    );
  }

  /**
   * A single-payment consent made its payment: CONSUMED, so nothing here can use it again. The token is
   * kept: reading the payment's status upstream still needs it.
   */
  markConsumed(merchantId: MerchantId, consentId: string): Promise<TransitionResult> {
    return this.apply(merchantId, this.prisma, consentId, 'consume', ConsentStatus.Consumed, {
      ...NOTHING_PENDING,
    });
  }

  /**
   * Revoked: the time, syncing stopped, and a data consent's token dropped (useless now, so no reason to
   * keep a secret). A payment consent keeps its token: payments made before the revocation still settle,
   * and reading their status needs it.
   */
  markRevoked(merchantId: MerchantId, consentId: string, now = new Date()): Promise<TransitionResult> {
    const write = this.prisma.$transaction(async (tx) => {
      const consent = await tx.consent.findFirst({
        where: { id: consentId, merchantId },
        select: { kind: true },
      });
      const result = await this.apply(merchantId, tx, consentId, 'revoke', ConsentStatus.Revoked, {
        ...NOTHING_PENDING,
        revokedAt: now,
        ...(consent?.kind === 'ACCOUNT' ? { tokenCiphertext: null, tokenKeyId: null } : {}),
      });
      if (result.applied) await this.syncState.stopConsent(merchantId, tx, consentId);
      return result;
    });
    return this.touchingAccounts(merchantId, write);
  }

  /**
   * One guarded write: `data` lands only while the consent is in the transition's `from` statuses (or in
   * exactly `onlyFrom`, when the caller knows the status it acted on).
   */
  private async apply(
    merchantId: MerchantId,
    db: Tx,
    consentId: string,
    transition: ConsentTransition,
    to: ConsentStatus,
    data: Prisma.ConsentUpdateManyMutationInput,
    onlyFrom?: ConsentStatus,
    guard: Prisma.ConsentWhereInput = {},
  ): Promise<TransitionResult> {
    const allowed = onlyFrom !== undefined ? canTransition(transition, onlyFrom, to) : endsIn(transition, to);
    // A programming error, not a state the consent can be in: fail loudly rather than write it.
    if (!allowed) throw new Error(`Consent transition ${transition} cannot end in ${to}`);
    const status = onlyFrom ?? { in: allowedFrom(transition) };
    const { count } = await db.consent.updateMany({
      where: { ...guard, id: consentId, merchantId, status },
      data: { ...data, status: to },
    });
    if (count === 1) {
      const type = announcedBy(transition, to);
      if (type) await this.announce(merchantId, db, consentId, type);
      return { applied: true };
    }
    const found = await db.consent.findFirst({
      where: { id: consentId, merchantId },
      select: { status: true },
    });
    return { applied: false, found: found?.status ?? null };
  }

  /** Records the change's merchant event in the same transaction (only ever called inside one). */
  private async announce(
    merchantId: MerchantId,
    db: Tx,
    consentId: string,
    type: MerchantEventType,
  ): Promise<void> {
    const consent = await db.consent.findFirstOrThrow({
      where: { id: consentId, merchantId },
      select: {
        id: true,
        merchantId: true,
        userId: true,
        kind: true,
        status: true,
        institutionId: true,
        expiresAt: true,
        lastErrorCode: true,
        reauthorisationUrl: true,
      },
    });
    await this.events.recordInTransaction(db, [consentEvent(type, consent)]);
  }
}
