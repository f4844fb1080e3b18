import { Injectable } from '@nestjs/common';
import { assertActsFor, type TenantCaller, tenantOf } from '#libs/context';
import { DomainError, ErrorCode } from '#libs/errors';
import { AccountRepository, type StoredAccount } from './account.repository.js';
import { decimalTextToApi } from './money.js';
import { type AllowanceView, allowanceView } from './unattended-read.js';
import type { StoredAllowance } from './unattended-reads.repository.js';

export interface AccountView {
  id: string;
  userId: string;
  consentId: string;
  institutionId: string;
  upstreamAccountId: string;
  type: string | null;
  usageType: string | null;
  currency: string | null;
  nickname: string | null;
  description: string | null;
  accountNames: unknown;
  accountIdentifications: unknown;
  balances: {
    type: string;
    balance: { amount: string; currency: string };
    dateTime: string | null;
    creditLineIncluded: boolean | null;
  }[];
  sync: {
    status: SyncStatusView;
    lastSyncedAt: string | null;
    nextSyncAt: string | null;
    lastError: string | null;
    failingSince: string | null;
    dailyLimitUntil: string | null;
    unattendedReads: AllowanceView;
  };
  createdAt: string;
  updatedAt: string;
}

/** An account's sync state as the API writes it: lower case, like every sync status of the merchant API. */
export type SyncStatusView = Lowercase<StoredAccount['syncStatus']>;

export const syncStatusView = (status: StoredAccount['syncStatus']): SyncStatusView =>
  status.toLowerCase() as SyncStatusView;

/** The account's allowance of reads without the user, from its row. */
export const storedAllowance = (a: StoredAccount): StoredAllowance => ({
  day: a.unattendedReadsDay,
  reads: a.unattendedReads,
  perDay: a.unattendedReadsPerDay,
  dailyLimitUntil: a.dailyLimitUntil,
});

export function toAccountView(a: StoredAccount): AccountView {
  return {
    id: a.id,
    userId: a.userId,
    consentId: a.consentId,
    institutionId: a.institutionId,
    upstreamAccountId: a.upstreamAccountId,
    type: a.type,
    usageType: a.usageType,
    currency: a.currency,
    nickname: a.nickname,
    description: a.description,
    accountNames: a.accountNames ?? [],
    accountIdentifications: a.accountIdentifications ?? [],
    balances: a.balances.map((b) => ({
      type: b.type,
      balance: { amount: decimalTextToApi(b.amount), currency: b.currency },
      dateTime: b.dateTime,
      creditLineIncluded: b.creditLineIncluded,
    })),
    sync: {
      status: syncStatusView(a.syncStatus),
      lastSyncedAt: a.lastSyncedAt,
      nextSyncAt: a.nextSyncAt,
      lastError: a.lastSyncError,
      failingSince: a.syncFailingSince,
      dailyLimitUntil: a.dailyLimitUntil,
      unattendedReads: allowanceView(storedAllowance(a)),
    },
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

const userNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'User not found.');
const notFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Account not found.');

@Injectable()
export class AccountsService {
  constructor(private readonly accounts: AccountRepository) {}

  async get(caller: TenantCaller, accountId: string): Promise<AccountView> {
    const found = await this.accounts.findOne(tenantOf(caller), accountId, caller.userId);
    if (!found) throw notFound();
    return toAccountView(found);
  }

  /** A session may list only its own user's accounts; any other user id reads as missing. */
  async listForUser(caller: TenantCaller, userId: string, limit: number, afterId?: string) {
    assertActsFor(caller, userId);
    const page = await this.accounts.listForUser(tenantOf(caller), userId, limit, afterId);
    if (!page) throw userNotFound();
    const { rows, more } = page;
    return { accounts: rows.map(toAccountView), nextAfterId: more ? rows.at(-1)!.id : undefined };
  }
}
