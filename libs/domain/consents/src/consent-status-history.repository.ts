import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { DatabasePool, row, sqlStatement } from '#libs/database';

/** One status a consent took: from which (null when it was created with it), and when. */
export interface ConsentStatusChangeView {
  from: string | null;
  to: string;
  changedAt: string;
}

const STATUS_CHANGE_ROW = row({
  id: 'string',
  from_status: 'string?',
  to_status: 'string',
  changed_at: 'Date',
});

export const CONSENT_STATUS_HISTORY_SQL = {
  page: sqlStatement(
    'consent-status-history.page',
    `SELECT id, from_status, to_status, changed_at FROM consent_status_changes
        WHERE consent_id = $2 AND merchant_id = $1 AND id > $3
        ORDER BY id LIMIT $4`,
    STATUS_CHANGE_ROW,
  ),
};

/**
 * Reads of `consent_status_changes`, which only the database writes (a trigger on `consents` records every
 * status change, whoever makes it): nothing here writes it, so no code path can forge or skip an entry.
 */
@Injectable()
export class ConsentStatusHistoryRepository {
  constructor(private readonly db: DatabasePool) {}

  /**
   * A consent's statuses oldest first, keyset-paged by the change's number (`afterId`, a decimal string).
   * `more`: a later page exists; its key is the last row's id.
   */
  async page(
    merchantId: MerchantId,
    consentId: string,
    limit: number,
    afterId = '0',
  ): Promise<{ changes: ConsentStatusChangeView[]; nextAfterId: string | undefined }> {
    const rows = await this.db.rows({
      ...CONSENT_STATUS_HISTORY_SQL.page,
      values: [merchantId, consentId, afterId, limit + 1],
    });
    const page = rows.slice(0, limit);
    return {
      changes: page.map((r) => ({
        from: r.from_status,
        to: r.to_status,
        changedAt: r.changed_at.toISOString(),
      })),
      nextAfterId: rows.length > limit ? page.at(-1)!.id : undefined,
    };
  }
}
