import { currentRequestId } from '#libs/context';
import { column, isoText, outerJoined, row, type RowOf, sqlStatement } from '#libs/database';
import { uuidV7 } from '#libs/ids';
import { currentTraceContext } from '#libs/observability';
import type { MerchantEventType, MerchantEventWire } from './event-catalogue.js';

// The statements MerchantEventRepository runs, the rows they answer and the wire form made of them, apart
// from its methods.

export interface NewMerchantEvent {
  merchantId: string;
  userId: string | null;
  type: MerchantEventType;
  data: Record<string, unknown>;
}

/** An event the relay has just numbered. */
export interface RelayedEvent {
  id: string;
  merchantId: string;
  userId: string | null;
  streamSeq: string;
  /** The trace that recorded it (currentTraceContext's form), when tracing was on. */
  traceContext: string | null;
}

/** An event of a user's stream: the wire form and its stream position (the SSE id). */
export interface StreamedEvent {
  streamSeq: string;
  event: MerchantEventWire;
}

// One statement: the rows, then a NOTIFY that Postgres delivers when (and only if) the transaction
// commits, so the relay wakes for committed events and never for rolled-back ones. The user's reference
// is read here, once, so every recorder of an event names the customer the same way.
const RECORD_SQL = `WITH inserted AS (
    INSERT INTO merchant_events (id, merchant_id, user_id, user_reference, type, data, request_id, trace_context)
    SELECT r.id, r.merchant_id, r.user_id, u.reference, r.type::merchant_event_type, r.data, r.request_id,
      r.trace_context
    FROM jsonb_to_recordset($1::jsonb)
      AS r(id uuid, merchant_id uuid, user_id uuid, type text, data jsonb, request_id text, trace_context text)
      LEFT JOIN users u ON u.id = r.user_id AND u.merchant_id = r.merchant_id
    RETURNING 1)
  SELECT pg_notify('merchant_events', count(*)::text) FROM inserted`;

const WIRE_COLUMNS = `id, type::text AS type, ${isoText('created_at')} AS created_at, user_id, user_reference, data, stream_seq::text AS stream_seq`;

export function recordValues(events: readonly NewMerchantEvent[]): string {
  // The request or job recording them: the outbox remembers what caused each event, and the trace its
  // deliveries continue.
  const requestId = currentRequestId() ?? null;
  const traceContext = currentTraceContext();
  return JSON.stringify(
    events.map((e) => ({
      id: uuidV7(),
      merchant_id: e.merchantId,
      user_id: e.userId,
      type: e.type,
      data: e.data,
      request_id: requestId,
      trace_context: traceContext,
    })),
  );
}

const WIRE_TYPES = row({
  id: 'string',
  type: column<MerchantEventType>('string'),
  created_at: 'string',
  user_id: 'string?',
  user_reference: 'string?',
  data: column<Record<string, unknown>>('json'),
  stream_seq: 'string',
});

export type WireRow = RowOf<typeof WIRE_TYPES>;

/** Why a caller may no longer read a user's stream (see `streamForCaller`). */
export type StreamRefusal = 'merchant-disabled' | 'user-erased' | 'key-revoked' | 'session-ended';

/** A row of `streamForCaller`: the refusal, else an event (or, past the last, no event at all). */
const STREAM_ROW = { refusal: column<StreamRefusal | null>('string?'), ...outerJoined(WIRE_TYPES) };

export type StreamRow = RowOf<typeof STREAM_ROW>;

