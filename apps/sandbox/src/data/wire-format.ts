import { fromMinor, type Published } from '../core/index.js';
import { ukBankAccount } from './fixture-accounts.js';
import { generatedIdOf, type SandboxAccount } from './sandbox-account.js';
import type { SandboxBeneficiary, SandboxStatement, SandboxTransaction } from './sandbox-records.js';
import { transactionHash } from './seeded-random.js';

/* The upstream's wire forms of the fixture records: amounts stay integer minor units until here (core/money). */

/** Bits of a transaction's serialised variant: which enrichment parts it carries, or the real-time shape. */
export const WITH_CATEGORISATION = 1;
export const WITH_MERCHANT = 2;
export const REAL_TIME = 4;

/** Statement dates print without milliseconds, as the upstream's examples do. */
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const iso = (ms: number) => new Date(ms).toISOString();

export function cleansedDescription(tx: SandboxTransaction): string {
  if (tx.merchant) return tx.merchant.name;
  if (tx.counterparty)
    return tx.amountMinor < 0 ? `Payment to ${tx.counterparty.name}` : `Payment from ${tx.counterparty.name}`;
  return tx.description;
}

export function transactionWire(
  tx: SandboxTransaction,
  account: SandboxAccount,
  institutionId: string,
  variant: number,
): Published<'Transaction'> {
  const date = iso(tx.timeMs);
  const amount = { amount: fromMinor(tx.amountMinor, account.currency), currency: account.currency };
  const realTime = (variant & REAL_TIME) !== 0;
  const party = tx.counterparty
    ? {
        name: tx.counterparty.name,
        accountIdentifications: ukBankAccount(tx.counterparty.sortCode, tx.counterparty.accountNumber),
      }
    : undefined;
  const wire: Published<'Transaction'> = {
    id: tx.id,
    date,
    bookingDateTime: date,
    valueDateTime: date,
    status: tx.status,
  };
  if (!realTime) {
    wire.amount = amount.amount;
    wire.currency = amount.currency;
  }
  wire.transactionAmount = amount;
  wire.reference = tx.reference;
  wire.description = tx.description;
  wire.transactionInformation = [tx.description];
  wire.isoBankTransactionCode = {
    domainCode: tx.kind.domain,
    familyCode: tx.kind.family,
    subFamilyCode: tx.kind.subFamily,
  };
  wire.proprietaryBankTransactionCode = { code: tx.kind.proprietary, issuer: institutionId };
  if (tx.balanceMinor !== undefined) {
    wire.balance = {
      type: 'CLOSING_AVAILABLE',
      balanceAmount: { amount: fromMinor(tx.balanceMinor, account.currency), currency: account.currency },
    };
  }
  if (party) wire[tx.amountMinor < 0 ? 'payeeDetails' : 'payerDetails'] = party;
  if (tx.merchant) wire.merchant = { merchantName: tx.merchant.name, merchantCategoryCode: tx.merchant.mcc };
  // Spec part 9: `with` adds categories and merchants; the transaction hash is always returned.
  if (!realTime) {
    const enrichment: Published<'Enrichment'> = {};
    if (variant & WITH_CATEGORISATION)
      enrichment.categorisation = { categories: [tx.category], source: 'MODEL' };
    enrichment.transactionHash = { hash: transactionHash(`${generatedIdOf(account)}:${tx.seq}`) };
    if (variant & WITH_MERCHANT) {
      enrichment.cleansedDescription = cleansedDescription(tx);
      if (tx.merchant)
        enrichment.merchant = { merchantName: tx.merchant.name, parentGroup: tx.merchant.parentGroup };
    }
    wire.enrichment = enrichment;
  }
  if (!realTime) {
    wire.transactionMutability = tx.status === 'BOOKED' ? 'Immutable' : 'Mutable';
  }
  return wire;
}

const BUSINESS_CATEGORIES: Record<string, string> = {
  groceries: 'supplies',
  eating_out: 'meals_and_entertainment',
  transport: 'travel',
  shopping: 'supplies',
  health: 'supplies',
  entertainment: 'subscriptions',
  bills: 'utilities',
  insurance: 'insurance',
  transfers: 'transfers',
  cash: 'cash_withdrawal',
  refund: 'refund',
  salary: 'revenue',
  interest: 'interest_income',
  savings: 'transfers',
  other: 'other',
};

