import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import {
  type ConsentRecord,
  ConsentsStore,
  InstitutionsCatalog,
  SandboxClockService,
  type SandboxContext,
  SandboxError,
  tracingIdOf,
} from '../core/index.js';
import type {
  OffsetListQueryDto,
  RealTimeTransactionsQueryDto,
  TransactionsQueryDto,
} from './financial-data.dto.js';
import { FinancialDataStore } from './financial-data.store.js';
import type { BodyPieces } from './json-pieces.js';
import {
  CURSOR_PAGE_SIZE,
  echoDate,
  MAX_LIMIT,
  parseDateParam,
  queryString,
  type Window,
  windowOf,
} from './paging.js';
import type { SandboxAccount } from './sandbox-account.js';
import { listPieces } from './transaction-json.js';
import { REAL_TIME, WITH_CATEGORISATION, WITH_MERCHANT } from './wire-format.js';

/** Each financial-data operation: the institution feature it needs, and the consent scopes that allow it. */
export const OPERATIONS = {
  accounts: { feature: 'ACCOUNTS', scopes: ['ACCOUNTS', 'ACCOUNT'] },
  account: { feature: 'ACCOUNT', scopes: ['ACCOUNT', 'ACCOUNTS'] },
  balances: { feature: 'ACCOUNT_BALANCES', scopes: ['ACCOUNT_BALANCES', 'ACCOUNTS', 'ACCOUNT'] },
  transactions: {
    feature: 'ACCOUNT_TRANSACTIONS',
    scopes: ['ACCOUNT_TRANSACTIONS', 'ACCOUNT_TRANSACTIONS_WITH_MERCHANT'],
  },
  statements: { feature: 'ACCOUNT_STATEMENTS', scopes: ['ACCOUNT_STATEMENTS', 'ACCOUNT_STATEMENT'] },
  statement: { feature: 'ACCOUNT_STATEMENT', scopes: ['ACCOUNT_STATEMENT', 'ACCOUNT_STATEMENTS'] },
  beneficiaries: { feature: 'ACCOUNT_BENEFICIARIES', scopes: ['ACCOUNT_BENEFICIARIES'] },
} as const;

export type Operation = keyof typeof OPERATIONS;

const WITH_VALUES: Record<string, number> = {
  categorisation: WITH_CATEGORISATION,
  categories: WITH_CATEGORISATION,
  category: WITH_CATEGORISATION,
  merchant: WITH_MERCHANT,
  merchants: WITH_MERCHANT,
};

export interface OffsetRequest {
  fromMs?: number;
  beforeMs?: number;
  limit: number;
  sort: 'date' | '-date';
  offset: number;
}

