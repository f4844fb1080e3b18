import { describe, expect, it } from 'vitest';
import { Prisma } from '#libs/database';
import type { StoredAccount } from './account.repository.js';
import { toAccountView } from './accounts.service.js';

const account = (syncStatus: StoredAccount['syncStatus']): StoredAccount =>
  ({
    id: 'a',
    merchantId: 'm',
    userId: 'u',
    consentId: 'c',
    institutionId: 'i',
    upstreamAccountId: 'x',
    type: 'CURRENT',
    usageType: null,
    currency: 'GBP',
    nickname: null,
    description: null,
    details: null,
    accountNames: null,
    accountIdentifications: null,
    raw: {},
    syncStatus,
    lastSyncedAt: null,
    nextSyncAt: null,
    createdAt: new Date('2026-11-20T10:00:00Z'),
    updatedAt: new Date('2026-11-20T10:00:00Z'),
    balances: [
      {
        id: 'b',
        merchantId: 'm',
        accountId: 'a',
        type: 'EXPECTED',
        amount: new Prisma.Decimal('12.5'),
        currency: 'GBP',
        dateTime: null,
        creditLineIncluded: null,
        creditLines: null,
      },
    ],
  }) as unknown as StoredAccount;

describe('toAccountView', () => {
  it.each(['PENDING', 'SYNCING', 'SYNCED', 'FAILED', 'STOPPED'] as const)(
    'writes the sync status %s in lower case, as the consent summary does',
    (status) => {
      expect(toAccountView(account(status)).sync.status).toBe(status.toLowerCase());
    },
  );

  it('writes money as a decimal string', () => {
    expect(toAccountView(account('SYNCED')).balances[0].balance).toEqual({
      amount: '12.50',
      currency: 'GBP',
    });
  });
});