/** A transaction as the categorisation results list it (Data Plus). */
export function categorisedWire(
  tx: SandboxTransaction,
  account: SandboxAccount,
  institutionId: string,
  categorisationType: 'consumer' | 'business',
): Record<string, unknown> {
  const category =
    categorisationType === 'business' ? (BUSINESS_CATEGORIES[tx.category] ?? 'other') : tx.category;
  const amount = { amount: fromMinor(tx.amountMinor, account.currency), currency: account.currency };
  const enrichment: Record<string, unknown> = {
    transactionHash: { hash: transactionHash(`${generatedIdOf(account)}:${tx.seq}`) },
    categorisation: { categories: [category] },
  };
  if (tx.merchant) {
    enrichment.merchant = {
      id: transactionHash(`merchant:${tx.merchant.name}`).slice(0, 32),
      name: tx.merchant.name,
    };
  }
  return {
    enrichment,
    recurrence: tx.kind.key === 'directDebit' || tx.kind.key === 'salary' ? 'recurring' : 'one-off',
    ...(tx.merchant ? { merchant: { merchantCategoryCode: tx.merchant.mcc, name: tx.merchant.name } } : {}),
    id: tx.id,
    date: iso(tx.timeMs),
    bookingDateTime: iso(tx.timeMs),
    description: tx.description,
    transactionAmount: amount,
    amount: amount.amount,
    currency: amount.currency,
    status: tx.status,
    reference: tx.reference,
    proprietaryBankTransactionCode: { code: tx.kind.proprietary, issuer: institutionId },
    isoBankTransactionCode: {
      domainCode: tx.kind.domain,
      familyCode: tx.kind.family,
      subFamilyCode: tx.kind.subFamily,
    },
  };
}

export function balancesWire(account: SandboxAccount, nowMs: number): Published<'AccountBalance'>[] {
  const dateTime = iso(nowMs);
  // A credit card reports its limit as a credit line included in the available balance.
  const creditLines =
    account.creditLimitMinor !== undefined
      ? [
          {
            type: 'PRE_AGREED',
            creditLineAmount: {
              amount: fromMinor(account.creditLimitMinor, account.currency),
              currency: account.currency,
            },
          },
        ]
      : [];
  const entry = (type: string, minor: number, withCredit = false) => ({
    type,
    dateTime,
    balanceAmount: { amount: fromMinor(minor, account.currency), currency: account.currency },
    creditLineIncluded: withCredit && creditLines.length > 0,
    creditLines: withCredit ? creditLines : [],
  });
  const { bookedMinor, pendingMinor } = account.ledger.balances();
  const available = bookedMinor + pendingMinor;
  return [
    entry('CLOSING_AVAILABLE', bookedMinor),
    entry('INTERIM_BOOKED', bookedMinor),
    entry('INTERIM_AVAILABLE', available + (account.creditLimitMinor ?? 0), true),
  ];
}

export function accountWire(account: SandboxAccount, nowMs: number): Published<'Account'> {
  const { bookedMinor, pendingMinor } = account.ledger.balances();
  return {
    id: account.id,
    type: account.type,
    description: account.description,
    balance: fromMinor(bookedMinor + pendingMinor, account.currency),
    currency: account.currency,
    usageType: 'PERSONAL',
    accountType: account.kind,
    nickname: account.nickname,
    accountNames: [{ name: account.holderName }],
    accountIdentifications: account.identifications,
    accountBalances: balancesWire(account, nowMs),
  };
}

export function statementWire(statement: SandboxStatement): Published<'AccountStatement'> {
  return {
    id: statement.id,
    startDateTime: isoSeconds(statement.startMs),
    endDateTime: isoSeconds(statement.endMs),
    creationDateTime: isoSeconds(statement.creationMs),
  };
}

export function beneficiaryWire(beneficiary: SandboxBeneficiary): Published<'Beneficiary'> {
  return beneficiary;
}
