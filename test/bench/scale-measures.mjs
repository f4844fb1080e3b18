// The scale bench's two instruments: a load of keep-alive GETs, and Postgres's plan of a statement.
import http from 'node:http';
import { BenchFailure } from './bench-failure.mjs';

/** `measure(urls, headers)`: `connections` keep-alive loops for `seconds`, spread over `urls` (one URL or several): req/s and latencies. */
export function loadMeter({ connections, seconds }) {
  return async function measure(urls, headers) {
    const list = [urls].flat();
    const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
    const get = (url) =>
      new Promise((done, fail) => {
        const t0 = process.hrtime.bigint();
        http
          .get(url, { agent, headers }, (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 200
                ? done(Number(process.hrtime.bigint() - t0) / 1e6)
                : fail(new BenchFailure(`GET ${url}: HTTP ${res.statusCode}`)),
            );
          })
          .on('error', fail);
      });
    const run = async (ms) => {
      const latencies = [];
      const until = Date.now() + ms;
      await Promise.all(
        Array.from({ length: connections }, async (_, i) => {
          while (Date.now() < until) latencies.push(await get(list[i % list.length]));
        }),
      );
      return latencies;
    };
    await run(1_000);
    const latencies = (await run(seconds * 1_000)).sort((a, b) => a - b);
    agent.destroy();
    const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
    return { requests: latencies.length, rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
  };
}

/** EXPLAIN (ANALYZE, BUFFERS): the plan's node lines, its time, and whether it sorted or scanned a table. */
export async function explain(db, sql, params) {
  const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
  const lines = rows.map((r) => r['QUERY PLAN']);
  const nodes = lines.filter(
    (l) => /->|^\w/.test(l.trim()) && !/^(Planning|Execution|Buffers)/.test(l.trim()),
  );
  return {
    ms: Number(/Execution Time: ([\d.]+)/.exec(lines.join('\n'))?.[1]),
    sorts: nodes.some((l) => /Sort\b/.test(l) && !/Sort Key/.test(l)),
    seqScans: nodes.filter((l) => /Seq Scan/.test(l)).map((l) => l.trim()),
    indexes: [...new Set(nodes.flatMap((l) => /(?:using|Index Scan on) (\S+)/.exec(l)?.[1] ?? []))],
    plan: lines,
  };
}

/**
 * The plans of the statements the scale bench watches at each size: the stored page (first, and after
 * 9,000 records), the sync dispatcher's due batch and the consent expiry scan's first batch. The last two
 * are the product's own statements, read from the build, so the bench cannot measure a stale copy.
 */
export async function pagePlans(db, accountId, merchantId) {
  const built = (lib) => import(new URL(`../../dist/libs/domain/${lib}/src/index.js`, import.meta.url).href);
  const { dueForSync } = (await built('accounts')).ACCOUNT_SYNC_STATE_SQL;
  const { expiringSoon } = (await built('consents')).CONSENT_LIFECYCLE_SQL;
  const [row9000] = (
    await db.query(
      `SELECT date, id FROM transactions WHERE account_id = $1 ORDER BY date DESC, id DESC OFFSET 9000 LIMIT 1`,
      [accountId],
    )
  ).rows;
  const page = (after) =>
    `SELECT t.id, t.date, t.raw::text FROM (SELECT id, date FROM transactions WHERE account_id = $1
       ${after ? 'AND (date, id) < ($3, $4)' : ''} ORDER BY date DESC, id DESC LIMIT 101) p
     JOIN transactions t ON t.id = p.id WHERE t.merchant_id = $2 ORDER BY p.date DESC, p.id DESC`;
  const plans = {
    firstPage: await explain(db, page(false), [accountId, merchantId]),
    deepPage: await explain(db, page(true), [accountId, merchantId, row9000.date, row9000.id]),
    dispatcherBatch: await explain(db, dueForSync.text, [new Date(), 1000]),
    // The consent expiry scan's first batch: the week's expiring consents in expiry order, its keyset
    // starting just after now (ConsentLifecycleRepository.expiringSoon).
    expiryBatch: await explain(db, expiringSoon.text, [
      new Date(Date.now() + 7 * 86_400_000),
      new Date(),
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      500,
    ]),
  };
  return plans;
}
