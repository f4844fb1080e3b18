import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ResetRegistry, SandboxClock, SandboxError, type ConsentRecord, toMinor } from '../core/index.js';
import { ByteLru, SERIALISED_CACHE_BYTES } from './byte-lru.cache.js';
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

/**
 * Generated account sets kept, per (user and institution, sandbox day): about 4.5 MB of objects each,
 * and about 100 ms to generate. Any may be evicted: it is generated again, with the control API's
 * changes replayed, when needed.
 */
const MAX_CACHED_SETS = 16;

interface AccountSet {
  institutionId: string;
  accounts: SandboxAccount[];
}

/**
 * A control-API change, recorded with every value it resolved (ids, dates), so replaying it on data
 * generated for another sandbox day gives the same result. Targets no longer there are skipped.
 */
type AdminChange =
  | { type: 'add'; accountId: string; tx: Omit<SandboxTransaction, 'balanceMinor'> }
  | {
      type: 'change';
      accountId: string;
      transactionId: string;
      id: string;
      status?: TransactionStatus;
      change: TransactionChange;
    }
  | { type: 'delete'; accountId: string; transactionId: string };

/** Every account state gets its own name in the serialised cache (see SandboxAccount.cacheId). */
let nextCacheId = 1;

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

/**
 * The financial data behind data consents. Accounts are generated once per (application, user,
 * institution) and cached; the control API's changes live here in memory until a reset or restart.
 */
@Injectable()
export class FinancialDataStore {
  private sets = new Map<string, AccountSet>();
  /** Control-API changes by seed, kept until a reset and replayed on every regeneration. */
  private changes = new Map<string, AdminChange[]>();
  private categorisations = new Map<string, CategorisationRecord>();
  readonly cursors: CursorCodec;
  /** The one cache of serialised records and pages of the data area. */
  readonly serialised = new ByteLru(SERIALISED_CACHE_BYTES);

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: SandboxClock,
    resets: ResetRegistry,
  ) {
    this.cursors = new CursorCodec(config.sandbox.adminToken);
    // The generated account sets are a cache (regenerated from their seeds); the control API's changes
    // to them and the categorisations are the state.
    resets.register(
      () => {
        this.sets = new Map();
        this.changes = new Map();
        this.categorisations = new Map();
        this.serialised.clear();
      },
      {
        name: 'financial-data',
        save: () => ({ changes: this.changes, categorisations: this.categorisations }),
        load: (saved) => {
          ({ changes: this.changes, categorisations: this.categorisations } = saved as {
            changes: Map<string, AdminChange[]>;
            categorisations: Map<string, CategorisationRecord>;
          });
          this.sets = new Map();
          this.serialised.clear();
        },
      },
    );
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
    const seq = account.nextAdminSeq;
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
    this.apply(consent, account, {
      type: 'add',
      accountId: account.id,
      tx: {
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
        counterparty: undefined,
      },
    });
    return this.transaction(account, id);
  }

  changeTransaction(
    consent: ConsentRecord,
    accountId: string,
    transactionId: string,
    change: TransactionChange,
  ): { transaction: SandboxTransaction; previousId: string } {
    const account = this.account(consent, accountId);
    const tx = this.transaction(account, transactionId);
    let id = tx.id;
    let status: TransactionStatus | undefined;
    if (change.status && change.status !== tx.status) {
      if (change.status === 'PENDING') {
        throw SandboxError.invalidProperty('status', 'A booked transaction cannot become pending again');
      }
      // Banks re-issue the id when a pending transaction books; clients must match on other fields.
      id = change.id ?? stableUuid(`${tx.id}:booked`);
      this.assertFreeId(account, id);
      status = 'BOOKED';
    } else if (change.id && change.id !== tx.id) {
      this.assertFreeId(account, change.id);
      id = change.id;
    }
    this.apply(consent, account, {
      type: 'change',
      accountId: account.id,
      transactionId: tx.id,
      id,
      status,
      change: {
        amount: change.amount,
        description: change.description,
        reference: change.reference,
        date: change.date,
      },
    });
    return { transaction: this.transaction(account, id), previousId: transactionId };
  }

  deleteTransaction(consent: ConsentRecord, accountId: string, transactionId: string): void {
    const account = this.account(consent, accountId);
    const tx = this.transaction(account, transactionId);
    this.apply(consent, account, { type: 'delete', accountId: account.id, transactionId: tx.id });
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

  /**
   * The account set as of the sandbox's current UTC day. Generation is keyed by that day, so advancing
   * the clock past midnight moves the window; the control API's changes are replayed on top.
   */
  private setFor(consent: ConsentRecord): AccountSet {
    const seed = FinancialDataStore.seedOf(consent);
    const now = this.clock.nowMs();
    const endDayStartMs = now - (((now % DAY_MS) + DAY_MS) % DAY_MS);
    const key = `${seed}|${endDayStartMs}`;
    let set = this.sets.get(key);
    if (set) {
      // Map order is insertion order: re-inserting marks the set most recently used.
      this.sets.delete(key);
      this.sets.set(key, set);
      return set;
    }
    set = { institutionId: consent.institutionId, accounts: generateAccounts(seed, endDayStartMs) };
    for (const change of this.changes.get(seed) ?? []) {
      const account = set.accounts.find((a) => a.id === change.accountId);
      if (account) applyChange(account, change);
    }
    for (const account of set.accounts) reindex(account);
    this.sets.set(key, set);
    for (const oldest of this.sets.keys()) {
      if (this.sets.size <= MAX_CACHED_SETS) break;
      this.sets.delete(oldest);
    }
    return set;
  }

  private apply(consent: ConsentRecord, account: SandboxAccount, change: AdminChange): void {
    const seed = FinancialDataStore.seedOf(consent);
    const list = this.changes.get(seed) ?? [];
    list.push(change);
    this.changes.set(seed, list);
    applyChange(account, change);
    reindex(account);
    // Sets generated for other sandbox days no longer match; they are generated again when needed.
    for (const key of [...this.sets.keys()]) {
      if (key.startsWith(`${seed}|`) && this.sets.get(key)!.accounts.every((a) => a !== account)) {
        this.sets.delete(key);
      }
    }
  }

  private assertFreeId(account: SandboxAccount, id: string): void {
    if (account.transactions.some((t) => t.id === id)) {
      throw new SandboxError(409, `Transaction ${id} already exists in account ${account.id}`, [
        { type: 'CONFLICT', code: 'CONFLICT', parameter: 'id', message: `Transaction ${id} already exists` },
      ]);
    }
  }
}

