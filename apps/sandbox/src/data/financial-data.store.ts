import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ResetRegistry, SandboxClock, SandboxError, type ConsentRecord } from '../core/index.js';
import {
  DAY_MS,
  KINDS,
  generateAccounts,
  type SandboxAccount,
  type SandboxTransaction,
  type TransactionStatus,
} from './fixture-generator.js';
import { CursorCodec } from './paging.js';
import { stableUuid } from './seeded-random.js';

/** Generated data kept per user and institution; sets the control API never changed may be evicted. */
const MAX_CACHED_SETS = 64;

interface AccountSet {
  institutionId: string;
  accounts: SandboxAccount[];
  /** Changed through the control API: kept until a reset, never evicted. */
  modified: boolean;
}

export interface CategorisationRecord {
  id: string;
  applicationId: string;
  seed: string;
  accountId: string;
  categorisationType: 'consumer' | 'business';
  countryCode: string;
  fromMs?: number;
  beforeMs?: number;
  createdAt: string;
}

export interface NewTransactionInput {
  amount: number;
  description?: string;
  reference?: string;
  status?: TransactionStatus;
  date?: string;
  merchantName?: string;
  category?: string;
  id?: string;
}

export interface TransactionChange {
  amount?: number;
  description?: string;
  reference?: string;
  status?: TransactionStatus;
  date?: string;
  id?: string;
}

/** Integer minor units from a two-decimal JSON number, without float drift (12.34 → 1234). */
export const toMinor = (amount: number): number => Math.round(amount * 100);

/**
 * The financial data behind data consents. Accounts are generated once per (application, user,
 * institution) and cached; the control API's changes live here in memory until a reset or restart.
 */
