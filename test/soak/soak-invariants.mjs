// The soak's verdict: each invariant of issue 26 measured on the settled system, from Postgres, the
// sandbox (through its API) and what the soak's clients received. A row is { invariant, expected,
// observed, ok, details } where details name the ids that break it.
import { Buffer } from 'node:buffer';
import { USER_PRESENT } from '../kit/user-present.mjs';
import { SANDBOX_ADMIN_TOKEN, SYNC_RUNS_KEPT } from './soak-cluster.mjs';
import { request } from './soak-http.mjs';
import { VRP_LIMITS } from './soak-load.mjs';
import { sample } from './soak-process-rows.mjs';

const APP_ID = '00000000-0000-4000-8000-000000000001';
const APP_SECRET = 'sandbox-secret';
const FINAL_PAYMENT = ['COMPLETED', 'FAILED', 'DECLINED', 'REJECTED', 'EXPIRED'];
/** Every merchant event of a merchant since its endpoint existed, by id. */
async function merchantEvents(load, merchant) {
  return load.db(
    `SELECT e.id FROM merchant_events e JOIN event_endpoints p ON p.id = $2
     WHERE e.merchant_id = $1 AND e.created_at >= p.created_at ORDER BY e.seq`,
    [merchant.id, merchant.endpointId],
  );
}

/** What is not settled yet: the quiesce waits until this is empty (or its deadline). */
export async function unsettled(load, sandboxDeliveries) {
  const waiting = [];
  const [counts] = await load.db(`SELECT
      (SELECT count(*) FROM sync_runs WHERE status IN ('QUEUED', 'RUNNING'))::int AS runs,
      (SELECT count(*) FROM inbound_events WHERE status = 'RECEIVED')::int AS inbound,
      (SELECT count(*) FROM event_deliveries d JOIN event_endpoints p ON p.id = d.endpoint_id
        WHERE d.status = 'PENDING' AND p.disabled_at IS NULL)::int AS deliveries,
      (SELECT count(*) FROM payments WHERE status IN ('SUBMITTING', 'PENDING'))::int AS payments,
      (SELECT count(*) FROM merchant_events WHERE stream_seq IS NULL)::int AS unrelayed`);
  for (const [key, n] of Object.entries(counts)) if (n > 0) waiting.push(`${n} ${key}`);
  const pending = [...sandboxDeliveries.values()].filter((d) => d.state === 'pending').length;
  if (pending) waiting.push(`${pending} upstream webhook deliveries pending`);
  for (const user of load.users) {
    const [{ max }] = await load.db(
      'SELECT coalesce(max(stream_seq), 0)::text AS max FROM merchant_events WHERE user_id = $1',
      [user.id],
    );
    const last = user.sse.received.at(-1)?.seq ?? 0;
    if (Number(max) > last) waiting.push(`stream of ${user.reference} at ${last} < ${max}`);
  }
  for (const merchant of load.merchants) {
    const missing = (await merchantEvents(load, merchant)).filter((e) => !merchant.received.has(e.id));
    if (missing.length)
      waiting.push(`${missing.length} events not yet at merchant ${merchant.index}'s endpoint`);
  }
  return waiting;
}

/** The sandbox's transactions of a user's accounts, read as a client of the sandbox would. */
/** The bank's records read by sandboxTransactions, by id: what a differing account's report shows. */
const bankRecords = new Map();

