import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import {
  type ConsentRecord,
  InstitutionsCatalog,
  ResetRegistryService,
  SandboxClockService,
  SandboxError,
} from '../core/index.js';
import {
  type AdminChange,
  adminTransaction,
  applyChange,
  type NewTransactionInput,
  type TransactionChange,
} from './admin-change.js';
import { BalanceSummary } from './balance-summary.js';
import { generateAccounts } from './fixture-generator.js';
import { Lru } from './lru.cache.js';
import { CursorCodec } from './paging.js';
import { generatedIdOf, type SandboxAccount } from './sandbox-account.js';
import {
  DAY_MS,
  dayNumberOf,
  HISTORY_DAYS,
  type SandboxTransaction,
  type TransactionStatus,
} from './sandbox-records.js';
import { stableUuid } from './seeded-random.js';
import { TransactionLedger } from './transaction-ledger.js';

/**
 * Account sets kept, per (user and institution, sandbox day): their facts, day patterns and overlays,
 * small and cheap to make again. Balance summaries (under 1 KB an account) are kept apart and longer,
 * since each costs more to make. Together they bound the data area's memory
 * (about 100 MB at most) however many consents exist; past them, data is computed again, never lost.
 */
const MAX_CACHED_SETS = 4096;
const MAX_CACHED_SUMMARIES = 65_536;

interface AccountSet {
  institutionId: string;
  accounts: SandboxAccount[];
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

/**
 * The financial data behind data consents. Accounts are generated once per (application, user,
 * institution) and cached; the control API's changes live here in memory until a reset or restart.
 * Kept whole: the changes and the categorisations are saved together, as the state part `financial-data`.
 */
@Injectable()
export class FinancialDataStore {
  private readonly sets = new Lru<string, AccountSet>(MAX_CACHED_SETS);
  /** Balance summaries by account and sandbox day: generated history never changes, so never stale. */
  private readonly summaries = new Lru<string, BalanceSummary>(MAX_CACHED_SUMMARIES);
  /** Control-API changes by seed, kept until a reset and replayed on every regeneration. */
  private changes = new Map<string, AdminChange[]>();
  private categorisations = new Map<string, CategorisationRecord>();
  readonly cursors: CursorCodec;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: SandboxClockService,
    private readonly catalog: InstitutionsCatalog,
    resets: ResetRegistryService,
  ) {
    this.cursors = new CursorCodec(config.sandbox.adminToken);
    // The generated account sets are a cache (regenerated from their seeds); the control API's changes
    // to them and the categorisations are the state, and the cache goes whenever they are replaced.
    resets.registerMaps(
      'financial-data',
      () => ({ changes: this.changes, categorisations: this.categorisations }),
      (maps) => {
        ({ changes: this.changes, categorisations: this.categorisations } = maps);
        this.sets.clear();
      },
    );
  }

  /**
   * The seed of a user's data. The applicationUserId is preferred over the user uuid: a merchant names its
   * users by applicationUserId, and the uuid is new whenever the sandbox creates the user again (a fresh
   * run, a reset), yet the same user must see the same data. A bank's accounts do not change when the
   * application renames its user: a renamed user (and each consent of theirs) keeps the key it had.
   */
  static seedOf(
    consent: Pick<
      ConsentRecord,
      'applicationId' | 'applicationUserId' | 'userUuid' | 'institutionId' | 'dataKey'
    >,
  ) {
    return `${consent.applicationId}|${consent.dataKey ?? FinancialDataStore.userKeyOf(consent)}|${consent.institutionId}`;
  }

  /** The part of the seed that names the user, before any rename. */
  static userKeyOf(user: { applicationUserId?: string; userUuid: string }): string {
    return user.applicationUserId ? `aui:${user.applicationUserId}` : `uuid:${user.userUuid}`;
  }

  /**
   * The consent's accounts as the bank lists them. Under an institution with the `accountIdsPerConsent`
   * quirk each consent sees its own ids for the same accounts (same identifications, same transactions).
   */
  accountsFor(consent: ConsentRecord): SandboxAccount[] {
    const accounts = this.setFor(consent).accounts;
    if (!this.catalog.quirksOf(consent.institutionId).accountIdsPerConsent) return accounts;
    return accounts.map((a) => ({
      ...a,
      id: stableUuid(`${a.id}|consent:${consent.id}`),
      generatedId: a.id,
    }));
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
    const seq = account.ledger.nextAdminSeq;
    const id = input.id ?? stableUuid(`${generatedIdOf(account)}:admin:${seq}`);
    this.assertFreeId(account, id);
    this.apply(consent, account, {
      type: 'add',
      accountId: generatedIdOf(account),
      tx: adminTransaction(input, id, seq, this.clock.nowMs()),
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
      accountId: generatedIdOf(account),
      transactionId: tx.id,
      seq: account.ledger.locateGenerated(tx.id)?.seq,
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
    this.apply(consent, account, {
      type: 'delete',
      accountId: generatedIdOf(account),
      transactionId: tx.id,
      seq: account.ledger.locateGenerated(tx.id)?.seq,
    });
  }

  transaction(account: SandboxAccount, transactionId: string): SandboxTransaction {
    const tx = account.ledger.find(transactionId);
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
    const endDay = dayNumberOf(this.clock.nowMs());
    return this.sets.getOrSet(`${seed}|${endDay}`, () => {
      const startDay = endDay - HISTORY_DAYS;
      const accounts = generateAccounts(seed, endDay * DAY_MS).map(({ fixture, plan }) => {
        const summaryKey = `${fixture.id}|${endDay}`;
        const summary = () =>
          this.summaries.getOrSet(summaryKey, () => BalanceSummary.of(plan!, startDay, endDay));
        return { ...fixture, ledger: new TransactionLedger(fixture.id, plan, startDay, endDay, summary) };
      });
      for (const change of this.changes.get(seed) ?? []) {
        const account = accounts.find((a) => a.id === change.accountId);
        if (account) applyChange(account.ledger, change);
      }
      return { institutionId: consent.institutionId, accounts };
    });
  }

  private apply(consent: ConsentRecord, account: SandboxAccount, change: AdminChange): void {
    const seed = FinancialDataStore.seedOf(consent);
    const list = this.changes.get(seed) ?? [];
    list.push(change);
    this.changes.set(seed, list);
    applyChange(account.ledger, change);
    // Sets made for other sandbox days no longer match; they are made again when needed.
    const current = this.setFor(consent);
    this.sets.deleteWhere((key) => key.startsWith(`${seed}|`) && this.sets.get(key) !== current);
  }

  private assertFreeId(account: SandboxAccount, id: string): void {
    if (account.ledger.has(id)) {
      throw new SandboxError(409, `Transaction ${id} already exists in account ${account.id}`, [
        { type: 'CONFLICT', code: 'CONFLICT', parameter: 'id', message: `Transaction ${id} already exists` },
      ]);
    }
  }
}