export const MERCHANT_EVENT_SQL = {
  /** On the pg pool (named), and in a Prisma transaction (its text). */
  record: sqlStatement('merchant-events.record', RECORD_SQL),
  numberUnrelayed: sqlStatement(
    'merchant-events.number-unrelayed',
    `WITH batch AS (
          SELECT b.id, row_number() OVER (ORDER BY b.seq) AS n
          FROM (SELECT id, seq FROM merchant_events WHERE stream_seq IS NULL ORDER BY seq LIMIT $2 FOR UPDATE) b)
        UPDATE merchant_events m SET stream_seq = $1::bigint + batch.n
        FROM batch WHERE m.id = batch.id
        RETURNING m.id, m.merchant_id, m.user_id, m.stream_seq::text AS stream_seq, m.trace_context`,
    {
      id: 'string',
      merchant_id: 'string',
      user_id: 'string?',
      stream_seq: 'string',
      trace_context: 'string?',
    },
  ),
  streamForCaller: sqlStatement(
    'merchant-events.stream-for-caller',
    // One round trip: whether the caller may still read the stream, and only then its next page (a
    // refused read answers one row, the refusal and no event). The checks run in the order the auth
    // guards make them, so the refusal is the one the caller's next request gets: a key (then its
    // merchant, then the user, at the route), a console session made from the key ($6) with it; a session's
    // user (then its merchant). Ordered by the table's bigint column: the text the wire needs would sort 10
    // before 9.
    `WITH access AS (
        SELECT CASE
            WHEN $6::uuid IS NOT NULL AND NOT EXISTS (
              SELECT 1 FROM console_sessions s
              WHERE s.id = $6::uuid AND s.ended_at IS NULL AND s.expires_at > now()) THEN 'session-ended'
            WHEN $5::uuid IS NOT NULL AND NOT EXISTS (
              SELECT 1 FROM api_keys k
              WHERE k.id = $5::uuid AND k.merchant_id = $1 AND k.revoked_at IS NULL
                AND (k.expires_at IS NULL OR k.expires_at > now())) THEN 'key-revoked'
            WHEN $5::uuid IS NULL AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = $2 AND u.merchant_id = $1)
              THEN 'user-erased'
            WHEN mc.disabled_at IS NOT NULL THEN 'merchant-disabled'
            WHEN NOT EXISTS (SELECT 1 FROM users u WHERE u.id = $2 AND u.merchant_id = $1) THEN 'user-erased'
          END AS refusal
        FROM (SELECT 1) AS one LEFT JOIN merchants mc ON mc.id = $1),
      page AS (
        SELECT ${WIRE_COLUMNS}, m.stream_seq AS position FROM merchant_events m
        WHERE m.user_id = $2 AND m.merchant_id = $1 AND m.stream_seq > $3::bigint
          AND (SELECT refusal FROM access) IS NULL
        ORDER BY m.stream_seq LIMIT $4)
      SELECT a.refusal, p.id, p.type, p.created_at, p.user_id, p.user_reference, p.data, p.stream_seq
      FROM access a LEFT JOIN page p ON true ORDER BY p.position`,
    STREAM_ROW,
  ),
  listForMerchant: sqlStatement(
    'merchant-events.list-for-merchant',
    // Newest first in stream order, each filter optional (a null parameter filters nothing). Ordered by
    // the table's bigint column (m.): the wire's text column of the same name would sort 10 before 9.
    `SELECT ${WIRE_COLUMNS} FROM merchant_events m
      WHERE m.merchant_id = $1 AND m.stream_seq IS NOT NULL
        AND ($2::bigint IS NULL OR m.stream_seq < $2::bigint)
        AND ($3::text IS NULL OR m.type = $3::merchant_event_type)
        AND ($4::uuid IS NULL OR m.user_id = $4::uuid)
        AND ($5::timestamptz IS NULL OR m.created_at >= $5::timestamptz)
        AND ($6::timestamptz IS NULL OR m.created_at < $6::timestamptz)
      ORDER BY m.stream_seq DESC LIMIT $7`,
    WIRE_TYPES,
  ),
  findForMerchant: sqlStatement(
    'merchant-events.find-for-merchant',
    `SELECT ${WIRE_COLUMNS} FROM merchant_events
      WHERE id = $1 AND merchant_id = $2 AND stream_seq IS NOT NULL`,
    WIRE_TYPES,
  ),
  findForTracingLookup: sqlStatement(
    'merchant-events.find-for-tracing-lookup',
    // Each way in by its own index (the primary key, the request's, the run's expression index), so a
    // merchant with many events is never scanned; the few found are then ordered. Relayed events only, as
    // every merchant read.
    `SELECT ${WIRE_COLUMNS} FROM merchant_events m
        WHERE m.merchant_id = $1::uuid AND m.stream_seq IS NOT NULL AND m.id IN (
          SELECT id FROM merchant_events WHERE id = $2::uuid AND merchant_id = $1::uuid
          UNION ALL
          SELECT id FROM merchant_events WHERE merchant_id = $1::uuid AND request_id IS NOT NULL
            AND request_id = $3::text
          UNION ALL
          SELECT id FROM merchant_events WHERE merchant_id = $1::uuid AND (data ->> 'syncId') IS NOT NULL
            AND (data ->> 'syncId') = ANY($4::text[]))
        ORDER BY m.stream_seq DESC LIMIT $5`,
    WIRE_TYPES,
  ),
  latestStreamSeq: sqlStatement(
    'merchant-events.latest-stream-seq',
    `SELECT max(stream_seq)::text AS seq FROM merchant_events WHERE user_id = $2 AND merchant_id = $1`,
    { seq: 'string?' },
  ),
  deleteRelayedBefore: sqlStatement(
    'merchant-events.delete-relayed-before',
    `WITH gone AS (
          DELETE FROM merchant_events WHERE id IN (
            SELECT e.id FROM merchant_events e
            WHERE e.created_at < $1 AND e.stream_seq IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = e.id AND d.status = 'PENDING')
            ORDER BY e.created_at LIMIT $2 FOR UPDATE OF e SKIP LOCKED)
          RETURNING stream_seq)
        SELECT count(*)::int AS deleted, max(stream_seq)::text AS through FROM gone`,
    { deleted: 'number', through: 'string?' },
  ),
};

export const toStreamed = (row: WireRow): StreamedEvent => ({
  streamSeq: row.stream_seq,
  event: {
    id: row.id,
    type: row.type,
    createdAt: row.created_at,
    userId: row.user_id,
    userReference: row.user_reference,
    data: row.data,
  },
});