async function sandboxTransactions(sandboxUrl, applicationUserId) {
  const admin = { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` };
  const direct = await request(sandboxUrl, 'POST', '/sandbox/admin/consents', {
    headers: admin,
    body: { institutionId: 'sandbox-redirect', applicationUserId },
  });
  if (direct.status !== 201)
    throw new Error(`sandbox consent for ${applicationUserId}: ${direct.status} ${direct.text}`);
  const headers = {
    authorization: `Basic ${Buffer.from(`${APP_ID}:${APP_SECRET}`).toString('base64')}`,
    consent: direct.body.data.consentToken,
    // Not one of the bank's daily reads without the user: the soak's own syncs may have spent them (a 429
    // here once failed the check, the stack having done nothing wrong).
    ...USER_PRESENT,
  };
  const byAccount = new Map();
  for (const account of direct.body.data.accounts) {
    const ids = [];
    for (let offset = 0; ; offset += 1000) {
      const page = await request(
        sandboxUrl,
        'GET',
        `/accounts/${account.id}/transactions?limit=1000&offset=${offset}`,
        { headers },
      );
      if (page.status !== 200)
        throw new Error(`sandbox transactions of ${account.id}: ${page.status} ${page.text?.slice(0, 200)}`);
      ids.push(...page.body.data.map((t) => t.id));
      for (const t of page.body.data) bankRecords.set(t.id, t);
      if (!(page.body.meta?.pagination?.totalCount > 1000)) break;
    }
    byAccount.set(account.id, ids);
  }
  return byAccount;
}

export async function checkInvariants({ load, cluster, answers, sandboxDeliveries }) {
  const rows = [];
  const row = (invariant, expected, observed, ok, details = []) =>
    rows.push({ invariant, expected, observed, ok, details: sample(details) });

  // ---- upstream webhooks: every one delivered is stored once and applied once
  const deliveries = [...sandboxDeliveries.values()];
  const inbound = await load.db(
    'SELECT event_id, status::text AS status, outcome, type, payload FROM inbound_events',
  );
  const stored = new Map(inbound.map((e) => [e.event_id, e]));
  const delivered = deliveries.filter((d) => d.state === 'delivered');
  const lost = delivered.filter((d) => !stored.has(d.eventId)).map((d) => `${d.eventId} (${d.eventType})`);
  const givenUp = deliveries
    .filter((d) => d.state === 'failed')
    .map((d) => `${d.eventId}: ${d.attempts.map((a) => a.statusCode ?? a.error).join(',')}`);
  const notProcessed = inbound
    .filter((e) => e.status !== 'PROCESSED')
    .map((e) => `${e.event_id} ${e.status} ${e.type}`);
  const finalEvents = await load.db(
    `SELECT data->>'paymentId' AS payment, count(*)::int AS n FROM merchant_events
     WHERE type::text IN ('payment.completed', 'payment.failed') GROUP BY 1 HAVING count(*) > 1`,
  );
  const appliedTwice = finalEvents.map((r) => `payment ${r.payment}: ${r.n} final events`);
  row(
    'upstream webhooks: received = stored = applied once',
    'every delivered id stored, all PROCESSED, none given up, no payment announced twice',
    `${delivered.length} delivered (${new Set(delivered.map((d) => d.eventId)).size} ids), ${inbound.length} stored, ${inbound.length - notProcessed.length} processed, ${givenUp.length} given up, ${lost.length} lost, ${appliedTwice.length} applied twice`,
    inbound.length > 0 &&
      lost.length === 0 &&
      givenUp.length === 0 &&
      notProcessed.length === 0 &&
      appliedTwice.length === 0,
    [
      ...lost.map((x) => `lost ${x}`),
      ...givenUp.map((x) => `given up ${x}`),
      ...notProcessed.map((x) => `not processed ${x}`),
      ...appliedTwice,
    ],
  );

  // ---- merchant events: to the endpoint at least once, signed
  let expectedEvents = 0;
  const undelivered = [];
  const badSignatures = [];
  for (const merchant of load.merchants) {
    const events = await merchantEvents(load, merchant);
    expectedEvents += events.length;
    for (const e of events)
      if (!merchant.received.has(e.id)) undelivered.push(`merchant ${merchant.index} event ${e.id}`);
    badSignatures.push(...merchant.badSignatures.map((s) => `merchant ${merchant.index}: ${s}`));
  }
  const received = load.merchants.reduce((n, m) => n + m.received.size, 0);
  const repeats = load.merchants.reduce(
    (n, m) => n + [...m.received.values()].filter((c) => c > 1).length,
    0,
  );
  row(
    'merchant events delivered to their endpoint (at least once, signed)',
    `${expectedEvents} events, 0 missing, 0 bad signatures`,
    `${received} received (${repeats} more than once), ${undelivered.length} missing, ${badSignatures.length} bad signatures`,
    expectedEvents > 0 && undelivered.length === 0 && badSignatures.length === 0,
    [...undelivered, ...badSignatures],
  );

  // ---- SSE: every user's stream exactly once, in order
  const streamProblems = [];
  let streamEvents = 0;
  let connects = 0;
  for (const user of load.users) {
    const expected = await load.db(
      'SELECT stream_seq::text AS seq, id FROM merchant_events WHERE user_id = $1 AND stream_seq IS NOT NULL ORDER BY stream_seq',
      [user.id],
    );
    streamEvents += expected.length;
    connects += user.sse.connects;
    const got = user.sse.received;
    const seen = new Map();
    for (const m of got) seen.set(m.seq, (seen.get(m.seq) ?? 0) + 1);
    const dupes = [...seen].filter(([, n]) => n > 1).map(([seq]) => seq);
    const missing = expected.filter((e) => !seen.has(Number(e.seq)));
    const wrong = expected.filter((e) => {
      const m = got.find((g) => g.seq === Number(e.seq));
      return m && m.eventId !== e.id;
    });
    for (const v of user.sse.violations) streamProblems.push(`${user.reference}: out of order ${v}`);
    for (const seq of dupes) streamProblems.push(`${user.reference}: id ${seq} twice`);
    for (const e of missing) streamProblems.push(`${user.reference}: missing id ${e.seq} (event ${e.id})`);
    for (const e of wrong) streamProblems.push(`${user.reference}: id ${e.seq} is not event ${e.id}`);
    if (got.length !== expected.length && !missing.length && !dupes.length)
      streamProblems.push(`${user.reference}: ${got.length} received, ${expected.length} in the stream`);
  }
  row(
    'SSE: every user event to its stream exactly once, in order',
    `${streamEvents} events, no gap, duplicate or reorder`,
    `${load.users.reduce((n, u) => n + u.sse.received.length, 0)} received over ${connects} connections, ${streamProblems.length} problems`,
    streamEvents > 0 && streamProblems.length === 0,
    streamProblems,
  );

  // ---- transactions: stored = the sandbox's, per account
  const accountProblems = [];
  let accountsChecked = 0;
  let transactionsChecked = 0;
  for (const user of load.users) {
    const [dbUser] = await load.db('SELECT application_user_id FROM users WHERE id = $1', [user.id]);
    const accounts = await load.db(
      `SELECT a.id, a.upstream_account_id, a.sync_status::text AS sync_status FROM accounts a JOIN consents c ON c.id = a.consent_id
       WHERE a.user_id = $1 AND c.kind::text = 'ACCOUNT'`,
      [user.id],
    );
    if (!accounts.length) continue;
    let upstream;
    try {
      upstream = await sandboxTransactions(cluster.sandboxUrl, dbUser.application_user_id);
    } catch (error) {
      accountProblems.push(`${user.reference}: ${error.message}`);
      continue;
    }
    for (const account of accounts) {
      accountsChecked += 1;
      const theirs = upstream.get(account.upstream_account_id);
      if (!theirs) {
        accountProblems.push(`account ${account.id}: unknown to the sandbox`);
        continue;
      }
      const ours = (
        await load.db(`SELECT raw->>'id' AS id FROM transactions WHERE account_id = $1`, [account.id])
      ).map((r) => r.id);
      transactionsChecked += ours.length;
      const mine = new Set(ours);
      const their = new Set(theirs);
      const missing = theirs.filter((id) => !mine.has(id));
      const extra = ours.filter((id) => !their.has(id));
      if (missing.length || extra.length || ours.length !== theirs.length) {
        accountProblems.push(
          `account ${account.id} (${account.sync_status}): stored ${ours.length}, sandbox ${theirs.length}, missing ${missing.length} [${missing.slice(0, 3)}], extra ${extra.length} [${extra.slice(0, 3)}]`,
        );
        // What it takes to tell why: the records as the bank has them, and the account's last runs.
        for (const id of missing.slice(0, 3)) {
          const t = bankRecords.get(id);
          accountProblems.push(
            `  missing ${id}: ${t?.status} booked ${t?.bookingDateTime} ${t?.amount} ${t?.description ?? ''}`,
          );
        }
        const runs = await load.db(
          `SELECT id, trigger::text, status::text, window_from, window_before, queued_at, started_at, finished_at,
                  inserted, updated, removed, error_code
           FROM sync_runs WHERE account_id = $1 ORDER BY queued_at DESC LIMIT 8`,
          [account.id],
        );
        for (const r of runs)
          accountProblems.push(
            `  run ${r.id} ${r.trigger} ${r.status} window ${r.window_from?.toISOString()}..${r.window_before?.toISOString()} queued ${r.queued_at?.toISOString()} started ${r.started_at?.toISOString()} finished ${r.finished_at?.toISOString()} +${r.inserted} ~${r.updated} -${r.removed} ${r.error_code ?? ''}`,
          );
      }
    }
  }
  row(
    "every account's stored transactions = the sandbox's (count and ids)",
    'all accounts equal',
    `${accountsChecked} accounts, ${transactionsChecked} transactions, ${accountProblems.length} differ`,
    accountProblems.length === 0 && accountsChecked > 0,
    accountProblems,
  );

  // ---- during the chaos: each run the load asked for and saw succeed had stored the bank's set
  const { checked, unchecked, problems } = load.runChecks;
  row(
    'after each sync run that succeeded under chaos: stored = the bank (count, added, removed)',
    'every checked run equal',
    `${checked} runs checked (${unchecked} began before their change: skipped), ${problems.length} differ`,
    checked > 0 && problems.length === 0,
    problems,
  );

  // ---- run counts: what the runs say they did adds up to what is stored
  const counted = await load.db(
    `SELECT a.id, (SELECT count(*) FROM transactions t WHERE t.account_id = a.id)::int AS stored,
       (SELECT coalesce(sum(r.inserted - r.removed), 0) FROM sync_runs r WHERE r.account_id = a.id)::int AS counted,
       (SELECT count(*) FROM sync_runs r WHERE r.account_id = a.id)::int AS runs
     FROM accounts a WHERE a.user_id = ANY($1::uuid[])`,
    [load.users.map((u) => u.id)],
  );
  // An account at the cap has had runs pruned: its sum would no longer be its history's.
  const miscounted = counted.filter((a) => a.stored !== a.counted || a.runs >= SYNC_RUNS_KEPT);
  row(
    "sync run counts: Σ (inserted − removed) over an account's runs = its stored transactions",
    'every account',
    `${counted.length} accounts, ${counted.reduce((n, a) => n + a.runs, 0)} runs, ${miscounted.length} differ`,
    counted.length > 0 && miscounted.length === 0,
    miscounted.map((a) => `account ${a.id}: stored ${a.stored}, runs count ${a.counted} over ${a.runs} runs`),
  );

  // ---- consents: every one the user approved at the bank is authorised, none stuck on the way
  const approved = load.users.flatMap((u) => [
    ...(u.accounts.length ? [u.consentId] : []),
    ...(u.vrp ? [u.vrp.consentId] : []),
  ]);
  const consents = await load.db(
    `SELECT id, kind::text AS kind, status::text AS status FROM consents WHERE id = ANY($1::uuid[])`,
    [approved],
  );
  const notAuthorised = consents.filter((c) => c.status !== 'AUTHORIZED');
  row(
    'consents approved at the bank are AUTHORIZED',
    `${approved.length} AUTHORIZED`,
    `${consents.length} found, ${consents.length - notAuthorised.length} AUTHORIZED`,
    approved.length > 0 && consents.length === approved.length && notAuthorised.length === 0,
    notAuthorised.map((c) => `consent ${c.id} (${c.kind}) ${c.status}`),
  );

  // ---- VRP limits
  const vrp = await load.db(
    `SELECT consent_id, count(*)::int AS n, max(amount)::text AS max, sum(amount)::text AS total
     FROM payments WHERE kind::text = 'VRP' AND status NOT IN ('FAILED', 'DECLINED', 'REJECTED', 'EXPIRED')
     GROUP BY consent_id`,
  );
  const over = vrp.filter((r) => Number(r.max) > VRP_LIMITS.perPayment || Number(r.total) > VRP_LIMITS.total);
  row(
    'VRP never over a limit',
    `each ≤ ${VRP_LIMITS.perPayment}, per consent ≤ ${VRP_LIMITS.total}`,
    `${vrp.reduce((n, r) => n + r.n, 0)} payments on ${vrp.length} consents, max total ${Math.max(0, ...vrp.map((r) => Number(r.total))).toFixed(2)}, ${load.vrpRefusals} refused 422`,
    vrp.length > 0 && over.length === 0,
    over.map((r) => `consent ${r.consent_id}: ${r.n} payments, total ${r.total}, max ${r.max}`),
  );

  // ---- nothing stuck
  const runs = await load.db(
    `SELECT id, account_id, status::text AS status FROM sync_runs WHERE status IN ('QUEUED', 'RUNNING')`,
  );
  const pendingDeliveries = await load.db(
    `SELECT d.id, d.event_id, d.attempts FROM event_deliveries d JOIN event_endpoints p ON p.id = d.endpoint_id
     WHERE d.status = 'PENDING' AND p.disabled_at IS NULL`,
  );
  const failedDeliveries = await load.db(
    `SELECT id, last_error FROM event_deliveries WHERE status = 'FAILED'`,
  );
  const authorised = new Set(load.payments.filter((p) => p.authorised).map((p) => p.id));
  const payments = (
    await load.db(
      `SELECT p.id, p.status, p.kind::text AS kind, c.status AS consent_status
       FROM payments p JOIN consents c ON c.id = p.consent_id`,
    )
  ).filter(
    (p) =>
      !FINAL_PAYMENT.includes(p.status) && (p.status !== 'AWAITING_AUTHORIZATION' || authorised.has(p.id)),
  );
  row(
    'no sync run, delivery or payment stuck after quiesce',
    '0 non-final',
    `${runs.length} runs, ${pendingDeliveries.length} deliveries pending (${failedDeliveries.length} failed), ${payments.length} payments`,
    runs.length === 0 &&
      pendingDeliveries.length === 0 &&
      failedDeliveries.length === 0 &&
      payments.length === 0,
    [
      ...runs.map((r) => `sync run ${r.id} ${r.status} (account ${r.account_id})`),
      ...pendingDeliveries.map(
        (d) => `delivery ${d.id} of event ${d.event_id} PENDING after ${d.attempts} attempts`,
      ),
      ...failedDeliveries.map((d) => `delivery ${d.id} FAILED: ${d.last_error}`),
      // An approved payment AWAITING whose consent is AWAITING too: its callback's claim was spent but the
      // bank's one-time token never exchanged (a claim that was not one statement did this).
      ...payments.map((p) => `payment ${p.id} (${p.kind}) ${p.status}, its consent ${p.consent_status}`),
    ],
  );

  // ---- no 500 (503 during outages is the right answer), no hang
  const receiverErrors = deliveries.flatMap((d) =>
    d.attempts
      .filter((a) => a.statusCode >= 500 && a.statusCode !== 503)
      .map((a) => `webhook receiver ${a.statusCode} to ${d.eventId} at ${a.startedAt}`),
  );
  const totals = answers.totals();
  const statusLine = [...totals]
    .sort(([a], [b]) => String(a).localeCompare(String(b)))
    .map(([k, n]) => `${k}×${n}`)
    .join(' ');
  row(
    'no 500 (or other 5xx but 503) and no hang from any api',
    '0 (503 is fine)',
    `${answers.bad.length + receiverErrors.length} bad; all answers: ${statusLine}`,
    answers.bad.length + receiverErrors.length === 0,
    [
      ...[...new Set(answers.bad.map((b) => b.during))].map(
        (during) =>
          `${answers.bad.filter((b) => b.during === during).length} during or just after: ${during}`,
      ),
      ...answers.bad.map((b) => `${b.at} ${b.app} ${b.route}: ${b.status} ${b.body ?? ''}`),
      ...receiverErrors,
    ],
  );

  row(
    'every load request eventually answered (503, 429, in progress retried 90 s)',
    '0 given up',
    `${load.givenUp.length} given up`,
    load.givenUp.length === 0,
    load.givenUp.map((g) => `${g.what}: ${g.status} ${g.body ?? g.after ?? ''}`),
  );
  return rows;
}
