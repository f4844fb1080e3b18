import { randomUUID } from 'node:crypto';
import type { AppConfig } from '#libs/config';
import { tenantNamedByOperator } from '#libs/context';
import { SecretBox } from '#libs/crypto';
import type { DatabasePool, PrismaService } from '#libs/database';
import { mintSessionToken, signSessionToken, UserRepository } from '#libs/domain/users';
import { uuidV7 } from '#libs/ids';

/** A name no other test (or earlier run against the same database) uses. */
export function uniqueName(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

export interface CreatedMerchant {
  merchant: { id: string; name: string; subApplicationId: string | null; frontendOrigins: string[] };
  apiKey: { id: string; key: string; prefix: string };
}

/** On-boards a merchant through the operator API, exactly as an operator would. */
export async function createMerchant(
  api: { url: string; config: AppConfig },
  body: { name?: string; subApplicationId?: string; frontendOrigins?: string[] } = {},
): Promise<CreatedMerchant> {
  const response = await fetch(`${api.url}/admin/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.config.api.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: uniqueName('merchant'), ...body }),
  });
  if (response.status !== 201) throw new Error(`createMerchant: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: CreatedMerchant }).data;
}

/**
 * Removes a merchant and all it owns, as a test cleans up (the product never deletes one). It holds the
 * outbox relay's lock meanwhile: a relay numbering the merchant's events (their rows locked in order)
 * while the cascade deletes them (in another order) is a deadlock, which Postgres ends by failing one.
 */
export async function deleteMerchant(db: DatabasePool, merchantId: string): Promise<void> {
  await db.transaction(async (client) => {
    await client.query('SELECT 1 FROM outbox_relay_state WHERE id = 1 FOR UPDATE');
    await client.query('DELETE FROM merchants WHERE id = $1', [merchantId]);
  });
}

/** A user row of a merchant, through the repository the app itself uses. */
export async function createUser(users: UserRepository, merchantId: string, reference = uniqueName('user')) {
  return users.create(tenantNamedByOperator({ kind: 'operator' }, merchantId), { reference });
}

/** A session token as a merchant backend would get it; `expiresInSeconds` may be negative (expired). */
export function sessionToken(
  config: AppConfig,
  subject: { merchantId: string; userId: string },
  expiresInSeconds = config.crypto.sessionTtlSeconds,
): string {
  if (expiresInSeconds > 0)
    return mintSessionToken(config.crypto.signingSecret, subject, expiresInSeconds).token;
  return signSessionToken(config.crypto.signingSecret, {
    ...subject,
    expiresAt: Math.floor(Date.now() / 1000) + expiresInSeconds,
  });
}

/** A consent row of a user straight in the database, for tests that only need one to exist (e.g. erasure). */
export async function createConsentRow(
  prisma: PrismaService,
  user: { id: string; merchantId: string },
  institutionId = 'sandbox-redirect',
  status = 'AUTHORIZED',
) {
  return prisma.consent.create({
    data: {
      merchantId: user.merchantId,
      userId: user.id,
      kind: 'ACCOUNT',
      upstreamConsentId: uniqueName('consent'),
      institutionId,
      status,
    },
  });
}

/** What every row of a createConsentRows batch shares. */
export interface ConsentRowsSpec {
  count: number;
  status: string;
  kind?: 'ACCOUNT' | 'VRP_SWEEPING';
  flow?: 'REDIRECT' | 'EMBEDDED';
  expiresAt: Date | null;
  /** Set: consent.expiring went out already for this expiry. */
  expiringNotifiedAt?: Date | null;
}

/**
 * `count` alike consent rows of a user in one statement, their ids in id order: the lifecycle scans' tests
 * need many rows (past a batch, sharing an expiry), not the bank behind them.
 */
