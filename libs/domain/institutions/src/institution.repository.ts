import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService, sqlTemplate } from '#libs/database';

export interface InstitutionRecord {
  id: string;
  name: string;
  fullName: string | null;
  countries: string[];
  features: string[];
  environmentType: string | null;
  credentialsType: string | null;
  raw: unknown;
  /** Null when this refresh could not read the institution's constraints: the stored ones are kept. */
  constraints: InstitutionConstraints | null;
}

/** What an institution requires, from its data and payment constraints. */
export interface InstitutionConstraints {
  psuHeaders: PsuHeaderNeeds;
  /** Its account authorisations must name a transaction range (spec 2.5: mandatory where supported). */
  transactionRange: boolean;
}

/** The PSU headers (`psu-id`, `psu-corporate-id`, `psu-ip-address`) an institution requires, by purpose. */
export interface PsuHeaderNeeds {
  /** To create an account authorisation (redirect, embedded, re-authorisation, pre-authorisation update). */
  connect: string[];
  /** To create a payment authorisation. */
  pay: string[];
}

export interface InstitutionFilter {
  country?: string;
  feature?: string;
  q?: string;
}

/** Serialises refreshes (an on-demand one and the worker's may overlap); any constant unique to this table. */
const REFRESH_LOCK = 0x1e57_1707;

/** In the refresh's Prisma transaction. */
export const INSTITUTION_SQL = {
  lockRefresh: sqlTemplate(
    'institutions.lock-refresh',
    (lock: number) => Prisma.sql`SELECT pg_advisory_xact_lock(${lock})`,
  ),
  upsert: sqlTemplate(
    'institutions.upsert',
    (rows: string, now: Date) => Prisma.sql`
        INSERT INTO institutions
          (id, name, full_name, countries, features, environment_type, credentials_type, raw, constraints,
           refreshed_at, updated_at)
        SELECT r->>'id', r->>'name', r->>'fullName',
               ARRAY(SELECT jsonb_array_elements_text(r->'countries')),
               ARRAY(SELECT jsonb_array_elements_text(r->'features')),
               r->>'environmentType', r->>'credentialsType', r->'raw', NULLIF(r->'constraints', 'null'::jsonb),
               ${now}, ${now}
        FROM jsonb_array_elements(${rows}::jsonb) AS r
        ON CONFLICT (id) DO UPDATE SET
          name = EXCLUDED.name, full_name = EXCLUDED.full_name, countries = EXCLUDED.countries,
          features = EXCLUDED.features, environment_type = EXCLUDED.environment_type,
          credentials_type = EXCLUDED.credentials_type, raw = EXCLUDED.raw,
          constraints = COALESCE(EXCLUDED.constraints, institutions.constraints),
          refreshed_at = EXCLUDED.refreshed_at, updated_at = EXCLUDED.updated_at`,
  ),
  /**
   * An operator's word on the bank's daily allowance ($2, null: the default); every merchant with an
   * account there is told, as a change of its accounts would (their answers show the allowance).
   */
  setUnattendedReadsPerDay: sqlTemplate(
    'institutions.set-unattended-reads-per-day',
    (id: string, perDay: number | null) => Prisma.sql`
        WITH changed AS (
          UPDATE institutions SET unattended_reads_per_day = ${perDay}::int, updated_at = now()
          WHERE id = ${id} RETURNING id)
        SELECT (SELECT count(*) FROM changed)::int AS changed,
          (SELECT count(pg_notify('bff_read_cache', m.merchant_id::text))
            FROM (SELECT DISTINCT a.merchant_id FROM accounts a JOIN changed c ON a.institution_id = c.id) m)::int
            AS told`,
  ),
  deleteUnrefreshed: sqlTemplate(
    'institutions.delete-unrefreshed',
    (now: Date) => Prisma.sql`DELETE FROM institutions WHERE refreshed_at < ${now}`,
  ),
};

/** The institutions cache. Reference data, shared by every merchant: no merchant id to scope by. */
@Injectable()
export class InstitutionRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Replaces the cache with `records` in one transaction: one INSERT … ON CONFLICT upserts every row, then
   * rows this refresh did not touch are deleted. Readers see the old list or the new one, never half.
   */
  async replaceAll(records: InstitutionRecord[], now: Date): Promise<{ upserted: number; deleted: number }> {
    const rows = JSON.stringify(records);
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw(INSTITUTION_SQL.lockRefresh(REFRESH_LOCK));
      const upserted = await tx.$executeRaw(INSTITUTION_SQL.upsert(rows, now));
      const deleted = await tx.$executeRaw(INSTITUTION_SQL.deleteUnrefreshed(now));
      return { upserted, deleted };
    });
  }

  /** Whether the institution is cached (and so took the setting). */
  async setUnattendedReadsPerDay(id: string, perDay: number | null): Promise<boolean> {
    const [row] = await this.prisma.$queryRaw<{ changed: number }[]>(
      INSTITUTION_SQL.setUnattendedReadsPerDay(id, perDay),
    );
    return row.changed === 1;
  }

  async isEmpty(): Promise<boolean> {
    return (await this.prisma.institution.findFirst({ select: { id: true } })) === null;
  }

  /** Every cached institution's id, in id order. */
  async allIds(): Promise<string[]> {
    const rows = await this.prisma.institution.findMany({ select: { id: true }, orderBy: { id: 'asc' } });
    return rows.map((row) => row.id);
  }

  findById(id: string) {
    return this.prisma.institution.findUnique({ where: { id } });
  }

  /** Keyset page in id order; `hasEvery` compiles to `@>`, which the GIN index on countries serves. */
  async list(filter: InstitutionFilter, limit: number, afterId?: string) {
    const where: Prisma.InstitutionWhereInput = {
      ...(afterId !== undefined ? { id: { gt: afterId } } : {}),
      ...(filter.country ? { countries: { hasEvery: [filter.country] } } : {}),
      ...(filter.feature ? { features: { hasEvery: [filter.feature] } } : {}),
      ...(filter.q ? { name: { contains: filter.q, mode: 'insensitive' } } : {}),
    };
    const rows = await this.prisma.institution.findMany({ where, orderBy: { id: 'asc' }, take: limit + 1 });
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }
}
