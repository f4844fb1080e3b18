// The scale bench's event-table measures: stored events' read plans, and retention two ways.
import { explain } from './scale-measures.mjs';

/** Rows one INSERT adds while loading: progress, and no statement that runs for minutes. */
export const CHUNK = 1_000_000;

/**
 * `count` events over every user, 1% with a delivery still pending, then the plans of the statements that
 * read the table: a user's stream from its start and from its middle (SSE replay, a page of 500), the
 * delivery sweep's batch, and a retention batch's choice of rows (its SELECT; nothing is deleted).
 */
export async function storedEventPlans(db, count, log) {
  log(`events: ${count.toLocaleString('en')} stored over the users, 1% with a delivery pending`);
  const [{ top }] = (
    await db.query('SELECT coalesce(max(stream_seq), 0)::bigint AS top FROM merchant_events')
  ).rows;
  const [endpoint] = (
    await db.query(
      `INSERT INTO event_endpoints (id, merchant_id, url, secret_ciphertext, secret_key_id, updated_at)
       SELECT uuid_generate_v7(), id, 'https://example.com/hooks', 'bench', 'bench', now() FROM merchants LIMIT 1
       RETURNING id, merchant_id`,
    )
  ).rows;
  const [{ users }] = (await db.query('SELECT count(*)::int AS users FROM users')).rows;
  for (let done = 0; done < count; done += CHUNK) {
    const n = Math.min(CHUNK, count - done);
    await db.query(
      // The user count as a value: a join on `g % n` with n a column of the same side could not hash.
      `WITH u AS (SELECT id, merchant_id, row_number() OVER (ORDER BY id) - 1 AS k FROM users),
         e AS (
           INSERT INTO merchant_events (id, merchant_id, user_id, type, data, created_at, stream_seq)
           SELECT uuid_generate_v7(), u.merchant_id, u.id, 'sync.succeeded',
             jsonb_build_object('accountId', gen_random_uuid(), 'fetched', g % 1000),
             now() - make_interval(secs => (($4::bigint - $2 - g) * 25 * 86400 / $4)::int), $3::bigint + $2 + g
           FROM generate_series(1, $1) g JOIN u ON u.k = g % $7
           RETURNING id, stream_seq)
       INSERT INTO event_deliveries (merchant_id, endpoint_id, event_id, status, next_attempt_at, updated_at)
       SELECT $5, $6, e.id, 'PENDING', now() + make_interval(secs => (e.stream_seq % 3600)::int - 60), now()
       FROM e WHERE e.stream_seq % 100 = 0`,
      [n, done, top, count, endpoint.merchant_id, endpoint.id, users],
    );
    log(`events: ${(done + n).toLocaleString('en')}`);
  }
  await db.query('VACUUM ANALYZE merchant_events');
  await db.query('VACUUM ANALYZE event_deliveries');
  const [user] = (
    await db.query(
      `SELECT user_id, merchant_id, (SELECT stream_seq FROM merchant_events m2 WHERE m2.user_id = m.user_id
         ORDER BY stream_seq OFFSET 20 LIMIT 1)::text AS middle
       FROM merchant_events m WHERE stream_seq > $1 LIMIT 1`,
      [top],
    )
  ).rows;
  const stream = `SELECT id, type::text, created_at, user_id, data, stream_seq FROM merchant_events m
    WHERE m.user_id = $2 AND m.merchant_id = $1 AND m.stream_seq > $3::bigint ORDER BY m.stream_seq LIMIT 500`;
  const plans = {
    streamFromStart: await explain(db, stream, [user.merchant_id, user.user_id, '0']),
    streamFromMiddle: await explain(db, stream, [user.merchant_id, user.user_id, user.middle]),
    deliverySweep: await explain(
      db,
      `SELECT d.id FROM event_deliveries d JOIN merchants m ON m.id = d.merchant_id
       WHERE d.status = 'PENDING' AND d.next_attempt_at < now() AND m.disabled_at IS NULL
       ORDER BY d.next_attempt_at LIMIT 500`,
      [],
    ),
    retentionBatch: await explain(
      db,
      `SELECT e.id FROM merchant_events e
       WHERE e.created_at < now() - interval '20 days' AND e.stream_seq IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = e.id AND d.status = 'PENDING')
       ORDER BY e.created_at LIMIT 1000 FOR UPDATE OF e SKIP LOCKED`,
      [],
    ),
  };
  const [{ bytes }] = (await db.query(`SELECT pg_total_relation_size('merchant_events')::bigint AS bytes`))
    .rows;
  for (const [name, p] of Object.entries(plans))
    log(
      `events at ${count.toLocaleString('en')} (${(Number(bytes) / 2 ** 30).toFixed(1)} GiB): ${name} ${p.ms.toFixed(2)} ms, ${p.sorts ? 'SORTS' : 'no sort'}, ${p.seqScans.length ? `SEQ SCAN ${p.seqScans.join('; ')}` : 'no seq scan'}, indexes ${p.indexes.join(', ')}`,
    );
  return { count, tableBytes: Number(bytes), plans };
}

