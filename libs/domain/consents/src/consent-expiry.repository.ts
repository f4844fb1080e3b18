import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { MerchantId } from '#libs/context';
import { DatabasePool, queryOn, row, type RowOf, sqlStatement } from '#libs/database';
import { AccountSyncStateRepository } from '#libs/domain/accounts';
import { MerchantEventRepository } from '#libs/domain/events';
import { type AnnouncedConsent, consentEvent } from './consent-events.js';
import { allowedFrom, ConsentStatus } from './consent-status.js';

const RETURNED = `id, merchant_id, user_id, kind::text AS kind, status, institution_id, expires_at, last_error_code,
  reauthorisation_url`;

const RETURNED_ROW = row({
  id: 'string',
  merchant_id: 'string',
  user_id: 'string',
  kind: 'string',
  status: 'string',
  institution_id: 'string',
  expires_at: 'Date?',
  last_error_code: 'string?',
  reauthorisation_url: 'string?',
});

type Row = RowOf<typeof RETURNED_ROW>;

export const CONSENT_EXPIRY_SQL = {
  expire: sqlStatement(
    'consent-expiry.expire',
    `UPDATE consents SET status = $3, last_error_code = 'CONSENT_EXPIRED',
          last_error_message = 'The consent reached its expiry.', authorisation_url = NULL,
          reauthorisation_url = NULL, state_nonce = NULL, updated_at = $2
        WHERE id IN (
            -- Locked in id order: two scans over the same batch wait for each other, never deadlock.
            SELECT id FROM consents WHERE id = ANY($1::uuid[]) AND status = ANY($4::text[]) AND expires_at <= $2
            ORDER BY id FOR UPDATE)
          AND status = ANY($4::text[]) AND expires_at <= $2
        RETURNING ${RETURNED}`,
    RETURNED_ROW,
  ),
  warn: sqlStatement(
    'consent-expiry.warn',
    `UPDATE consents SET expiring_notified_at = $2
          WHERE id = ANY($1::uuid[]) AND status = 'AUTHORIZED' AND expiring_notified_at IS NULL
            AND expires_at > $2 AND expires_at <= $3
          RETURNING ${RETURNED}`,
    RETURNED_ROW,
  ),
  claimReauthorisation: sqlStatement(
    'consent-expiry.claim-reauthorisation',
    `UPDATE consents SET reauthorisation_requested_at = $3
        WHERE id = $2 AND merchant_id = $1 AND status = 'AUTHORIZED' AND expires_at <= $4
          AND reauthorisation_not_extended_at IS NULL AND auto_reauthorise
          AND (reauthorisation_requested_at IS NULL OR reauthorisation_requested_at < $3::timestamptz - interval '1 hour')
        RETURNING id`,
    { id: 'string' },
  ),
  offerUserPresentRenewal: sqlStatement(
    'consent-expiry.offer-user-present-renewal',
    `UPDATE consents SET reauthorisation_url = $3
        WHERE id = $2 AND merchant_id = $1 AND status = 'AUTHORIZED' AND reauthorisation_url IS NULL
        RETURNING ${RETURNED}`,
    RETURNED_ROW,
  ),
  releaseReauthorisation: sqlStatement(
    'consent-expiry.release-reauthorisation',
    `UPDATE consents SET reauthorisation_requested_at = NULL
        WHERE id = $2 AND merchant_id = $1 AND status = 'AUTHORIZED'`,
  ),
};

const announced = (r: Row): AnnouncedConsent => ({
  id: r.id,
  merchantId: r.merchant_id,
  userId: r.user_id,
  kind: r.kind,
  status: r.status,
  institutionId: r.institution_id,
  expiresAt: r.expires_at,
  lastErrorCode: r.last_error_code,
  reauthorisationUrl: r.reauthorisation_url,
});

