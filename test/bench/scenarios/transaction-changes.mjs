// Scenario "transaction-changes": a page of a user's transactions change feed, read with the api's own
// statement and values (feedPageQuery, from dist/, as the repository builds them), when the user's feed holds 10^4 changes and when
// it holds 10^7. The read walks the (user_id, seq) index from the cursor, so a page should cost the same
// at both sizes. Each feed is the measured page of 100 live records (their transactions stored) after
// the rest as removals (tombstones: rows of the feed alone), so 10^7 changes fit on this machine. Its
// own database: DATABASE_URL's name + `_bench_changes`, dropped and created.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { benchDatabaseUrl, recreateDatabase } from '../bench-store.mjs';

const FULL = { sizes: [10_000, 10_000_000], reads: 200 };
/** --smoke: the same statement over two small feeds: a changed statement or its values fail here. */
const SMOKE = { sizes: [200, 1_000], reads: 20 };
const PAGE = 100;
/** A page at 10^7 within this factor of the page at 10^4. */
const TARGET_RATIO = 1.5;

/** A merchant, a user and an account for the feed's rows to belong to. */
async function owner(db, label) {
  const merchant = (
    await db.query(
      `INSERT INTO merchants (id, name, updated_at) VALUES (gen_random_uuid(), $1, now()) RETURNING id`,
      [label],
    )
  ).rows[0].id;
  const user = (
    await db.query(
      `INSERT INTO users (id, merchant_id, reference, application_user_id, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $2, now()) RETURNING id`,
      [merchant, label],
    )
  ).rows[0].id;
  const consent = (
    await db.query(
      `INSERT INTO consents (id, merchant_id, user_id, kind, upstream_consent_id, institution_id, status, updated_at)
       VALUES (gen_random_uuid(), $1, $2, 'ACCOUNT', $3, 'sandbox-redirect', 'AUTHORIZED', now()) RETURNING id`,
      [merchant, user, label],
    )
  ).rows[0].id;
  const account = (
    await db.query(
      `INSERT INTO accounts (id, merchant_id, user_id, consent_id, institution_id, upstream_account_id, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, 'sandbox-redirect', $4, now()) RETURNING id`,
      [merchant, user, consent, label],
    )
  ).rows[0].id;
  return { merchant, user, account };
}

/** `size` changes for the user: removals, then the measured page of live records. */
async function fill(db, size, progress) {
  const { merchant, user, account } = await owner(db, `changes-${size}`);
  const removals = size - PAGE;
  progress(`a feed of ${size.toLocaleString('en')} changes`);
  await db.query(
    `INSERT INTO transaction_changes (transaction_id, merchant_id, user_id, account_id, record_id, seq, added_seq, removed)
     SELECT gen_random_uuid(), $1, $2, $3, 'r' || n, n, n, true FROM generate_series(1, $4::bigint) n`,
    [merchant, user, account, removals],
  );
  await db.query(
    `WITH live AS (
       INSERT INTO transactions (id, merchant_id, account_id, dedupe_key, date, status, amount, currency, raw, updated_at)
       SELECT gen_random_uuid(), $1, $3, 'id:live-' || n, now(), 'BOOKED', -n, 'GBP',
         jsonb_build_object('id', 'live-' || n, 'date', now(), 'amount', (-n)::text, 'currency', 'GBP'), now()
       FROM generate_series(1, $5::int) n
       RETURNING id, raw->>'id' AS record_id)
     INSERT INTO transaction_changes (transaction_id, merchant_id, user_id, account_id, record_id, seq, added_seq)
     SELECT id, $1, $2, $3, record_id, $4 + row_number() OVER (ORDER BY id), $4 + row_number() OVER (ORDER BY id)
     FROM live`,
    [merchant, user, account, removals, PAGE],
  );
  await db.query(`INSERT INTO transaction_feeds (user_id, last_seq) VALUES ($1, $2)`, [user, size]);
  return { merchant, user, cursor: removals };
}

export async function transactionChangesBench({ options, progress }) {
  const { sizes: SIZES, reads: READS } = options.smoke ? SMOKE : FULL;
  const databaseUrl = benchDatabaseUrl('changes');
  const drop = await recreateDatabase(databaseUrl, progress);
  const { feedPageQuery } = await import(
    new URL('../../../dist/libs/domain/sync/src/transaction-change.repository.js', import.meta.url).href
  );
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const feeds = [];
    for (const size of SIZES) feeds.push({ size, ...(await fill(db, size, progress)) });
    await db.query('ANALYZE transaction_changes');
    await db.query('ANALYZE transactions');
    const runs = [];
    for (const feed of feeds) {
      // As the api asks: one more than the page, to know whether another follows.
      const query = feedPageQuery(feed.merchant, feed.user, { seq: BigInt(feed.cursor) }, PAGE + 1);
      const read = async () => (await db.query(query)).rows.length;
      for (let i = 0; i < 20; i += 1) await read();
      const ms = [];
      for (let i = 0; i < READS; i += 1) {
        const started = performance.now();
        if ((await read()) !== PAGE) throw new Error(`a page of ${PAGE} expected at ${feed.size}`);
        ms.push(performance.now() - started);
      }
      ms.sort((a, b) => a - b);
      runs.push({ size: feed.size, p50: ms[Math.floor(READS / 2)], p99: ms[Math.floor(READS * 0.99)] });
    }
    const ratio = runs[1].p50 / runs[0].p50;
    return {
      kind: 'transaction-changes',
      name: `a page of ${PAGE} of the transactions change feed at ${SIZES.map((n) => n.toLocaleString('en')).join(' and ')} changes`,
      runs,
      ratio,
      meetsTarget: ratio < TARGET_RATIO,
      notes: [
        ...runs.map(
          (r) =>
            `${r.size.toLocaleString('en')} changes: p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms (${READS} reads)`,
        ),
        `p50 at ${SIZES[1].toLocaleString('en')} ÷ at ${SIZES[0].toLocaleString('en')}: ×${ratio.toFixed(2)} (target < ×${TARGET_RATIO}) → ${ratio < TARGET_RATIO ? 'met' : 'NOT met'}`,
      ],
    };
  } finally {
    await db.end();
    await drop();
  }
}
