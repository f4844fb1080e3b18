import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MerchantId, tenantNamedByOperator } from '#libs/context';
import { DatabasePool, PrismaService, ReadCache, ReplicaReads } from '#libs/database';
import { AccountSyncStateRepository } from '#libs/domain/accounts';
import { ConsentStateRepository, ConsentStatus } from '#libs/domain/consents';
import { MerchantEventRepository } from '#libs/domain/events';
import { FIRST_SYNC_ASKED_WITHIN_MS } from '#libs/domain/sync-runs';
import { Metrics } from '#libs/observability';
import { createRedisClient } from '#libs/redis';
import { captureLogger, deleteMerchant, testConfig, uniqueName } from './kit/index.js';

/** The state owner against real Postgres: every write is guarded by the status it may start from. */
describe('ConsentStateRepository: guarded status writes', () => {
  const config = testConfig();
  const database = new DatabasePool(config);
  const prisma = new PrismaService(database);
  const cache = new ReadCache(config);
  const redis = createRedisClient(config.redis, { maxRetriesPerRequest: 2 });
  const reads = new ReplicaReads(config, captureLogger().logger, redis, database, new Metrics('test'));
  const state = new ConsentStateRepository(
    prisma,
    new MerchantEventRepository(database, reads),
    cache,
    new AccountSyncStateRepository(database, cache),
  );
  let merchantId: MerchantId;
  let userId: string;

  beforeAll(async () => {
    merchantId = tenantNamedByOperator(
      { kind: 'operator' },
      (await prisma.merchant.create({ data: { name: uniqueName('merchant') } })).id,
    );
    const reference = uniqueName('user');
    userId = (await prisma.user.create({ data: { merchantId, reference, applicationUserId: reference } })).id;
  });
  afterAll(async () => {
    await deleteMerchant(database, merchantId);
    await prisma.$disconnect();
    redis.disconnect();
    await database.close();
  });

  async function consentIn(
    status: ConsentStatus,
    accountStatus: 'SYNCED' | 'STOPPED' | 'SYNCING' = 'SYNCED',
  ) {
    const consent = await prisma.consent.create({
      data: {
        merchantId,
        userId,
        kind: 'ACCOUNT',
        upstreamConsentId: uniqueName('consent'),
        institutionId: 'sandbox-redirect',
        status,
        tokenCiphertext: 'sealed',
        tokenKeyId: 'k1',
      },
    });
    await prisma.account.create({
      data: {
        merchantId,
        userId,
        consentId: consent.id,
        upstreamAccountId: uniqueName('account'),
        institutionId: 'sandbox-redirect',
        syncStatus: accountStatus,
        nextSyncAt: accountStatus === 'STOPPED' ? null : new Date(Date.now() + 3_600_000),
      },
    });
    return consent.id;
  }
  const row = (id: string) =>
    prisma.consent.findUniqueOrThrow({ where: { id }, include: { accounts: true } });
  /** The bank said the consent is gone, as the sync and the expiry scan report it. */
  const markGone = (
    id: string,
    status: typeof ConsentStatus.Expired | typeof ConsentStatus.Revoked,
    message: string,
  ) =>
    state.markGone(merchantId, {
      consentId: id,
      status,
      code: status === ConsentStatus.Expired ? 'CONSENT_EXPIRED' : 'CONSENT_REVOKED',
      message,
    });

  it('marks an authorised consent gone and stops its accounts’ sync', async () => {
    const id = await consentIn(ConsentStatus.Authorised);
    const result = await markGone(id, ConsentStatus.Expired, 'gone');
    expect(result).toEqual({ applied: true });
    const after = await row(id);
    expect(after).toMatchObject({ status: 'EXPIRED', lastErrorCode: 'CONSENT_EXPIRED', tokenKeyId: 'k1' });
    expect(after.accounts.map((a) => [a.syncStatus, a.nextSyncAt])).toEqual([['STOPPED', null]]);
  });

  it('changes nothing when the consent is no longer where the transition starts, and says what it found', async () => {
    const id = await consentIn(ConsentStatus.AwaitingReauthorisation);
    const gone = await markGone(id, ConsentStatus.Expired, 'late');
    expect(gone).toEqual({ applied: false, found: 'AWAITING_RE_AUTHORIZATION' });
    const after = await row(id);
    expect(after).toMatchObject({ status: 'AWAITING_RE_AUTHORIZATION', lastErrorCode: null });
    expect(after.accounts[0].syncStatus).toBe('SYNCED');

    const revoked = await consentIn(ConsentStatus.Revoked);
    expect(
      await state.markAuthorised(merchantId, revoked, {
        tokenCiphertext: 'new',
        tokenKeyId: 'k2',
        authorizedAt: new Date(),
        expiresAt: null,
        featureScope: [],
        institutionConsentId: null,
      }),
    ).toEqual({ applied: false, found: 'REVOKED' });
    expect((await row(revoked)).tokenKeyId).toBe('k1');
  });

  it('answers found: null for a consent of another merchant, exactly as for a missing one', async () => {
    const id = await consentIn(ConsentStatus.Authorised);
    const other = (await prisma.merchant.create({ data: { name: uniqueName('other') } })).id;
    try {
      expect(await state.markRevoked(tenantNamedByOperator({ kind: 'operator' }, other), id)).toEqual({
        applied: false,
        found: null,
      });
      expect((await row(id)).status).toBe('AUTHORIZED');
    } finally {
      await deleteMerchant(database, other);
    }
  });

  it('authorising makes the stopped accounts due for a sync, leaving one being synced alone', async () => {
    const id = await consentIn(ConsentStatus.AwaitingReauthorisation, 'STOPPED');
    const syncing = await prisma.account.create({
      data: {
        merchantId,
        userId,
        consentId: id,
        upstreamAccountId: uniqueName('account'),
        institutionId: 'sandbox-redirect',
        syncStatus: 'SYNCING',
      },
    });
    const now = new Date();
    const result = await state.markAuthorised(
      merchantId,
      id,
      {
        tokenCiphertext: 'new',
        tokenKeyId: 'k2',
        authorizedAt: now,
        expiresAt: null,
        featureScope: ['ACCOUNTS'],
        institutionConsentId: null,
      },
      now,
    );
    expect(result).toEqual({ applied: true });
    const after = await row(id);
    expect(after).toMatchObject({ status: 'AUTHORIZED', tokenKeyId: 'k2', stateNonce: null });
    const byId = new Map(after.accounts.map((a) => [a.id, a]));
    expect(byId.get(syncing.id)?.syncStatus).toBe('SYNCING');
    const restarted = after.accounts.filter((a) => a.id !== syncing.id);
    // Due for the dispatcher a little later: the authorisation asks for their first syncs itself.
    expect(restarted.map((a) => [a.syncStatus, a.nextSyncAt?.getTime()])).toEqual([
      ['PENDING', now.getTime() + FIRST_SYNC_ASKED_WITHIN_MS],
    ]);
  });

  it('records one merchant event per status change, in its transaction, and none for a write that did not land', async () => {
    const eventsOf = async (consentId: string) =>
      (await prisma.merchantEvent.findMany({ where: { merchantId }, orderBy: { seq: 'asc' } }))
        .filter((e) => (e.data as { consentId?: string }).consentId === consentId)
        .map((e) => [e.type, e.userId, (e.data as { status: string }).status]);
    const id = await consentIn(ConsentStatus.Authorised);
    await markGone(id, ConsentStatus.Revoked, 'revoked at the bank');
    await markGone(id, ConsentStatus.Revoked, 'told twice');
    await state.markRevoked(merchantId, id);
    expect(await eventsOf(id)).toEqual([['CONSENT_REVOKED', userId, 'REVOKED']]);

    const pending = await consentIn(ConsentStatus.AwaitingAuthorisation);
    await state.markFailed(merchantId, pending, ConsentStatus.Rejected, 'REJECTED', 'the user said no');
    expect(await eventsOf(pending)).toEqual([['CONSENT_FAILED', userId, 'REJECTED']]);
  });

  it('refuses, before touching the database, a write the transition table does not allow', async () => {
    const id = await consentIn(ConsentStatus.Authorised);
    await expect(state.markFailed(merchantId, id, ConsentStatus.Authorised, 'X', null)).rejects.toThrow(
      /cannot end in AUTHORIZED/,
    );
    expect((await row(id)).status).toBe('AUTHORIZED');
  });
});
