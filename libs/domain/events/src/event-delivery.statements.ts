import { column, isoText, row, type RowOf, sqlStatement } from '#libs/database';
import type { DeliveryStatus, DeliveryView } from './delivery-views.js';
import type { MerchantEventType, MerchantEventWire } from './event-catalogue.js';

// The statements EventDeliveryRepository runs and the rows they answer, apart from its methods.

const VIEW_COLUMNS = `d.id, d.event_id, e.type::text AS event_type, d.status::text AS status, d.attempts,
  ${isoText('d.next_attempt_at')} AS next_attempt_at, ${isoText('d.last_attempt_at')} AS last_attempt_at,
  d.last_response_status, d.last_error, ${isoText('d.delivered_at')} AS delivered_at,
  ${isoText('d.created_at')} AS created_at`;

const VIEW_ROW = row({
  id: 'string',
  event_id: 'string',
  event_type: 'string',
  status: column<DeliveryStatus>('string'),
  attempts: 'number',
  next_attempt_at: 'string?',
  last_attempt_at: 'string?',
  last_response_status: 'number?',
  last_error: 'string?',
  delivered_at: 'string?',
  created_at: 'string',
});

export type ViewRow = RowOf<typeof VIEW_ROW>;

const WORK_ROW = row({
  id: 'string',
  endpoint_id: 'string',
  status: column<DeliveryStatus>('string'),
  attempts: 'number',
  next_attempt_at: 'Date?',
  event_id: 'string',
  type: column<MerchantEventWire['type']>('string'),
  event_created_at: 'Date',
  request_id: 'string?',
  created_at: 'string',
  user_id: 'string?',
  user_reference: 'string?',
  data: column<Record<string, unknown>>('json'),
  url: 'string',
  secret_ciphertext: 'string',
  secret_key_id: 'string',
  previous_secret_ciphertext: 'string?',
  previous_secret_key_id: 'string?',
  previous_secret_expires_at: 'Date?',
  failing: 'boolean',
  disabled: 'boolean',
  rate_limit: 'number?',
  merchant_disabled: 'boolean',
});

export type WorkRow = RowOf<typeof WORK_ROW>;

const listForEndpoint = (
  after: boolean,
) => `SELECT ${VIEW_COLUMNS} FROM event_deliveries d JOIN merchant_events e ON e.id = d.event_id
        WHERE d.endpoint_id = $2 AND d.merchant_id = $1 ${after ? 'AND d.id < $4' : ''}
        ORDER BY d.id DESC LIMIT $3`;

const ATTEMPT_ROW = row({
  delivery_found: 'boolean',
  attempt: 'number?',
  attempted_at: 'string?',
  duration_ms: 'number?',
  request_url: 'string?',
  request_headers: column<Record<string, string> | null>('json?'),
  request_body: 'string?',
  response_status: 'number?',
  response_content_type: 'string?',
  response_body: 'string?',
  response_body_truncated: 'boolean?',
  error: 'string?',
});

export type AttemptRow = RowOf<typeof ATTEMPT_ROW>;

// The delivery's row, joined to a page of its log: one round trip tells an unknown delivery (no row) from
// one with no attempt yet (one row of nulls).
const attemptsOf = (before: boolean) => `SELECT true AS delivery_found, a.attempt,
          ${isoText('a.attempted_at')} AS attempted_at, a.duration_ms, a.request_url, a.request_headers,
          a.request_body, a.response_status, a.response_content_type, a.response_body,
          a.response_body_truncated, a.error
        FROM event_deliveries d
        LEFT JOIN LATERAL (
          SELECT * FROM event_delivery_attempts x
          WHERE x.delivery_id = d.id ${before ? 'AND x.attempt < $5' : ''}
          ORDER BY x.attempt DESC LIMIT $4) a ON true
        WHERE d.id = $3 AND d.endpoint_id = $2 AND d.merchant_id = $1
        ORDER BY a.attempt DESC`;

/** Typed, so the statement below names a catalogue type the compiler knows. */
const ENDPOINT_DISABLED: MerchantEventType = 'endpoint.disabled';

