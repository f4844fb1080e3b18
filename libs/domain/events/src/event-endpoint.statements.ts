import { sqlStatement } from '#libs/database';
import type { MerchantEventType } from './event-catalogue.js';

// The statements EventEndpointRepository runs and the shapes it maps rows to, apart from its methods.

export interface EventEndpointView {
  id: string;
  url: string;
  types: MerchantEventType[];
  createdAt: Date;
  /** Until when the previous secret still signs alongside the current one (after a rotation). */
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  /** At most this many deliveries a second (EndpointThrottle); null: no limit. */
  rateLimit: number | null;
}

export const ENDPOINT_VIEW = {
  id: true,
  url: true,
  types: true,
  createdAt: true,
  previousSecretExpiresAt: true,
  failingSince: true,
  disabledAt: true,
  disabledReason: true,
  rateLimit: true,
} as const;

type EnumTypes = { types: string[] };
export const toView = <T extends EnumTypes>(row: T) =>
  ({ ...row, types: row.types.map(fromEnum) }) as unknown as EventEndpointView;
// Prisma spells the enum's values by their identifiers (CONSENT_AUTHORIZED); the API by their names.
const fromEnum = (value: string) => value.toLowerCase().replace('_', '.') as MerchantEventType;
export const toEnum = (type: MerchantEventType) => type.toUpperCase().replace('.', '_');

export const EVENT_ENDPOINT_SQL = {
  /** In a Prisma transaction. */
  lockForRotation: sqlStatement(
    undefined,
    'SELECT id FROM event_endpoints WHERE id = $1::uuid AND merchant_id = $2::uuid FOR UPDATE',
  ),
  /**
   * A new address starts its failure clock again; the same one keeps it (a PATCH cannot postpone
   * disabling). The rate limit changes when $5 says so ($6 null: no limit).
   */
  update: sqlStatement(
    'event-endpoints.update',
    `UPDATE event_endpoints SET url = COALESCE($3, url),
          types = COALESCE($4::merchant_event_type[], types),
          rate_limit = CASE WHEN $5::boolean THEN $6::int ELSE rate_limit END,
          failing_since = CASE WHEN $3 IS NOT NULL AND $3 <> url THEN NULL ELSE failing_since END,
          updated_at = now()
        WHERE id = $1 AND merchant_id = $2
        RETURNING id`,
    { id: 'string' },
  ),
  answering: sqlStatement(
    'event-endpoints.answering',
    `UPDATE event_endpoints SET failing_since = NULL, updated_at = now()
        WHERE id = $1 AND failing_since IS NOT NULL`,
  ),
  failing: sqlStatement(
    'event-endpoints.failing',
    `UPDATE event_endpoints SET failing_since = $2, updated_at = now()
        WHERE id = $1 AND failing_since IS NULL`,
  ),
  disableFailing: sqlStatement(
    'event-endpoints.disable-failing',
    `WITH disabled AS (
          UPDATE event_endpoints SET disabled_at = $2, updated_at = $2,
            disabled_reason = 'No delivery succeeded since ' || to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
              || '; disabled automatically. Fix the endpoint, then enable it again.'
          WHERE disabled_at IS NULL AND failing_since < $1
          RETURNING id, merchant_id, url, failing_since, disabled_at, disabled_reason),
        failed AS (
          UPDATE event_deliveries d SET status = 'FAILED', next_attempt_at = NULL, updated_at = $2,
            last_error = 'endpoint disabled'
          FROM disabled WHERE d.endpoint_id = disabled.id AND d.status = 'PENDING')
        SELECT id, merchant_id, url, failing_since, disabled_at, disabled_reason FROM disabled`,
    {
      id: 'string',
      merchant_id: 'string',
      url: 'string',
      failing_since: 'Date!',
      disabled_at: 'Date!',
      disabled_reason: 'string!',
    },
  ),
};
