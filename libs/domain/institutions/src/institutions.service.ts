import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { UNATTENDED_READS_PER_DAY } from '#libs/domain/accounts';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';
import { type Institution, UPSTREAM_CLIENT, type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import {
  type InstitutionFilter,
  type InstitutionRecord,
  InstitutionRepository,
  type PsuHeaderNeeds,
} from './institution.repository.js';
import { constraintsOf } from './psu-constraints.js';

/** An institution as served: what is stored of it, and what its features and constraints mean for a user. */
export interface InstitutionView extends Omit<InstitutionRecord, 'raw' | 'constraints'> {
  /** How a user can connect it, from its features: the bank's own page, or credentials on ours. */
  flows: ConnectionFlow[];
  /** The PSU headers it requires, from its constraints (none while they are unknown). */
  psuHeaders: PsuHeaderNeeds;
  /** Its consents must name a transaction range (one is always sent: see accountTerms). */
  transactionRange: boolean;
}

export type ConnectionFlow = 'REDIRECT' | 'EMBEDDED';

/** The feature that offers each way of connecting a bank for data (the upstream's feature names). */
export const FLOW_FEATURE: Readonly<Record<ConnectionFlow, string>> = {
  REDIRECT: 'INITIATE_ACCOUNT_REQUEST',
  EMBEDDED: 'INITIATE_EMBEDDED_ACCOUNT_REQUEST',
};
const FLOW_FEATURES = Object.entries(FLOW_FEATURE) as [ConnectionFlow, string][];

/** The stored constraints (a JSON column, null until read): nothing required while unknown. */
function storedConstraints(value: unknown): { psuHeaders: PsuHeaderNeeds; transactionRange: boolean } {
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((h): h is string => typeof h === 'string') : []);
  const stored = (value ?? {}) as {
    psuHeaders?: { connect?: unknown; pay?: unknown };
    transactionRange?: unknown;
  };
  return {
    psuHeaders: { connect: list(stored.psuHeaders?.connect), pay: list(stored.psuHeaders?.pay) },
    transactionRange: stored.transactionRange === true,
  };
}

function institutionView(
  i: Omit<InstitutionRecord, 'constraints'> & { constraints: unknown },
): InstitutionView {
  return {
    id: i.id,
    name: i.name,
    fullName: i.fullName,
    countries: i.countries,
    features: i.features,
    environmentType: i.environmentType,
    credentialsType: i.credentialsType,
    flows: FLOW_FEATURES.filter(([, feature]) => i.features.includes(feature)).map(([flow]) => flow),
    ...storedConstraints(i.constraints),
  };
}

function toRecord(i: Institution): InstitutionRecord {
  const countries = (i.countries ?? []).flatMap((c) =>
    c.countryCode2 ? [c.countryCode2.toUpperCase()] : [],
  );
  return {
    id: i.id,
    name: i.name ?? i.fullName ?? i.id,
    fullName: i.fullName ?? null,
    countries: [...new Set(countries)],
    features: [...new Set((i.features ?? []).map(String))],
    environmentType: i.environmentType ?? null,
    credentialsType: i.credentialsType ?? null,
    raw: i,
    constraints: null,
  };
}

/**
 * The upstream did not answer at all (refused, unresolvable, reset): it may simply not be up yet, as at
 * a cold start. Answered to a merchant like any upstream outage; the worker waits for it instead.
 */
export class UpstreamUnreachableError extends DomainError {}

/** The institutions cache: filled from the upstream by {@link refreshInstitutions}, read by the merchant API. */
@Injectable()
export class InstitutionsService implements OnApplicationBootstrap {
  constructor(
    private readonly institutions: InstitutionRepository,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  /**
   * The cached institutions may label this process's upstream metrics (its breakers), though it never
   * listed them itself: the worker's refresh fills the cache. Postgres away at start costs only labels
   * (`other` until a listing or a read of the bank), so it is not waited for.
   */
  onApplicationBootstrap(): void {
    this.institutions.allIds().then(
      (ids) => this.upstream.rememberInstitutions(ids),
      (err: unknown) => this.logger.info({ err }, 'institutions cache unread: metrics label banks once read'),
    );
  }

  /** The operator's word on a bank's daily allowance of reads without the user; null: PSD2's four. */
  async setUnattendedReadsPerDay(
    institutionId: string,
    perDay: number | null,
  ): Promise<{ institutionId: string; perDay: number; setByOperator: boolean }> {
    if (!(await this.institutions.setUnattendedReadsPerDay(institutionId, perDay))) {
      throw new DomainError(ErrorCode.NOT_FOUND, 'Institution not found.');
    }
    return { institutionId, perDay: perDay ?? UNATTENDED_READS_PER_DAY, setByOperator: perDay !== null };
  }

  /** The worker schedules this; the operator can trigger it, and an empty cache triggers it on a read. */
  async refreshInstitutions(now = new Date()): Promise<{ count: number; deleted: number }> {
    let listed: Institution[];
    try {
      listed = (await this.upstream.institutions.list()).data;
    } catch (error) {
      const mapped = mapUpstreamFailure(error);
      if (error instanceof UpstreamError && error.shape === 'network' && mapped instanceof DomainError) {
        throw new UpstreamUnreachableError(mapped.code, mapped.message, mapped.extra);
      }
      throw mapped;
    }
    const records = listed.filter((i) => typeof i.id === 'string' && i.id.length > 0).map(toRecord);
    // An empty answer is far likelier an upstream glitch than every bank vanishing: keep serving the cache.
    if (records.length === 0) return { count: 0, deleted: 0 };
    const constraints = await constraintsOf(this.upstream, records, (error, ids) =>
      this.logger.warn(
        { err: error, institutions: ids.length },
        'institutions refresh: constraints unread; the stored ones are kept for these',
      ),
    );
    for (const record of records) record.constraints = constraints.get(record.id) ?? null;
    const { upserted, deleted } = await this.institutions.replaceAll(records, now);
    return { count: upserted, deleted };
  }

  async list(filter: InstitutionFilter, limit: number, afterId?: string) {
    await this.fillIfEmpty();
    const { rows, more } = await this.institutions.list(filter, limit, afterId);
    return { institutions: rows.map(institutionView), nextAfterId: more ? (rows.at(-1)?.id ?? null) : null };
  }

  async get(id: string): Promise<InstitutionView> {
    await this.fillIfEmpty();
    const row = await this.institutions.findById(id);
    if (!row) throw new DomainError(ErrorCode.NOT_FOUND, 'Institution not found.');
    this.upstream.rememberInstitutions([row.id]);
    return institutionView(row);
  }

  /**
   * The institution a consent is asked of: from the cache, else from the upstream (a bank added since the
   * last refresh); null when the upstream does not know it either.
   */
  async offered(id: string): Promise<InstitutionView | null> {
    await this.fillIfEmpty();
    const row = await this.institutions.findById(id);
    if (row) {
      // Refreshed into the cache since this process started: its metrics may name it now.
      this.upstream.rememberInstitutions([row.id]);
      return institutionView(row);
    }
    try {
      return institutionView(toRecord((await this.upstream.institutions.get(id)).data));
    } catch (error) {
      // The upstream's own "no such institution" (a 400 naming it, or a 404); anything else is an outage.
      if (error instanceof UpstreamError && (error.status === 400 || error.status === 404)) return null;
      throw mapUpstreamFailure(error);
    }
  }

  /** A fresh deployment answers its first read from the upstream rather than with an empty list. */
  private async fillIfEmpty(): Promise<void> {
    if (await this.institutions.isEmpty()) await this.refreshInstitutions();
  }
}
