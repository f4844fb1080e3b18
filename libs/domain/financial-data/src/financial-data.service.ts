import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type TenantCaller, tenantOf } from '#libs/context';
import { UnattendedReadsService } from '#libs/domain/accounts';
import { invalidRequest } from '#libs/errors';
import {
  cursorOf,
  type PsuHeaders,
  type Transaction,
  UPSTREAM_CLIENT,
  type UpstreamClient,
  UpstreamError,
} from '#libs/upstream-client';
import { ConsentAccessService } from './consent-access.service.js';
import { FinancialDataRepository } from './financial-data.repository.js';
import { moneyToStrings } from './money.js';
import { PagingCursorSigner } from './paging-cursor.signer.js';
import {
  dedupeKeyOf,
  type ServedTransaction,
  servedTransaction,
  storedTransaction,
  UnusableTransactionError,
} from './served-transaction.js';

export interface StatementsQuery {
  from?: string;
  before?: string;
  limit?: number;
  sort?: 'date' | '-date';
  /** From a previous page's `nextCursor`; it carries the filters of the first request. */
  cursor?: string;
}

export interface LiveTransactionsQuery {
  from?: string;
  before?: string;
  cursor?: string;
}

/**
 * Our ranges are `from` inclusive and `before` exclusive on every route, stored or live; the upstream's
 * `before` is inclusive to the millisecond (spec 4.2.1). Both arrive canonical (see parseInstant).
 */
export function upstreamRange(range: { from?: string; before?: string }): { from?: string; before?: string } {
  return {
    ...(range.from !== undefined ? { from: range.from } : {}),
    ...(range.before !== undefined ? { before: new Date(Date.parse(range.before) - 1).toISOString() } : {}),
  };
}

/**
 * Upstream records (live, categorised) as stored ones are served. A record that cannot be (no date,
 * amount or currency) is the upstream breaking its contract: a PROTOCOL error, answered as the upstream
 * being unavailable, not as a fault of ours.
 */
function servedRecords(
  records: Transaction[],
  keys = records.map((tx) => dedupeKeyOf(tx)),
): ServedTransaction[] {
  try {
    return records.map((tx, i) => servedTransaction(storedTransaction(tx), { key: keys[i], currency: null }));
  } catch (error) {
    if (!(error instanceof UnusableTransactionError)) throw error;
    throw new UpstreamError(`an upstream record is unusable: ${error.message}`, {
      kind: 'PROTOCOL',
      shape: 'unrecognised',
      retryable: false,
      cause: error,
    });
  }
}

/**
 * An account's data read through from the upstream under its consent. Kept whole: each read is one call
 * through ConsentAccessService, sharing the signed paging cursors and the served record's shape.
 */
