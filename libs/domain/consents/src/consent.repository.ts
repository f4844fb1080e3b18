import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { Prisma, PrismaService } from '#libs/database';
import type { ConsentKind } from './consent-kinds.js';
import { ConsentStatus } from './consent-status.js';

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
  reauthorisationNotExtendedAt: true,
  autoReauthorise: true,
  revokedAt: true,
  vrpControlParameters: true,
  lastErrorCode: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.ConsentSelect;

export type StoredConsent = Prisma.ConsentGetPayload<{ select: typeof PUBLIC_FIELDS }>;

/** Reads of consents, their creation, and the single-use claims of a callback; status changes are ConsentStateRepository's. */
@Injectable()
export class ConsentRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Our consents with this upstream id under one upstream application: merchants on that sub-application,
   * or, for the root application (`null`), merchants with none. Upstream ids are unique within an
   * application only, and several merchants may share the root one.
   */
  findByUpstreamIdInApplication(
    tx: Prisma.TransactionClient,
    upstreamConsentId: string,
    subApplicationId: string | null,
  ) {
    return tx.consent.findMany({
      where: { upstreamConsentId, merchant: { subApplicationId } },
      select: { id: true, merchantId: true },
    });
  }

  /** The user with what an authorisation request needs from them and their merchant, or null. */
  findUserForAuthorisation(merchantId: MerchantId, userId: string) {
    return this.prisma.user.findFirst({
      where: { id: userId, merchantId },
      select: {
        id: true,
        applicationUserId: true,
        merchant: { select: { subApplicationId: true, frontendOrigins: true } },
      },
    });
  }

  subApplicationOf(merchantId: MerchantId) {
    return this.prisma.merchant
      .findUnique({ where: { id: merchantId }, select: { subApplicationId: true } })
      .then((m) => m?.subApplicationId ?? undefined);
  }

  /** The sync state of the consent's accounts, one row per account (a consent has a handful). */
  accountSyncStates(merchantId: MerchantId, consentId: string) {
    return this.prisma.account.findMany({
      where: { merchantId, consentId },
      select: { syncStatus: true, lastSyncedAt: true },
    });
  }

  async userExists(merchantId: MerchantId, userId: string): Promise<boolean> {
    return (await this.prisma.user.count({ where: { id: userId, merchantId } })) > 0;
  }

  createAwaiting(
    merchantId: MerchantId,
    data: {
      id: string;
      userId: string;
      upstreamConsentId: string;
      institutionId: string;
      status: ConsentStatus;
      redirectUrl: string | null;
      stateNonce: string | null;
      authorisationUrl: string | null;
      featureScope: string[];
      expiresAt: Date | null;
      transactionsFrom: Date | null;
      transactionsTo: Date | null;
      flow?: 'REDIRECT' | 'EMBEDDED';
      /** ACCOUNT unless named: payments create PAYMENT and VRP_SWEEPING consents through the same flow. */
      kind?: ConsentKind;
      vrpControlParameters?: Prisma.InputJsonValue;
      vrpInitiationDetails?: Prisma.InputJsonValue;
      /** Whether the expiry scan may ask the bank to re-authorise it (a data consent's choice). */
      autoReauthorise?: boolean;
      /** The user's PSU ids, sealed, at a bank that requires them: a renewal with the user present sends them. */
      psuIdsCiphertext?: string;
      psuIdsKeyId?: string;
    },
  ): Promise<StoredConsent> {
    return this.prisma.consent.create({
      data: { flow: 'REDIRECT', kind: 'ACCOUNT', ...data, merchantId },
      select: PUBLIC_FIELDS,
    });
  }

  /**
   * The merchant's consent for an upstream consent it was given rather than asked for (a hosted page's
   * result): created awaiting its token the first time, the same row every time after, however many
   * callers race (the upstream id is unique per merchant).
   */
  async findOrCreateAwaiting(
    merchantId: MerchantId,
    data: Parameters<ConsentRepository['createAwaiting']>[1],
  ): Promise<StoredConsent> {
    const where = {
      upstreamConsentId_merchantId: {
        upstreamConsentId: data.upstreamConsentId,
        merchantId,
      },
    };
    try {
      return await this.prisma.consent.upsert({
        where,
        create: { flow: 'REDIRECT', kind: 'ACCOUNT', ...data, merchantId },
        update: {},
        select: PUBLIC_FIELDS,
      });
    } catch (error) {
      // Two first callers at once: the loser's insert meets the winner's row, which is the answer.
      if ((error as { code?: string }).code !== 'P2002') throw error;
      return this.prisma.consent.findUniqueOrThrow({ where, select: PUBLIC_FIELDS });
    }
  }

  /** The sealed consent token with the consent, for the few operations that must send it upstream. */
  async findWithToken(merchantId: MerchantId, consentId: string, userId?: string) {
    const row = await this.prisma.consent.findFirst({
      where: { id: consentId, merchantId, ...(userId ? { userId } : {}) },
      select: {
        ...PUBLIC_FIELDS,
        tokenCiphertext: true,
        tokenKeyId: true,
        psuIdsCiphertext: true,
        psuIdsKeyId: true,
      },
    });
    if (!row) return null;
    const { tokenCiphertext, tokenKeyId, psuIdsCiphertext, psuIdsKeyId, ...consent } = row;
    return {
      consent,
      sealed: { tokenCiphertext, tokenKeyId },
      // The user's login ids at a bank that requires them, sealed as the token is (null: none given).
      sealedPsuIds: { tokenCiphertext: psuIdsCiphertext, tokenKeyId: psuIdsKeyId },
    };
  }

  /** Like {@link claimCallback}, for the return from a re-authorisation (see markReauthorisationPending). */
  async claimReauthorisation(
    merchantId: MerchantId,
    consentId: string,
    upstreamConsentId: string,
    upstreamState: string,
  ): Promise<StoredConsent | null> {
    const [claimed] = await this.prisma.consent.updateManyAndReturn({
      where: {
        id: consentId,
        merchantId,
        upstreamConsentId,
        stateNonce: upstreamState,
        status: ConsentStatus.AwaitingReauthorisation,
      },
      data: { stateNonce: null },
      select: PUBLIC_FIELDS,
    });
    return claimed ?? null;
  }

  findOne(merchantId: MerchantId, consentId: string, userId?: string): Promise<StoredConsent | null> {
    return this.prisma.consent.findFirst({
      where: { id: consentId, merchantId, ...(userId ? { userId } : {}) },
      select: PUBLIC_FIELDS,
    });
  }

  /** A user's consents newest first (uuid v7 ids are creation-ordered), keyset-paged by id. */
  async listForUser(merchantId: MerchantId, userId: string, limit: number, beforeId?: string) {
    const rows = await this.prisma.consent.findMany({
      where: { merchantId, userId, ...(beforeId ? { id: { lt: beforeId } } : {}) },
      orderBy: { id: 'desc' },
      take: limit + 1,
      select: PUBLIC_FIELDS,
    });
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /** A redirect-flow consent whose first callback state has been spent (claimed), for a repeated return. */
  findCallbackSpent(merchantId: MerchantId, consentId: string): Promise<StoredConsent | null> {
    return this.prisma.consent.findFirst({
      where: { id: consentId, merchantId, stateNonce: null, redirectUrl: { not: null } },
      select: PUBLIC_FIELDS,
    });
  }

  /**
   * Claims a callback: clears the nonce of the awaiting consent it names, in one conditional update, so
   * of two concurrent or replayed callbacks exactly one wins. The winner gets the consent; others get null.
   */
  async claimCallback(
    merchantId: MerchantId,
    consentId: string,
    nonce: string,
  ): Promise<StoredConsent | null> {
    // One statement: a claim whose answer is lost would spend the state with nothing done (two statements,
    // the database going away between them, left the bank's approval unexchanged for good).
    const [claimed] = await this.prisma.consent.updateManyAndReturn({
      where: {
        id: consentId,
        merchantId,
        stateNonce: nonce,
        status: ConsentStatus.AwaitingAuthorisation,
      },
      data: { stateNonce: null },
      select: PUBLIC_FIELDS,
    });
    return claimed ?? null;
  }
}