@Injectable()
export class FinancialDataStore {
  private sets = new Map<string, AccountSet>();
  private categorisations = new Map<string, CategorisationRecord>();
  readonly cursors: CursorCodec;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: SandboxClock,
    resets: ResetRegistry,
  ) {
    this.cursors = new CursorCodec(config.sandbox.adminToken);
    resets.register(() => {
      this.sets = new Map();
      this.categorisations = new Map();
    });
  }

  /**
   * The seed of a user's data. The applicationUserId is preferred over the user uuid: a merchant names its
   * users by applicationUserId, and the uuid is new whenever the sandbox creates the user again (a fresh
   * run, a reset), yet the same user must see the same data.
   */
  static seedOf(
    consent: Pick<ConsentRecord, 'applicationId' | 'applicationUserId' | 'userUuid' | 'institutionId'>,
  ) {
    const user = consent.applicationUserId ? `aui:${consent.applicationUserId}` : `uuid:${consent.userUuid}`;
    return `${consent.applicationId}|${user}|${consent.institutionId}`;
  }

  accountsFor(consent: ConsentRecord): SandboxAccount[] {
    return this.setFor(consent).accounts;
  }

  account(consent: ConsentRecord, accountId: string): SandboxAccount {
    const account = this.accountsFor(consent).find((a) => a.id === accountId);
    if (!account) throw SandboxError.notFound(`Account ${accountId} was not found for this consent`);
    return account;
  }

  institutionOf(consent: ConsentRecord): string {
    return this.setFor(consent).institutionId;
  }

  // ---- control API changes

  addTransaction(consent: ConsentRecord, accountId: string, input: NewTransactionInput): SandboxTransaction {
    const account = this.account(consent, accountId);
    const seq = account.nextAdminSeq++;
    const id = input.id ?? stableUuid(`${account.id}:admin:${seq}`);
    this.assertFreeId(account, id);
    const amountMinor = toMinor(input.amount);
    const merchant = input.merchantName
      ? {
          name: input.merchantName,
          descriptor: input.merchantName.toUpperCase(),
          parentGroup: input.merchantName,
          mcc: '5999',
          category: input.category ?? 'shopping',
          minMinor: 0,
          maxMinor: 0,
        }
      : undefined;
    const kind = merchant
      ? amountMinor < 0
        ? KINDS.card
        : KINDS.refund
      : amountMinor < 0
        ? KINDS.transferOut
        : KINDS.transferIn;
    const tx: SandboxTransaction = {
      id,
      seq,
      timeMs: input.date ? Date.parse(input.date) : this.clock.nowMs(),
      status: input.status ?? 'BOOKED',
      amountMinor,
      description:
        input.description ?? (merchant ? merchant.descriptor : amountMinor < 0 ? 'PAYMENT' : 'CREDIT'),
      reference: input.reference ?? `SBX ${seq}`,
      kind,
      category: input.category ?? merchant?.category ?? (amountMinor < 0 ? 'transfers' : 'income'),
      merchant,
      json: [],
    };
    account.transactions.push(tx);
    this.changed(consent, account);
    return tx;
  }

  changeTransaction(
    consent: ConsentRecord,
    accountId: string,
    transactionId: string,
    change: TransactionChange,
  ): { transaction: SandboxTransaction; previousId: string } {
    const account = this.account(consent, accountId);
    const tx = this.transaction(account, transactionId);
    const previousId = tx.id;
    if (change.status && change.status !== tx.status) {
      if (change.status === 'PENDING') {
        throw SandboxError.invalidProperty('status', 'A booked transaction cannot become pending again');
      }
      // Banks re-issue the id when a pending transaction books; clients must match on other fields.
      const id = change.id ?? stableUuid(`${tx.id}:booked`);
      this.assertFreeId(account, id);
      tx.id = id;
      tx.status = 'BOOKED';
    } else if (change.id && change.id !== tx.id) {
      this.assertFreeId(account, change.id);
      tx.id = change.id;
    }
    if (change.amount !== undefined) tx.amountMinor = toMinor(change.amount);
    if (change.description !== undefined) tx.description = change.description;
    if (change.reference !== undefined) tx.reference = change.reference;
    if (change.date !== undefined) tx.timeMs = Date.parse(change.date);
    this.changed(consent, account);
    return { transaction: tx, previousId };
  }

  deleteTransaction(consent: ConsentRecord, accountId: string, transactionId: string): void {
    const account = this.account(consent, accountId);
    const tx = this.transaction(account, transactionId);
    account.transactions = account.transactions.filter((t) => t !== tx);
    this.changed(consent, account);
  }

  transaction(account: SandboxAccount, transactionId: string): SandboxTransaction {
    const tx = account.transactions.find((t) => t.id === transactionId);
    if (!tx)
      throw SandboxError.notFound(`Transaction ${transactionId} was not found in account ${account.id}`);
    return tx;
  }

  // ---- Data Plus categorisations

  createCategorisation(input: Omit<CategorisationRecord, 'id' | 'createdAt'>): CategorisationRecord {
    const record: CategorisationRecord = {
      ...input,
      id: stableUuid(
        `${input.seed}:${input.accountId}:categorisation:${this.categorisations.size}:${this.clock.nowMs()}`,
      ),
      createdAt: this.clock.now().toISOString(),
    };
    this.categorisations.set(record.id, record);
    return record;
  }

  categorisation(consent: ConsentRecord, accountId: string, id: string): CategorisationRecord {
    const record = this.categorisations.get(id);
    if (
      !record ||
      record.applicationId !== consent.applicationId ||
      record.accountId !== accountId ||
      record.seed !== FinancialDataStore.seedOf(consent)
    ) {
      throw SandboxError.notFound(`Categorisation ${id} was not found`);
    }
    return record;
  }

  // ---- internals

  private setFor(consent: ConsentRecord): AccountSet {
    const seed = FinancialDataStore.seedOf(consent);
    let set = this.sets.get(seed);
    if (set) {
      // Map order is insertion order: re-inserting marks the set most recently used.
      this.sets.delete(seed);
      this.sets.set(seed, set);
      return set;
    }
    const now = this.clock.nowMs();
    const dayStartMs = now - (now % DAY_MS);
    set = {
      institutionId: consent.institutionId,
      accounts: generateAccounts(seed, dayStartMs),
      modified: false,
    };
    for (const account of set.accounts) reindex(account, false);
    this.sets.set(seed, set);
    this.evict();
    return set;
  }

  private evict(): void {
    if (this.sets.size <= MAX_CACHED_SETS) return;
    for (const [seed, set] of this.sets) {
      if (this.sets.size <= MAX_CACHED_SETS) return;
      if (!set.modified) this.sets.delete(seed);
    }
  }

  private changed(consent: ConsentRecord, account: SandboxAccount): void {
    this.setFor(consent).modified = true;
    reindex(account, true);
  }

  private assertFreeId(account: SandboxAccount, id: string): void {
    if (account.transactions.some((t) => t.id === id)) {
      throw new SandboxError(409, `Transaction ${id} already exists in account ${account.id}`, [
        { type: 'CONFLICT', code: 'CONFLICT', parameter: 'id', message: `Transaction ${id} already exists` },
      ]);
    }
  }
}

/**
 * Sorts (when asked), rebuilds the timestamp index, the running booked balance and the totals, and drops
 * cached serialisations, whose balances may have moved.
 */
function reindex(account: SandboxAccount, sort: boolean): void {
  if (sort) account.transactions.sort((x, y) => x.timeMs - y.timeMs || x.seq - y.seq);
  const times = new Float64Array(account.transactions.length);
  let booked = account.openingMinor;
  let pending = 0;
  account.transactions.forEach((tx, i) => {
    times[i] = tx.timeMs;
    if (tx.status === 'BOOKED') {
      booked += tx.amountMinor;
      tx.balanceMinor = booked;
    } else {
      pending += tx.amountMinor;
      tx.balanceMinor = undefined;
    }
    tx.json = [];
  });
  account.times = times;
  account.pages = new Map();
  account.bookedMinor = booked;
  account.pendingMinor = pending;
}