export const EVENT_DELIVERY_SQL = {
  createForEvents: sqlStatement(
    'event-deliveries.create-for-events',
    `INSERT INTO event_deliveries
          (merchant_id, endpoint_id, event_id, status, next_attempt_at, last_error, updated_at)
        SELECT e.merchant_id, ep.id, e.id,
          CASE WHEN ep.disabled_at IS NULL THEN 'PENDING' ELSE 'FAILED' END::delivery_status,
          CASE WHEN ep.disabled_at IS NULL THEN now() END,
          CASE WHEN ep.disabled_at IS NULL THEN NULL ELSE 'endpoint disabled' END,
          now()
        FROM merchant_events e
        JOIN event_endpoints ep ON ep.merchant_id = e.merchant_id
          AND (cardinality(ep.types) = 0 OR e.type = ANY(ep.types))
        WHERE e.id = ANY($1::uuid[])
          -- An endpoint is not told it was disabled: it is the one that cannot hear it.
          AND NOT (e.type = '${ENDPOINT_DISABLED}' AND e.data->>'endpointId' = ep.id::text)
        ORDER BY e.seq
        ON CONFLICT (endpoint_id, event_id) DO NOTHING
        RETURNING id, event_id, status = 'PENDING' AS pending`,
    { id: 'string', event_id: 'string', pending: 'boolean' },
  ),
  failDisabled: sqlStatement(
    'event-deliveries.fail-disabled',
    `UPDATE event_deliveries SET status = 'FAILED', next_attempt_at = NULL, last_error = 'endpoint disabled',
          updated_at = $3
        WHERE id = $1 AND attempts = $2 AND status = 'PENDING'`,
  ),
  work: sqlStatement(
    'event-deliveries.work',
    `SELECT d.id, d.endpoint_id, d.status::text AS status, d.attempts, d.next_attempt_at,
          e.id AS event_id, e.type::text AS type, e.created_at AS event_created_at, e.request_id,
          ${isoText('e.created_at')} AS created_at, e.user_id, e.user_reference, e.data,
          ep.url, ep.secret_ciphertext, ep.secret_key_id, ep.previous_secret_ciphertext,
          ep.previous_secret_key_id, ep.previous_secret_expires_at,
          ep.failing_since IS NOT NULL AS failing, ep.disabled_at IS NOT NULL AS disabled, ep.rate_limit,
          m.disabled_at IS NOT NULL AS merchant_disabled
        FROM event_deliveries d
        JOIN merchant_events e ON e.id = d.event_id
        JOIN event_endpoints ep ON ep.id = d.endpoint_id
        JOIN merchants m ON m.id = d.merchant_id
        WHERE d.id = $1`,
    WORK_ROW,
  ),
  // Waiting for its turn under the endpoint's rate limit: due later, and not an attempt (the count and the
  // log are left as they are). Guarded like an attempt, so it never postpones one another job recorded.
  deferForThrottle: sqlStatement(
    'event-deliveries.defer-for-throttle',
    `UPDATE event_deliveries SET next_attempt_at = $3, updated_at = $4
        WHERE id = $1 AND attempts = $2 AND status = 'PENDING'`,
  ),
  // One statement: the attempt enters the log only when the guarded update counted it, so the log holds
  // exactly the counted attempts, numbered as counted, even when a duplicated job raced this one.
  recordAttempt: sqlStatement(
    'event-deliveries.record-attempt',
    `WITH counted AS (
          UPDATE event_deliveries SET status = $3::delivery_status, attempts = attempts + 1,
            last_attempt_at = $4, last_response_status = $5, last_error = $6, next_attempt_at = $7,
            delivered_at = CASE WHEN $3 = 'SUCCEEDED' THEN $4 ELSE delivered_at END, updated_at = $4
          WHERE id = $1 AND attempts = $2 AND status = 'PENDING'
          RETURNING id, merchant_id, attempts)
        INSERT INTO event_delivery_attempts (delivery_id, attempt, merchant_id, attempted_at, duration_ms,
            request_url, request_headers, request_body, response_status, response_content_type, response_body,
            response_body_truncated, error)
          SELECT id, attempts, merchant_id, $4, $8::int, $9::text, $10::jsonb, $11::text, $5, $12::text,
            $13::text, $14::boolean, $6 FROM counted
        RETURNING delivery_id AS id`,
    { id: 'string' },
  ),
  requeue: sqlStatement(
    'event-deliveries.requeue',
    `WITH updated AS (
          UPDATE event_deliveries d SET status = 'PENDING', next_attempt_at = $4, updated_at = $4
          FROM event_endpoints ep
          WHERE d.id = $3 AND d.endpoint_id = $2 AND d.merchant_id = $1
            AND ep.id = d.endpoint_id AND ep.disabled_at IS NULL
          RETURNING d.*)
        SELECT ${VIEW_COLUMNS} FROM updated d JOIN merchant_events e ON e.id = d.event_id`,
    VIEW_ROW,
  ),
  // At most $5 of the endpoint's deliveries FAILED since $3, oldest first, pending again and due at $4;
  // `more` says whether others were left. Only FAILED rows change (the update re-reads the status under
  // the row's lock), so a delivery pending or sent meanwhile, by a concurrent recovery too, is left alone.
  recoverFailed: sqlStatement(
    'event-deliveries.recover-failed',
    `WITH candidates AS (
          SELECT d.id, d.created_at FROM event_deliveries d
          WHERE d.merchant_id = $1 AND d.endpoint_id = $2 AND d.status = 'FAILED' AND d.created_at >= $3
          ORDER BY d.created_at, d.id LIMIT $5::int + 1),
        chosen AS (SELECT id FROM candidates ORDER BY created_at, id LIMIT $5::int),
        updated AS (
          UPDATE event_deliveries d SET status = 'PENDING', next_attempt_at = $4, updated_at = $4
          FROM chosen c, event_endpoints ep
          WHERE d.id = c.id AND d.status = 'FAILED' AND ep.id = d.endpoint_id AND ep.disabled_at IS NULL
          RETURNING d.id)
        SELECT ARRAY(SELECT id::text FROM updated) AS ids,
          (SELECT count(*) FROM candidates) > $5::int AS more`,
    { ids: 'string[]', more: 'boolean' },
  ),
  listFirst: sqlStatement('event-deliveries.list-first', listForEndpoint(false), VIEW_ROW),
  /** Null when the merchant has no such delivery on that endpoint; else its log, a page of it. */
  attemptsFirst: sqlStatement('event-deliveries.attempts-first', attemptsOf(false), ATTEMPT_ROW),
  attemptsBefore: sqlStatement('event-deliveries.attempts-before', attemptsOf(true), ATTEMPT_ROW),
  listAfter: sqlStatement('event-deliveries.list-after', listForEndpoint(true), VIEW_ROW),
  findForTracingLookup: sqlStatement(
    'event-deliveries.find-for-tracing-lookup',
    // By the primary key and the event_id index, never a scan of the merchant's deliveries.
    `SELECT ${VIEW_COLUMNS}, d.endpoint_id FROM event_deliveries d JOIN merchant_events e ON e.id = d.event_id
        WHERE d.merchant_id = $1::uuid AND d.id IN (
          SELECT id FROM event_deliveries WHERE id = $2::uuid AND merchant_id = $1::uuid
          UNION ALL
          SELECT id FROM event_deliveries WHERE event_id = ANY($3::uuid[]) AND merchant_id = $1::uuid)
        ORDER BY d.id DESC LIMIT $4`,
    { ...VIEW_ROW, endpoint_id: 'string' },
  ),
  overdue: sqlStatement(
    'event-deliveries.overdue',
    `SELECT d.id, e.trace_context FROM event_deliveries d JOIN merchants m ON m.id = d.merchant_id
          JOIN merchant_events e ON e.id = d.event_id
        WHERE d.status = 'PENDING' AND d.next_attempt_at < $1 AND m.disabled_at IS NULL
        ORDER BY d.next_attempt_at LIMIT $2`,
    { id: 'string', trace_context: 'string?' },
  ),
};

export const toView = (r: ViewRow): DeliveryView => ({
  id: r.id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  lastAttemptAt: r.last_attempt_at,
  lastResponseStatus: r.last_response_status,
  lastError: r.last_error,
  deliveredAt: r.delivered_at,
  createdAt: r.created_at,
});
