import { describe, expect, it } from 'vitest';
import { Prisma } from '#libs/database';
import { seededRandom } from '#libs/testing';
import type { StoredAccount } from './account.repository.js';
import { toAccountView } from './accounts.service.js';
import {
  amountTextToApi,
  amountToApi,
  decimalFromUpstream,
  decimalTextToApi,
  decimalToApi,
} from './money.js';

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

  it('writes an amount from its JSON text exactly as from the number it reads as', () => {
    const texts = [
      '0',
      '-0',
      '0.0',
      '-0.00',
      '7',
      '-35.52',
      '12.50',
      '12.3450',
      '0.000001',
      '0.0000001',
      '0.0000010',
      '1e-7',
      '1E21',
      '-2.5e3',
      '999999999999999',
      '9999999999999999',
      '123456789012345.6',
      '12345678901234.56',
      '100000000000000000000',
      '999999999999999999999',
      '1000000000000000000000',
      '0.1',
      '0.30000000000000004',
      '5e-324',
      '1.7976931348623157e308',
      '123456789.12',
    ];
    // And many more: random digits around the 15-digit and 1e-6 / 1e21 edges.
    const { next } = seededRandom(7);
    const digits = (n: number) => Array.from({ length: n }, () => Math.floor(next() * 10)).join('');
    for (let i = 0; i < 20000; i += 1) {
      const integer = next() < 0.3 ? '0' : `${1 + Math.floor(next() * 9)}${digits(Math.floor(next() * 22))}`;
      const fraction =
        next() < 0.3 ? '' : `.${'0'.repeat(Math.floor(next() * 8))}${digits(Math.floor(next() * 12))}`;
      if (fraction === '.') continue;
      texts.push(`${next() < 0.5 ? '-' : ''}${integer}${fraction}`);
    }
    for (const text of texts) expect(amountTextToApi(text), text).toBe(amountToApi(Number(text)));
  });
});