/**
 * The consent state owner's batch half, for the expiry scan: the `expire` transition and the expiry
 * warning for a batch of consents in one statement each, guarded exactly as ConsentStateRepository guards
 * one (the same transition table), with their accounts stopped (by their owner, AccountSyncStateRepository)
 * and their events in the same transaction. Plus the claim that lets one
 * worker at a time ask the bank for a consent's re-authorisation.
 */
@Injectable()
export class ConsentExpiryRepository {
  constructor(
    private readonly db: DatabasePool,
    private readonly events: MerchantEventRepository,
    private readonly syncState: AccountSyncStateRepository,
  ) {}

  /** EXPIRED for those of `ids` past `now` and still where `expire` starts; their accounts stop syncing. */
  expire(ids: readonly string[], now: Date): Promise<number> {
    if (ids.length === 0) return Promise.resolve(0);
    return this.db.transaction(async (client) => {
      const { rows } = await queryOn(client, {
        ...CONSENT_EXPIRY_SQL.expire,
        values: [ids, now, ConsentStatus.Expired, allowedFrom('expire')],
      });
      await this.syncState.stopExpiredConsents(
        client,
        rows.map((r) => ({ merchantId: r.merchant_id, consentId: r.id })),
        now,
      );
      await this.announce(client, 'consent.expired', rows);
      return rows.length;
    });
  }

  /**
   * consent.expiring for those of `ids` still authorised, still expiring by `cutoff` (a re-authorisation
   * meanwhile moved the expiry out) and not yet warned of this expiry: their ids.
   */
  warn(ids: readonly string[], now: Date, cutoff: Date): Promise<Set<string>> {
    if (ids.length === 0) return Promise.resolve(new Set());
    return this.db.transaction(async (client) => {
      const { rows } = await queryOn(client, {
        ...CONSENT_EXPIRY_SQL.warn,
        values: [ids, now, cutoff],
      });
      await this.announce(client, 'consent.expiring', rows);
      return new Set(rows.map((r) => r.id));
    });
  }

  /**
   * The right to ask the upstream for this consent's re-authorisation: one caller at a time, only while it
   * still expires by `cutoff`, and never again after a completed re-authorisation that did not extend it
   * (asking again would bring the user back to the same expiry, every scan). A claim older than an hour
   * is taken over: its holder died between the claim and the answer (a live one has answered or released
   * it long before).
   */
  async claimReauthorisation(
    merchantId: MerchantId,
    consentId: string,
    now: Date,
    cutoff: Date,
  ): Promise<boolean> {
    const rows = await this.db.rows({
      ...CONSENT_EXPIRY_SQL.claimReauthorisation,
      values: [merchantId, consentId, now, cutoff],
    });
    return rows.length === 1;
  }

  /**
   * At a bank that requires the user present: our link on the consent, still AUTHORIZED (the bank was
   * not asked, so access goes on), and consent.reauthorisation_required with it, once per expiry (an
   * authorisation clears the link). Whether it was offered now.
   */
  offerUserPresentRenewal(merchantId: MerchantId, consentId: string, url: string): Promise<boolean> {
    return this.db.transaction(async (client) => {
      const { rows } = await queryOn(client, {
        ...CONSENT_EXPIRY_SQL.offerUserPresentRenewal,
        values: [merchantId, consentId, url],
      });
      await this.events.record(
        client,
        rows.map((r) => consentEvent('consent.reauthorisation_required', announced(r))),
      );
      return rows.length === 1;
    });
  }

  /** The upstream call failed: the next scan may try again. */
  async releaseReauthorisation(merchantId: MerchantId, consentId: string): Promise<void> {
    await this.db.rows({
      ...CONSENT_EXPIRY_SQL.releaseReauthorisation,
      values: [merchantId, consentId],
    });
  }

  private announce(client: pg.PoolClient, type: 'consent.expired' | 'consent.expiring', rows: Row[]) {
    return this.events.record(
      client,
      rows.map((r) => consentEvent(type, announced(r))),
    );
  }
}
