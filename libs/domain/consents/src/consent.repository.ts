import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '#libs/database';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const AWAITING = 'AWAITING_AUTHORIZATION';
export const AWAITING_REAUTHORISATION = 'AWAITING_RE_AUTHORIZATION';

/** Every column except the encrypted token: reads for responses never load the secret. */
const PUBLIC_FIELDS = {
  id: true,
  merchantId: true,
  userId: true,
  kind: true,
  flow: true,
  upstreamConsentId: true,
  institutionId: true,
  status: true,
  featureScope: true,
  expiresAt: true,
  authorizedAt: true,
  transactionsFrom: true,
  transactionsTo: true,
  authorisationUrl: true,
  redirectUrl: true,
  reauthorisationUrl: true,
  revokedAt: true,
  lastErrorCode: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.ConsentSelect;

export type StoredConsent = Prisma.ConsentGetPayload<{ select: typeof PUBLIC_FIELDS }>;

@Injectable()
export class ConsentRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The user with what an authorisation request needs from them and their merchant, or null. */
  findUserForAuthorisation(merchantId: string, userId: string) {
    if (!UUID.test(userId)) return Promise.resolve(null);
    return this.prisma.user.findFirst({
      where: { id: userId, merchantId },
      select: {
        id: true,
        applicationUserId: true,
        merchant: { select: { subApplicationId: true, frontendOrigins: true } },
      },
    });
  }

  subApplicationOf(merchantId: string) {
    return this.prisma.merchant
      .findUnique({ where: { id: merchantId }, select: { subApplicationId: true } })
      .then((m) => m?.subApplicationId ?? undefined);
  }

  /** The sync state of the consent's accounts, one row per account (a consent has a handful). */
  accountSyncStates(merchantId: string, consentId: string) {
    return this.prisma.account.findMany({
      where: { merchantId, consentId },
      select: { syncStatus: true, lastSyncedAt: true },
    });
  }

  async userExists(merchantId: string, userId: string): Promise<boolean> {
    if (!UUID.test(userId)) return false;
    return (await this.prisma.user.count({ where: { id: userId, merchantId } })) > 0;
  }

  createAwaiting(data: {
    id: string;
    merchantId: string;
    userId: string;
    upstreamConsentId: string;
    institutionId: string;
    status: string;
    redirectUrl: string | null;
    stateNonce: string | null;
    authorisationUrl: string | null;
    featureScope: string[];
    expiresAt: Date | null;
    transactionsFrom: Date | null;
    transactionsTo: Date | null;
    flow?: 'REDIRECT' | 'EMBEDDED';
  }): Promise<StoredConsent> {
    return this.prisma.consent.create({
      data: { flow: 'REDIRECT', ...data, kind: 'ACCOUNT' },
      select: PUBLIC_FIELDS,
    });
  }

  /** The sealed consent token with the consent, for the few operations that must send it upstream. */
  async findWithToken(merchantId: string, consentId: string, userId?: string) {
    if (!UUID.test(consentId)) return null;
    const row = await this.prisma.consent.findFirst({
      where: { id: consentId, merchantId, ...(userId ? { userId } : {}) },
      select: { ...PUBLIC_FIELDS, tokenCiphertext: true, tokenKeyId: true },
    });
    if (!row) return null;
    const { tokenCiphertext, tokenKeyId, ...consent } = row;
    return {
      consent,
      sealed: tokenCiphertext && tokenKeyId ? { ciphertext: tokenCiphertext, keyId: tokenKeyId } : null,
    };
  }

  /** A status change only while the consent is still in `from`, so a late step cannot undo a newer one. */
  async moveStatus(merchantId: string, consentId: string, from: string, to: string): Promise<boolean> {
    const { count } = await this.prisma.consent.updateMany({
      where: { id: consentId, merchantId, status: from },
      data: { status: to },
    });
    return count === 1;
  }

  /**
   * A re-authorisation is pending: the bank's new page is shown on the consent, the merchant's page for the
   * return replaces the old one, and the upstream's own single-use `state` for this round is what the
   * callback must present (ours, forwarded since creation, may have expired long ago).
   */
  markReauthorisationPending(
    merchantId: string,
    consentId: string,
    data: { reauthorisationUrl: string; redirectUrl: string; upstreamState: string; status: string },
  ) {
    return this.prisma.consent.updateMany({
      where: { id: consentId, merchantId },
      data: {
        status: data.status,
        reauthorisationUrl: data.reauthorisationUrl,
        reauthorisationRequestedAt: new Date(),
        redirectUrl: data.redirectUrl,
        stateNonce: data.upstreamState,
      },
    });
  }

  /** New terms agreed upstream: back to awaiting the PSU, with a fresh nonce for our signed state. */
  markPreAuthorisationUpdated(
    merchantId: string,
    consentId: string,
    data: {
      status: string;
      authorisationUrl: string | null;
      redirectUrl: string;
      stateNonce: string;
      featureScope: string[];
      expiresAt: Date | null;
      transactionsFrom?: Date;
      transactionsTo?: Date;
    },
  ) {
    return this.prisma.consent.updateMany({
      where: { id: consentId, merchantId },
      data: { ...data, reauthorisationUrl: null, reauthorisationRequestedAt: null },
    });
  }

  /** Like {@link claimCallback}, for the return from a re-authorisation (see markReauthorisationPending). */
  async claimReauthorisation(
    merchantId: string,
    consentId: string,
    upstreamConsentId: string,
    upstreamState: string,
  ): Promise<StoredConsent | null> {
    if (!UUID.test(consentId)) return null;
    const { count } = await this.prisma.consent.updateMany({
      where: {
        id: consentId,
        merchantId,
        upstreamConsentId,
        stateNonce: upstreamState,
        status: AWAITING_REAUTHORISATION,
      },
      data: { stateNonce: null },
    });
    return count === 1 ? this.findOne(merchantId, consentId) : null;
  }

  findOne(merchantId: string, consentId: string, userId?: string): Promise<StoredConsent | null> {
    if (!UUID.test(consentId)) return Promise.resolve(null);
    return this.prisma.consent.findFirst({
      where: { id: consentId, merchantId, ...(userId ? { userId } : {}) },
      select: PUBLIC_FIELDS,
    });
  }

  /** A user's consents newest first (uuid v7 ids are creation-ordered), keyset-paged by id. */
  async listForUser(merchantId: string, userId: string, limit: number, beforeId?: string) {
    const rows = await this.prisma.consent.findMany({
      where: { merchantId, userId, ...(beforeId ? { id: { lt: beforeId } } : {}) },
      orderBy: { id: 'desc' },
      take: limit + 1,
      select: PUBLIC_FIELDS,
    });
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /**
   * Claims a callback: clears the nonce of the awaiting consent it names, in one conditional update, so
   * of two concurrent or replayed callbacks exactly one wins. The winner gets the consent; others get null.
   */
  async claimCallback(merchantId: string, consentId: string, nonce: string): Promise<StoredConsent | null> {
    if (!UUID.test(consentId)) return null;
    const { count } = await this.prisma.consent.updateMany({
      where: { id: consentId, merchantId, stateNonce: nonce, status: AWAITING },
      data: { stateNonce: null },
    });
    return count === 1 ? this.findOne(merchantId, consentId) : null;
  }

  markAuthorised(
    merchantId: string,
    consentId: string,
    data: {
      status: string;
      tokenCiphertext: string;
      tokenKeyId: string;
      authorizedAt: Date;
      expiresAt: Date | null;
      featureScope: string[];
      institutionConsentId: string | null;
    },
  ) {
    return this.prisma.consent.updateMany({
      where: { id: consentId, merchantId },
      data: {
        ...data,
        authorisationUrl: null,
        reauthorisationUrl: null,
        reauthorisationRequestedAt: null,
        stateNonce: null,
        lastErrorCode: null,
        lastErrorMessage: null,
      },
    });
  }

  markFailed(merchantId: string, consentId: string, status: string, code: string, message: string | null) {
    return this.prisma.consent.updateMany({
      where: { id: consentId, merchantId },
      data: {
        status,
        authorisationUrl: null,
        reauthorisationUrl: null,
        stateNonce: null,
        lastErrorCode: code.slice(0, 64),
        lastErrorMessage: message?.slice(0, 1000) ?? null,
      },
    });
  }

  /** Revokes locally: status, time, the token dropped (useless now, so no reason to keep a secret) and syncing stopped. */
  async markRevoked(merchantId: string, consentId: string, now = new Date()) {
    await this.prisma.$transaction([
      this.prisma.consent.updateMany({
        where: { id: consentId, merchantId },
        data: {
          status: 'REVOKED',
          revokedAt: now,
          stateNonce: null,
          authorisationUrl: null,
          reauthorisationUrl: null,
          tokenCiphertext: null,
          tokenKeyId: null,
        },
      }),
      this.prisma.account.updateMany({
        where: { consentId, merchantId },
        data: { syncStatus: 'STOPPED', nextSyncAt: null },
      }),
    ]);
  }
}