function applyChange(account: SandboxAccount, change: AdminChange): void {
  switch (change.type) {
    case 'add':
      if (account.transactions.some((t) => t.id === change.tx.id)) return;
      account.transactions.push({ ...change.tx, balanceMinor: undefined });
      account.nextAdminSeq = Math.max(account.nextAdminSeq, change.tx.seq + 1);
      return;
    case 'change': {
      const tx = account.transactions.find((t) => t.id === change.transactionId);
      if (!tx) return;
      tx.id = change.id;
      if (change.status) tx.status = change.status;
      const { amount, description, reference, date } = change.change;
      if (amount !== undefined) tx.amountMinor = toMinor(amount);
      if (description !== undefined) tx.description = description;
      if (reference !== undefined) tx.reference = reference;
      if (date !== undefined) tx.timeMs = Date.parse(date);
      return;
    }
    case 'delete':
      account.transactions = account.transactions.filter((t) => t.id !== change.transactionId);
  }
}

/**
 * Sorts, rebuilds the timestamp index, the running booked balance and the totals, and gives the account
 * a new cache name: serialised records and pages of the old state may carry stale balances.
 */
function reindex(account: SandboxAccount): void {
  account.transactions.sort((x, y) => x.timeMs - y.timeMs || x.seq - y.seq);
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
  });
  account.times = times;
  account.bookedMinor = booked;
  account.pendingMinor = pending;
  account.cacheId = nextCacheId++;
}
