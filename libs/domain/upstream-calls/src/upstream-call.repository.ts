import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { DatabasePool } from '#libs/database';
import { isBigintKey } from '#libs/ids';
import { UPSTREAM_CALL_SQL, type UpstreamCallRow } from './upstream-call.statements.js';

/** One attempt as the recorder keeps it until its batch is written. */
export interface RecordedCall {
  merchantId: string;
  consentId: string | null;
  syncRunId: string | null;
  paymentId: string | null;
  operation: string;
  institutionId: string | null;
  status: number | null;
  errorCode: string | null;
  durationMs: number;
  attempt: number;
  tracingId: string | null;
  at: Date;
}

/** The keyset of a call log's pages: a call's id, a bigint as text. */
export const UPSTREAM_CALL_KEY = isBigintKey;

/** What a call log belongs to: a consent (its runs' calls too), a sync run or a payment. */
export type CallParent = 'consent' | 'sync-run' | 'payment';

const PAGE = {
  consent: UPSTREAM_CALL_SQL.consentPage,
  'sync-run': UPSTREAM_CALL_SQL.syncRunPage,
  payment: UPSTREAM_CALL_SQL.paymentPage,
} as const;

/** The one owner of `upstream_calls`: the recorder's batches, the API's pages, the lookup, the sweep. */
@Injectable()
export class UpstreamCallRepository {
  constructor(private readonly db: DatabasePool) {}

  async insertBatch(calls: readonly RecordedCall[]): Promise<void> {
    const column = <K extends keyof RecordedCall>(key: K) => calls.map((call) => call[key]);
    await this.db.rows({
      ...UPSTREAM_CALL_SQL.insertBatch,
      values: [
        column('merchantId'),
        column('consentId'),
        column('syncRunId'),
        column('paymentId'),
        column('operation'),
        column('institutionId'),
        column('status'),
        column('errorCode'),
        column('durationMs'),
        column('attempt'),
        column('tracingId'),
        column('at'),
      ],
    });
  }

  /**
   * Writes one entry at once; its id, or undefined when its merchant is gone. The entry must outlive our
   * process, not Postgres: a commit that does not wait for its WAL flush is durable against a SIGKILL of
   * ours and costs about a quarter as much (a crash of Postgres itself may lose its last ~0.6 s).
   */
  async insertOne(call: RecordedCall): Promise<string | undefined> {
    const [row] = await this.db.rows({
      ...UPSTREAM_CALL_SQL.insertOne,
      values: [
        call.merchantId,
        call.consentId,
        call.syncRunId,
        call.paymentId,
        call.operation,
        call.institutionId,
        call.status,
        call.errorCode,
        call.durationMs,
        call.attempt,
        call.tracingId,
        call.at,
      ],
    });
    return row?.id;
  }

  /** Sets the outcome of the entry `insertOne` wrote. */
  async complete(id: string, call: RecordedCall): Promise<void> {
    await this.db.rows({
      ...UPSTREAM_CALL_SQL.complete,
      values: [id, call.status, call.errorCode, call.durationMs, call.tracingId],
    });
  }

  /** A page of a parent's calls newest first, or null when the merchant has no such parent. */
  async pageOf(
    merchantId: MerchantId,
    parent: CallParent,
    id: string,
    limit: number,
    beforeId: string | undefined,
  ): Promise<{ calls: UpstreamCallRow[]; more: boolean } | null> {
    const rows = await this.db.rows({
      ...PAGE[parent],
      values: [merchantId, id, beforeId ?? null, limit + 1],
    });
    if (rows.length === 0) {
      const [exists] = await this.db.rows({
        ...UPSTREAM_CALL_SQL.parentExists,
        values: [merchantId, id, parent],
      });
      if (!exists?.found) return null;
    }
    return { calls: rows.slice(0, limit), more: rows.length > limit };
  }

  async deleteBefore(cutoff: Date, limit: number): Promise<number> {
    const [row] = await this.db.rows({ ...UPSTREAM_CALL_SQL.deleteBefore, values: [cutoff, limit] });
    return row?.deleted ?? 0;
  }
}