@Injectable()
export class FinancialDataService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly consents: ConsentsStore,
    private readonly institutions: InstitutionsCatalog,
    private readonly store: FinancialDataStore,
    private readonly clock: SandboxClockService,
  ) {}

  /**
   * The checks every financial-data call makes, in the upstream's order: the consent, then the
   * institution's feature, then the consent's scope; then the flaky institution may misbehave (its
   * pattern counts per consent, so one application's calls never shift another's).
   */
  authorise(ctx: SandboxContext, token: string | undefined, operation: Operation): ConsentRecord {
    const consent = this.consents.fromToken(ctx, token, ['ACCOUNT']);
    const { feature, scopes } = OPERATIONS[operation];
    const institution = this.institutions.requireFeature(consent.institutionId, feature);
    const scope: readonly string[] = consent.featureScope ?? [];
    if (scope.length > 0 && !scopes.some((s) => scope.includes(s))) {
      throw new SandboxError(403, `Consent ${consent.id} does not include the feature ${feature}`, [
        {
          type: 'CONSENT',
          code: 'FEATURE_NOT_IN_CONSENT_SCOPE',
          parameter: feature,
          message: `The consent's featureScope does not include ${feature}`,
        },
      ]);
    }
    this.institutions.maybeFail(institution, consent.id);
    return consent;
  }

  account(consent: ConsentRecord, accountId: string): SandboxAccount {
    return this.store.account(consent, accountId);
  }

  /** The validated offset query: defaults applied, dates parsed and checked. */
  offsetRequest(query: OffsetListQueryDto): OffsetRequest {
    const fromMs = parseDateParam('from', query.from);
    const beforeMs = parseDateParam('before', query.before);
    return {
      fromMs,
      beforeMs,
      limit: query.limit ?? MAX_LIMIT,
      sort: query.sort ?? '-date',
      offset: query.offset ?? 0,
    };
  }

  /**
   * meta.pagination and links of an offset page (upstream spec §2.1 and 4.2.1). `totalCount` counts the records
   * from this offset on, so rule 3 (repeat with offset + limit while totalCount > limit) ends exactly
   * at the last page; `next` carries the spec's Next fields and is there only while records remain.
   */
  offsetPaging(path: string, request: OffsetRequest, total: number, extra: [string, string][] = []) {
    const from = echoDate(request.fromMs);
    const before = echoDate(request.beforeMs);
    const { limit, sort, offset } = request;
    const present = (o: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
    const self = `${this.config.sandbox.publicUrl}${path}?${queryString([
      ['from', from],
      ['before', before],
      ['limit', limit],
      ['sort', sort],
      ['offset', offset],
      ...extra,
    ])}`;
    const pagination = {
      totalCount: Math.max(0, total - offset),
      self: present({ from, before, limit, sort, offset }),
      ...(offset + limit < total ? { next: present({ from, before, limit }) } : {}),
    };
    return { pagination, links: { self } };
  }

  /** Which enrichment parts `with` asks for; versions 1 and 2 both always carry the transaction hash. */
  enrichmentVariant(withParam: string | string[] | undefined): number {
    const values = (Array.isArray(withParam) ? withParam : withParam ? [withParam] : [])
      .flatMap((v) => v.split(','))
      .map((v) => v.trim().toLowerCase())
      .filter((v) => v !== '');
    let variant = 0;
    for (const value of values) {
      const bit = WITH_VALUES[value];
      if (!bit) {
        throw SandboxError.invalidProperty('with', `with accepts categorisation and merchant, not ${value}`);
      }
      variant |= bit;
    }
    return variant;
  }

  /** The offset-paged transactions body: only the days the page covers are generated. */
  transactionsBody(
    httpRequest: FastifyRequest,
    consent: ConsentRecord,
    account: SandboxAccount,
    query: TransactionsQueryDto,
  ): BodyPieces {
    const request = this.offsetRequest(query);
    const variant = this.enrichmentVariant(query.with);
    const window = windowOf(request.fromMs, request.beforeMs, consent);
    const { total, records } = account.ledger.page(window, request.sort, request.offset, request.limit);
    const withEcho =
      query.with === undefined ? [] : [['with', [query.with].flat().join(',')] as [string, string]];
    const { pagination, links } = this.offsetPaging(
      `/accounts/${encodeURIComponent(account.id)}/transactions`,
      request,
      total,
      [...withEcho, ['cursor', '']],
    );
    const meta = { tracingId: tracingIdOf(httpRequest), count: records.length, pagination };
    return listPieces(meta, records, account, consent.institutionId, variant, links);
  }

  /**
   * Cursor paging (upstream spec §4.2.1): newest first, pages of CURSOR_PAGE_SIZE. The window is fixed by the
   * initial request and travels in the signed cursor; the page is a position, so a walk along `next`
   * visits every transaction of the window once while the data stays the same.
   */
  realTimeBody(
    httpRequest: FastifyRequest,
    consent: ConsentRecord,
    account: SandboxAccount,
    query: RealTimeTransactionsQueryDto,
  ): BodyPieces {
    let fromMs: number | undefined;
    let beforeMs: number | undefined;
    let page = 0;
    if (query.cursor) {
      if (query.from || query.before) {
        throw SandboxError.invalidProperty(
          query.from ? 'from' : 'before',
          'from and before apply to the initial request only; the cursor already carries them',
        );
      }
      const state = this.store.cursors.decode(query.cursor, account.id);
      fromMs = state.f ?? undefined;
      beforeMs = state.b ?? undefined;
      page = state.p;
    } else {
      fromMs = parseDateParam('from', query.from);
      beforeMs = parseDateParam('before', query.before);
    }
    const window: Window = windowOf(fromMs, beforeMs, consent);
    const { total, records } = account.ledger.page(
      window,
      '-date',
      page * CURSOR_PAGE_SIZE,
      CURSOR_PAGE_SIZE,
    );
    const lastPage = Math.max(0, Math.ceil(total / CURSOR_PAGE_SIZE) - 1);
    const base = `${this.config.sandbox.publicUrl}/accounts/${encodeURIComponent(account.id)}/real-time/transactions`;
    const link = (p: number) =>
      `${base}?cursor=${this.store.cursors.encode({ a: account.id, f: fromMs ?? null, b: beforeMs ?? null, p })}`;
    const links: Record<string, string> = {};
    if (page > 0) {
      links.first = link(0);
      links.prev = link(Math.min(page - 1, lastPage));
    }
    links.self = link(page);
    if (page < lastPage) {
      links.next = link(page + 1);
      links.last = link(lastPage);
    }
    const meta = { tracingId: tracingIdOf(httpRequest), count: records.length };
    return listPieces(meta, records, account, consent.institutionId, REAL_TIME, links);
  }

  nowMs(): number {
    return this.clock.nowMs();
  }
}