/**
 * The retention sweep's batched deletes (the statement EventsRetentionService runs, 1,000 rows a time) against
 * dropping day partitions of a partitioned copy, on the same `count` events spread over 60 days.
 */
export async function retentionTwoWays(db, merchantId, count, log) {
  log(`retention: ${count.toLocaleString('en')} events over 60 days, half of them past 30 days`);
  // After the stream positions of the events the measured syncs recorded.
  const [{ top }] = (
    await db.query('SELECT coalesce(max(stream_seq), 0)::bigint AS top FROM merchant_events')
  ).rows;
  const events = (table) =>
    db.query(
      `INSERT INTO ${table} (id, merchant_id, type, data, created_at, stream_seq)
       SELECT uuid_generate_v7(), $1, 'sync.succeeded', jsonb_build_object('n', g),
         now() - make_interval(secs => (g::bigint * 60 * 86400 / $2)::int), $3::bigint + g
       FROM generate_series(1, $2) g`,
      [merchantId, count, top],
    );
  await events('merchant_events');
  await db.query('VACUUM ANALYZE merchant_events');
  const cutoff = new Date(Date.now() - 30 * 86_400_000);
  const batches = [];
  const t0 = Date.now();
  for (;;) {
    const b0 = process.hrtime.bigint();
    const { rowCount } = await db.query(
      `DELETE FROM merchant_events WHERE id IN (
         SELECT e.id FROM merchant_events e
         WHERE e.created_at < $1 AND e.stream_seq IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = e.id AND d.status = 'PENDING')
         ORDER BY e.created_at LIMIT 1000 FOR UPDATE OF e SKIP LOCKED)`,
      [cutoff],
    );
    batches.push(Number(process.hrtime.bigint() - b0) / 1e6);
    if (rowCount < 1000) break;
  }
  const deleteMs = Date.now() - t0;
  const v0 = Date.now();
  await db.query('VACUUM merchant_events');
  const vacuumMs = Date.now() - v0;

  // The same rows in a copy partitioned by day (as Postgres requires, the partition key in its unique key).
  await db.query(`CREATE TABLE scale_events_by_day (LIKE merchant_events INCLUDING DEFAULTS,
    PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at)`);
  for (let day = 0; day <= 61; day++) {
    await db.query(
      `CREATE TABLE scale_events_day_${day} PARTITION OF scale_events_by_day
       FOR VALUES FROM (date_trunc('day', now()) - make_interval(days => ${day}))
       TO (date_trunc('day', now()) - make_interval(days => ${day - 1}))`,
    );
  }
  await db.query('CREATE INDEX ON scale_events_by_day (user_id, stream_seq)');
  await events('scale_events_by_day');
  const d0 = Date.now();
  for (let day = 31; day <= 61; day++) await db.query(`DROP TABLE scale_events_day_${day}`);
  const dropMs = Date.now() - d0;
  await db.query('DROP TABLE scale_events_by_day');
  batches.sort((a, b) => a - b);
  const result = {
    events: count,
    batched: { ms: deleteMs, batches: batches.length, longestBatchMs: batches.at(-1), vacuumMs },
    partitions: { dropMs, dropped: 31 },
  };
  log(
    `retention: batched deletes ${(deleteMs / 1000).toFixed(1)} s in ${batches.length} batches (longest ${batches.at(-1).toFixed(1)} ms), VACUUM ${(vacuumMs / 1000).toFixed(1)} s; dropping 31 day partitions ${dropMs} ms`,
  );
  return result;
}
