import { Injectable } from '@nestjs/common';
import type { MerchantCaller } from '#libs/context';
import { column, DatabasePool, queryOn, row, type RowOf, sqlStatement } from '#libs/database';
import type { AuditAction, NewAuditEntry } from './audit-action.js';

// The merchant's name by a join on its key: each page reads at most its limit of merchants.
const COLUMNS = `a.id, a.seq, a.occurred_at, a.actor_kind, a.actor_key_id, a.merchant_id, m.name AS merchant_name,
  a.action, a.resource_type, a.resource_id, coalesce(a.fields, '{}') AS fields, a.source_ip, a.tracing_id`;
const FROM = 'audit_entries a LEFT JOIN merchants m ON m.id = a.merchant_id';

const ROW = row({
  id: 'string',
  /** bigint, as text. */
  seq: 'string',
  occurred_at: 'Date',
  actor_kind: column<'operator' | 'merchant'>('string'),
  actor_key_id: 'string?',
  merchant_id: 'string?',
  merchant_name: 'string?',
  action: column<AuditAction>('string'),
  resource_type: 'string',
  resource_id: 'string?',
  fields: 'string[]',
  source_ip: 'string',
  tracing_id: 'string',
});

export type AuditEntryRow = RowOf<typeof ROW>;

export const AUDIT_SQL = {
  append: sqlStatement(
    'audit-entries.append',
    `INSERT INTO audit_entries (id, actor_kind, actor_key_id, merchant_id, action, resource_type, resource_id,
        fields, source_ip, tracing_id)
      VALUES (uuid_generate_v7(), $1, $2, $3, $4, $5, $6, $7, $8, $9)`,
  ),
  /** The operator's page, newest first (by `seq`); every filter optional (null). */
  page: sqlStatement(
    'audit-entries.page',
    `SELECT ${COLUMNS} FROM ${FROM}
      WHERE ($1::uuid IS NULL OR a.merchant_id = $1) AND ($2::text IS NULL OR a.action = $2)
        AND ($3::bigint IS NULL OR a.seq < $3)
      ORDER BY a.seq DESC LIMIT $4`,
    ROW,
  ),
  /** One merchant's page: the tenant is not a filter here but the statement's condition. */
  merchantPage: sqlStatement(
    'audit-entries.merchant-page',
    `SELECT ${COLUMNS} FROM ${FROM}
      WHERE a.merchant_id = $1 AND ($2::text IS NULL OR a.action = $2) AND ($3::bigint IS NULL OR a.seq < $3)
      ORDER BY a.seq DESC LIMIT $4`,
    ROW,
  ),
  /** For its own transaction: the one setting under which the table's trigger lets a DELETE through. */
  allowRetention: sqlStatement(
    'audit-entries.allow-retention',
    `SELECT set_config('bff.audit_retention', 'on', true)`,
  ),
  /** The retention sweep's: the only DELETE the table's trigger lets through (it checks the setting). */
  deleteBefore: sqlStatement(
    'audit-entries.delete-before',
    `WITH gone AS (
        DELETE FROM audit_entries WHERE id IN (
          SELECT id FROM audit_entries WHERE occurred_at < $1 ORDER BY occurred_at LIMIT $2
          FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS deleted FROM gone`,
    { deleted: 'number' },
  ),
};

export interface AuditFilter {
  action: AuditAction | null;
  /** Entries written before this `seq` (a page's position), or from the newest. */
  beforeSeq: string | null;
  limit: number;
}

interface AuditRows {
  rows: AuditEntryRow[];
  more: boolean;
}

/** The one owner of `audit_entries`: it appends, pages and lets the retention sweep remove old rows. */
@Injectable()
export class AuditEntryRepository {
  constructor(private readonly db: DatabasePool) {}

  async append(entry: NewAuditEntry): Promise<void> {
    const { actor } = entry;
    await this.db.rows({
      ...AUDIT_SQL.append,
      values: [
        actor.kind,
        actor.kind === 'merchant' ? actor.apiKeyId : null,
        entry.merchantId,
        entry.action,
        entry.resourceType,
        entry.resourceId,
        entry.fields,
        entry.sourceIp,
        entry.tracingId,
      ],
    });
  }

  /** Any merchant's entries and the operator's own (the operator's view), or one merchant's. */
  async page(filter: AuditFilter & { merchantId: string | null }): Promise<AuditRows> {
    return this.pageBy(AUDIT_SQL.page, filter.merchantId, filter);
  }

  /** The entries concerning the caller's merchant. */
  async pageFor(caller: MerchantCaller, filter: AuditFilter): Promise<AuditRows> {
    return this.pageBy(AUDIT_SQL.merchantPage, caller.merchantId, filter);
  }

  private async pageBy(
    statement: typeof AUDIT_SQL.page,
    merchantId: string | null,
    filter: AuditFilter,
  ): Promise<AuditRows> {
    const rows = await this.db.rows({
      ...statement,
      values: [merchantId, filter.action, filter.beforeSeq, filter.limit + 1],
    });
    return { rows: rows.slice(0, filter.limit), more: rows.length > filter.limit };
  }

  async deleteBefore(cutoff: Date, limit: number): Promise<number> {
    return this.db.transaction(async (client) => {
      await queryOn(client, { ...AUDIT_SQL.allowRetention, values: [] });
      const { rows } = await queryOn(client, { ...AUDIT_SQL.deleteBefore, values: [cutoff, limit] });
      return rows[0]?.deleted ?? 0;
    });
  }
}