@Injectable()
export class FinancialDataService {
  private readonly cursors: PagingCursorSigner;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly access: ConsentAccessService,
    private readonly repository: FinancialDataRepository,
    private readonly unattended: UnattendedReadsService,
  ) {
    this.cursors = new PagingCursorSigner(config.crypto.signingSecret);
  }

  /**
   * One upstream page of statements, offset-paged upstream. `nextCursor` carries the next offset and the
   * first request's filters (signed, bound to the account) while the upstream's `totalCount`, which counts
   * from this page's offset on, says more remain.
   */
  statements(caller: TenantCaller, accountId: string, query: StatementsQuery, psu: PsuHeaders = {}) {
    const position =
      query.cursor === undefined
        ? { offset: 0, from: query.from, before: query.before, sort: query.sort }
        : this.cursors.openStatements(query.cursor, caller.merchantId, accountId);
    return this.access.withAccount(
      caller,
      accountId,
      async ({ upstreamAccountId, options }) => {
        const limit = query.limit ?? 1000;
        const page = await this.upstream.data.getStatements(
          upstreamAccountId,
          { ...upstreamRange(position), sort: position.sort, limit, offset: position.offset },
          options,
        );
        const more =
          page.totalCount !== undefined && page.totalCount > page.data.length && page.data.length > 0;
        return {
          statements: page.data,
          nextCursor: more
            ? this.cursors.signStatements(caller.merchantId, accountId, {
                ...position,
                offset: position.offset + page.data.length,
              })
            : null,
        };
      },
      psu,
    );
  }

  beneficiaries(caller: TenantCaller, accountId: string, psu: PsuHeaders = {}) {
    return this.access.withAccount(
      caller,
      accountId,
      async ({ upstreamAccountId, options }) =>
        moneyToStrings((await this.upstream.data.getBeneficiaries(upstreamAccountId, options)).data ?? []),
      psu,
    );
  }

  /**
   * Synchronous on purpose: the upstream categorises on request and the merchant API has no route to fetch a
   * categorisation later, so we create it and read it back in one call. An empty period (Data Plus
   * 16002, a 404 upstream) is an empty result, not an error.
   */
  categorise(
    caller: TenantCaller,
    accountId: string,
    input: { categorisationType: 'consumer' | 'business'; countryCode?: string },
  ) {
    return this.access.withAccount(caller, accountId, async ({ upstreamAccountId, options, consent }) => {
      const countryCode = input.countryCode ?? (await this.institutionCountry(consent.institutionId));
      const created = await this.upstream.data.createCategorisation(
        upstreamAccountId,
        { categorisationType: input.categorisationType, countryCode },
        options,
      );
      const categorisationId = created.data.categorisationId;
      try {
        const result = await this.upstream.data.getCategorisation(
          upstreamAccountId,
          categorisationId,
          options,
        );
        return { categorisationId, transactions: servedRecords(result.data.transactions ?? []) };
      } catch (error) {
        if (
          error instanceof UpstreamError &&
          error.kind === 'NOT_FOUND' &&
          error.issues?.some((i) => String(i.code) === '16002')
        ) {
          return { categorisationId, transactions: [] };
        }
        throw error;
      }
    });
  }

  /** The upstream requires a country to categorise for: the institution's, from our cache or the upstream. */
  private async institutionCountry(institutionId: string): Promise<string> {
    const cached = await this.repository.institutionCountries(institutionId);
    const countries =
      cached ??
      ((await this.upstream.institutions.get(institutionId)).data.countries ?? [])
        .map((c) => c.countryCode2?.toUpperCase())
        .filter((c): c is string => !!c);
    if (countries.length === 1) return countries[0];
    throw invalidRequest([
      { field: 'countryCode', issue: "is required: the institution's country is not one known country" },
    ]);
  }

  /**
   * One page of the upstream's real-time transactions. The upstream cursor travels inside our signed
   * cursor (see PagingCursorSigner); `from`/`before` apply to the first page only, as upstream. The
   * records come back in the stored records’ shape (see servedTransaction).
   */
  async liveTransactions(
    caller: TenantCaller,
    accountId: string,
    query: LiveTransactionsQuery,
    psu: PsuHeaders = {},
  ) {
    const upstreamCursor =
      query.cursor === undefined ? undefined : this.cursors.open(query.cursor, caller.merchantId, accountId);
    const page = await this.access.withAccount(
      caller,
      accountId,
      async ({ upstreamAccountId, options }) => {
        const call = () =>
          this.upstream.data.getRealTimeTransactions(
            upstreamAccountId,
            upstreamCursor === undefined ? upstreamRange(query) : { cursor: upstreamCursor },
            options,
          );
        // A first page without the user's address is a read the bank counts against its daily allowance.
        const unattended = upstreamCursor === undefined && psu.ipAddress === undefined;
        const page = unattended
          ? await this.unattended.read(tenantOf(caller), accountId, call)
          : await call();
        // Only the cursor of `links.next` is kept, never the link's host: a crafted link cannot send the
        // consent token elsewhere.
        const next = cursorOf(page.links?.next);
        // Keys before serving: a record without id or hash is keyed by a hash of it as the bank gave it.
        const keys = page.data.map((tx) => dedupeKeyOf(tx));
        return {
          records: servedRecords(page.data, keys),
          keys,
          nextCursor: next ? this.cursors.sign(caller.merchantId, accountId, next) : null,
        };
      },
      psu,
    );
    await this.addSyncedFields(caller, accountId, page.records, page.keys);
    return { records: page.records, nextCursor: page.nextCursor };
  }

  /**
   * The real-time endpoint gives neither the enrichment a sync asks for nor `transactionMutability`: a live
   * record the account's syncs already stored gets both from its stored copy, so the same id reads the
   * same both ways. A record no sync has stored yet has neither (docs: the live route's description).
   */
  private async addSyncedFields(
    caller: TenantCaller,
    accountId: string,
    records: ServedTransaction[],
    keys: string[],
  ): Promise<void> {
    const stored = await this.repository.syncedFields(tenantOf(caller), accountId, keys);
    const byKey = new Map(stored.map((row) => [row.dedupeKey, row]));
    records.forEach((record, i) => {
      const synced = byKey.get(keys[i]);
      if (!synced) return;
      if (record.enrichment === undefined && synced.enrichment !== null)
        record.enrichment = synced.enrichment;
      if (record.transactionMutability === undefined && synced.transactionMutability !== null)
        record.transactionMutability = synced.transactionMutability;
    });
  }
}