export async function createConsentRows(
  prisma: PrismaService,
  user: { id: string; merchantId: string },
  spec: ConsentRowsSpec,
): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    INSERT INTO consents (id, merchant_id, user_id, kind, flow, upstream_consent_id, institution_id, status,
      expires_at, expiring_notified_at, updated_at)
    SELECT gen_random_uuid(), ${user.merchantId}::uuid, ${user.id}::uuid,
      ${spec.kind ?? 'ACCOUNT'}::consent_kind, ${spec.flow ?? 'EMBEDDED'}::consent_flow,
      'rows-' || gen_random_uuid(), 'sandbox-embedded', ${spec.status}, ${spec.expiresAt}::timestamptz,
      ${spec.expiringNotifiedAt ?? null}::timestamptz, now()
    FROM generate_series(1, ${spec.count}) AS n
    RETURNING id`;
  return rows.map((r) => r.id).sort();
}

// ---- financial data and VRP (libs/domain/financial-data tests) --------------------------------------

/**
 * A local sweeping VRP consent for one the upstream already authorised (no create route exists yet): the
 * token is sealed exactly as the app seals consent tokens (SecretBox with the app's keys, the row id as
 * context), so the app reads it like any stored consent.
 */
export async function createVrpConsentRow(
  prisma: PrismaService,
  config: AppConfig,
  user: { id: string; merchantId: string },
  upstream: {
    consentId: string;
    consentToken: string;
    institutionId?: string;
    status?: string;
    controlParameters?: unknown;
    initiationDetails?: unknown;
  },
) {
  const id = randomUUID();
  const sealed = new SecretBox(config.crypto.encryptionKeys).seal(upstream.consentToken, id);
  return prisma.consent.create({
    data: {
      id,
      merchantId: user.merchantId,
      userId: user.id,
      kind: 'VRP_SWEEPING',
      upstreamConsentId: upstream.consentId,
      institutionId: upstream.institutionId ?? 'sandbox-payments',
      status: upstream.status ?? 'AUTHORIZED',
      authorizedAt: new Date(),
      tokenCiphertext: sealed.ciphertext,
      tokenKeyId: sealed.keyId,
      ...(upstream.controlParameters !== undefined
        ? { vrpControlParameters: upstream.controlParameters as object }
        : {}),
      ...(upstream.initiationDetails !== undefined
        ? { vrpInitiationDetails: upstream.initiationDetails as object }
        : {}),
    },
  });
}

// ---- sync (libs/domain/sync tests) ------------------------------------------------------------------

/**
 * `count` accounts of one consent, due for a sync at `nextSyncAt`, in one statement: the dispatcher's
 * tests need many rows, not the upstream behind them.
 */
export async function createDueAccounts(
  prisma: PrismaService,
  consent: { id: string; merchantId: string; userId: string; institutionId: string },
  count: number,
  nextSyncAt = new Date(Date.now() - 60_000),
): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    INSERT INTO accounts (id, merchant_id, user_id, consent_id, upstream_account_id, institution_id,
      next_sync_at, updated_at)
    SELECT gen_random_uuid(), ${consent.merchantId}::uuid, ${consent.userId}::uuid, ${consent.id}::uuid,
      'acc-' || gen_random_uuid(), ${consent.institutionId}, ${nextSyncAt}, now()
    FROM generate_series(1, ${count}) AS n
    RETURNING id`;
  return rows.map((r) => r.id);
}

/**
 * `count` ended runs of an account, one a second apart and oldest first, in one statement: for tests of
 * the sync history, which need more runs than a page, not the syncs behind them.
 */
export async function createEndedSyncRuns(
  prisma: PrismaService,
  account: { id: string; merchantId: string },
  count: number,
): Promise<string[]> {
  const start = Date.now() - count * 1000;
  const ids = Array.from({ length: count }, (_, i) => uuidV7(start + i * 1000));
  await prisma.$executeRaw`
    INSERT INTO sync_runs (id, merchant_id, account_id, trigger, status, queued_at, finished_at, updated_at)
    SELECT id, ${account.merchantId}::uuid, ${account.id}::uuid, 'SCHEDULED'::sync_trigger,
      'SUCCEEDED'::sync_run_status,
      to_timestamp(${start / 1000}::float8 + n - 1), to_timestamp(${start / 1000}::float8 + n - 1), now()
    FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS r(id, n)`;
  return ids;
}

// ---- payments (operator and poll tests) ---------------------------------------------------------------

/** A payee the sandbox's banks accept (sort code and account number), for every payment test. */
export const testPayee = () => ({
  name: 'Jane Saver',
  accountIdentifications: [
    { type: 'SORT_CODE', identification: '123456' },
    { type: 'ACCOUNT_NUMBER', identification: '12345678' },
  ],
});

/**
 * A payment row of a consent straight in the database, in the state a test needs: `nextStatusCheckAt`
 * null with a non-final status is a payment parked for a person.
 */
export async function createPaymentRow(
  prisma: PrismaService,
  consent: { id: string; merchantId: string },
  state: {
    status?: string;
    nextStatusCheckAt?: Date | null;
    kind?: 'SINGLE' | 'VRP';
    amount?: string;
    pollStopped?: string;
    reference?: string;
  } = {},
) {
  return prisma.payment.create({
    data: {
      merchantId: consent.merchantId,
      consentId: consent.id,
      kind: state.kind ?? 'SINGLE',
      paymentIdempotencyId: randomUUID().replace(/-/g, ''),
      status: state.status ?? 'PENDING',
      amount: state.amount ?? '10.00',
      currency: 'GBP',
      payee: testPayee(),
      nextStatusCheckAt: state.nextStatusCheckAt === undefined ? new Date() : state.nextStatusCheckAt,
      ...(state.pollStopped ? { statusDetails: { pollStopped: state.pollStopped } } : {}),
      ...(state.reference ? { reference: state.reference } : {}),
    },
  });
}

/**
 * A pending single payment of `user`, under its spent payment consent, that the bank knows as
 * `upstreamPaymentId`: what an event from the bank about that payment finds here.
 */
export async function createBankPaymentRow(
  prisma: PrismaService,
  user: { id: string; merchantId: string },
  upstreamPaymentId: string,
) {
  const consent = await prisma.consent.create({
    data: {
      merchantId: user.merchantId,
      userId: user.id,
      kind: 'PAYMENT',
      upstreamConsentId: uniqueName('payment-consent'),
      institutionId: 'sandbox-payments',
      status: 'CONSUMED',
    },
  });
  return prisma.payment.create({
    data: {
      merchantId: user.merchantId,
      consentId: consent.id,
      kind: 'SINGLE',
      upstreamPaymentId,
      paymentIdempotencyId: uniqueName('p').slice(0, 35),
      status: 'PENDING',
      amount: '12.34',
      currency: 'GBP',
      payee: { name: 'Payee' },
    },
  });
}
