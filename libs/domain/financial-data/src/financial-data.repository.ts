import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { column, DatabasePool, Prisma, PrismaService, row, type RowOf, sqlStatement } from '#libs/database';
import type { ConsentKind } from '#libs/domain/consents';

/** What a pass-through call needs of a consent: never loaded for responses, only to call the upstream. */
const CONSENT_FOR_CALL = {
  id: true,
  merchantId: true,
  userId: true,
  kind: true,
  status: true,
  upstreamConsentId: true,
  institutionId: true,
  authorizedAt: true,
  tokenCiphertext: true,
  tokenKeyId: true,
  vrpControlParameters: true,
  vrpInitiationDetails: true,
  merchant: { select: { subApplicationId: true } },
} satisfies Prisma.ConsentSelect;

export type ConsentForCall = Prisma.ConsentGetPayload<{ select: typeof CONSENT_FOR_CALL }>;

export interface AccountForCall {
  id: string;
  upstreamAccountId: string;
  consent: ConsentForCall;
}

/**
 * The account behind every read-through call (`/transactions/live` on each page view): hand-written SQL
 * on the shared pool, one named statement, the consent and the merchant's sub-application joined in.
 */
const FIND_ACCOUNT = `SELECT a.id, a.upstream_account_id AS "upstreamAccountId",
    json_build_object('id', c.id, 'merchantId', c.merchant_id, 'userId', c.user_id, 'kind', c.kind,
      'status', c.status, 'upstreamConsentId', c.upstream_consent_id, 'institutionId', c.institution_id,
      'authorizedAt', c.authorized_at, 'tokenCiphertext', c.token_ciphertext, 'tokenKeyId', c.token_key_id,
      'vrpControlParameters', c.vrp_control_parameters, 'vrpInitiationDetails', c.vrp_initiation_details,
      'merchant', json_build_object('subApplicationId', m.sub_application_id)) AS consent
  FROM accounts a
  JOIN consents c ON c.id = a.consent_id AND c.merchant_id = a.merchant_id
  JOIN merchants m ON m.id = a.merchant_id
  WHERE a.id = $1::uuid AND a.merchant_id = $2::uuid AND ($3::uuid IS NULL OR a.user_id = $3::uuid)`;

/**
 * What a sync stores beside the bank's record that the real-time endpoint never gives (the enrichment the
 * sync asks for, the mutability the paged endpoint states), for the records of one account by dedupe key.
 */
const SYNCED_FIELDS = `SELECT dedupe_key AS "dedupeKey", raw->'enrichment' AS enrichment,
    raw->>'transactionMutability' AS "transactionMutability"
  FROM transactions
  WHERE account_id = $1::uuid AND merchant_id = $2::uuid AND dedupe_key = ANY($3::text[])`;

const SYNCED_FIELDS_ROW = row({
  dedupeKey: 'string',
  enrichment: 'json',
  transactionMutability: 'string?',
});

export type SyncedFields = RowOf<typeof SYNCED_FIELDS_ROW>;

export const FINANCIAL_DATA_SQL = {
  findAccount: sqlStatement('accounts.find-for-call', FIND_ACCOUNT, {
    id: 'string',
    upstreamAccountId: 'string',
    /** Built in the statement (json_build_object): its timestamp as JSON text. */
    consent: column<Omit<ConsentForCall, 'authorizedAt'> & { authorizedAt: string | null }>('json'),
  }),
  syncedFields: sqlStatement('transactions.synced-fields', SYNCED_FIELDS, SYNCED_FIELDS_ROW),
};

@Injectable()
export class FinancialDataRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly database: DatabasePool,
  ) {}

  /** The merchant's (and, for a session, the user's) account with its consent, or null: another tenant's reads as missing. */
  async findAccount(
    merchantId: MerchantId,
    accountId: string,
    userId?: string,
  ): Promise<AccountForCall | null> {
    const [row] = await this.database.rows({
      ...FINANCIAL_DATA_SQL.findAccount,
      values: [accountId, merchantId, userId ?? null],
    });
    if (!row) return null;
    const { authorizedAt } = row.consent;
    return {
      ...row,
      consent: { ...row.consent, authorizedAt: authorizedAt === null ? null : new Date(authorizedAt) },
    };
  }

  /** What the stored records of `dedupeKeys` carry that only a sync adds; records never synced are absent. */
  async syncedFields(
    merchantId: MerchantId,
    accountId: string,
    dedupeKeys: string[],
  ): Promise<SyncedFields[]> {
    if (dedupeKeys.length === 0) return [];
    return this.database.rows({
      ...FINANCIAL_DATA_SQL.syncedFields,
      values: [accountId, merchantId, dedupeKeys],
    });
  }

  findConsent(
    merchantId: MerchantId,
    consentId: string,
    kinds: readonly ConsentKind[],
    userId?: string,
  ): Promise<ConsentForCall | null> {
    return this.prisma.consent.findFirst({
      where: { id: consentId, merchantId, kind: { in: [...kinds] }, ...(userId ? { userId } : {}) },
      select: CONSENT_FOR_CALL,
    });
  }

  /** The countries of a cached institution, or null when the cache does not know it. */
  async institutionCountries(institutionId: string): Promise<string[] | null> {
    const row = await this.prisma.institution.findUnique({
      where: { id: institutionId },
      select: { countries: true },
    });
    return row && row.countries.length > 0 ? row.countries : null;
  }
}
