import { describe, expect, it } from 'vitest';
import { Prisma } from '#libs/database';
import type { StoredAccount } from './account.repository.js';
import { toAccountView } from './accounts.service.js';
import { amountToApi, decimalFromUpstream, decimalTextToApi, decimalToApi } from './money.js';

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
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    balances: [
      {
        id: 'b',
        merchantId: 'm',
        accountId: 'a',
        type: 'EXPECTED',
        amount: '12.5000',
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

describe('money as the API writes it', () => {
  it('writes decimal text and JSON numbers exactly as the Decimal path does, without one', () => {
    for (const text of ['12.5000', '12.3450', '-3.0000', '7', '0.0000', '1234567890123.4567', '-0.0100']) {
      expect(decimalTextToApi(text)).toBe(decimalToApi(new Prisma.Decimal(text)));
    }
    for (const n of [12.5, 12.345, -3, 7, 0, -0.01, 0.1 + 0.2, 1e-7, 1e21, 123456789.12]) {
      expect(amountToApi(n)).toBe(decimalToApi(decimalFromUpstream(n)));
    }
  });
});
