// The soak's load: merchants with an event endpoint (a local receiver that verifies every signature),
// users with a bank connected through the sandbox's bank page, their frontends' event streams (which
// disconnect and resume with Last-Event-ID), incremental syncs after changes at the bank, reads, single
// payments and VRP payments racing their limit, and upstream webhooks. Every choice comes from the seeded
// generator, so a seed names a run's plan (timing under faults still varies).
//
// One file past 300 lines on purpose: one Load whose operations share the seeded generator, the live
// apis, each user's state and the tallies the verdict reads; split by operation, each part would take
// all of that along.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { USER_PRESENT } from '../kit/user-present.mjs';
import { ADMIN_TOKEN, SANDBOX_ADMIN_TOKEN } from './soak-cluster.mjs';
import { request } from './soak-http.mjs';

const { verifyWebhook } = await import(
  fileURLToPath(new URL('../../dist/libs/crypto/src/index.js', import.meta.url))
);

export const REDIRECT_URL = 'https://app.merchant.example/soak/done';
/** A request that keeps answering 503 (or is refused) this long is given up: the report shows it. */
const RETRY_FOR_MS = 90_000;
export const VRP_LIMITS = { perPayment: 10, total: 60 };
/** How long the load waits for a sync it asked for to end before it moves on (the run is checked later). */
const RUN_END_MS = 120_000;
const PAYEE = {
  name: 'Jane Saver',
  accountIdentifications: [
    { type: 'SORT_CODE', identification: '123456' },
    { type: 'ACCOUNT_NUMBER', identification: '12345678' },
  ],
};

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const rebase = (base, url) => {
  const u = new URL(url);
  return `${base}${u.pathname}${u.search}`;
};

export class Load {
  merchants = [];
  users = [];
  /** Things the load could not do (a request given up after its retries): reported, and a failure. */
  givenUp = [];
  payments = [];
  vrpRefusals = 0;
  emitted = 0;
  syncsRequested = 0;
  /** The stored set checked after each run the load asked for and saw succeed (changeAndSync). */
  runChecks = { checked: 0, unchecked: 0, problems: [] };
  reads = 0;
  stopped = false;

  constructor({ cluster, answers, rng, progress }) {
    this.cluster = cluster;
    this.answers = answers;
    this.rng = rng;
    this.progress = progress;
    this.sandbox = cluster.sandboxUrl;
    this.sandboxAdmin = { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}` };
  }

  // ---------------------------------------------------------------------------------------------- HTTP

  liveApis() {
    const live = this.cluster.apis.map((role, i) => ({ role, url: this.cluster.apiUrls[i] }));
    const up = live.filter((a) => !a.role.down);
    return up.length ? up : live;
  }

  /**
   * One api request, retried on 503, 429, refused connections (outages) and a keyed request still in
   * progress, until RETRY_FOR_MS.
   */
  async api(method, path, { auth, body, idempotencyKey, expect, retry = true, headers = {} } = {}) {
    const deadline = Date.now() + RETRY_FOR_MS;
    let renewed = false;
    for (let attempt = 0; ; attempt += 1) {
      const target = this.rng.pick(this.liveApis());
      const wasDown = target.role.down;
      const bearer = typeof auth === 'object' ? auth.user.session : auth;
      const result = await request(target.url, method, path, {
        headers: {
          ...headers,
          ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body,
      });
      const restarting = wasDown || target.role.down;
      this.answers.record(target.role.name, method, path, result, { restarting });
      // A frontend whose session expired (SESSION_TTL_SECONDS) asks its backend for a new one, once.
      if (result.status === 401 && typeof auth === 'object' && !renewed) {
        renewed = true;
        await this.renewSession(auth.user);
        continue;
      }
      // A 500 is retried as a careful client would (the key makes it safe); it is counted as a finding all
      // the same (AnswerLog), and retrying keeps the other invariants about the system, not about one answer.
      // So is a 409 CONFLICT on a keyed request: the first request with this key is still running (an
      // api stopped mid-request leaves its claim, which the next one takes over after 60 s).
      const inProgress =
        idempotencyKey !== undefined && result.status === 409 && /"code":"CONFLICT"/.test(result.text ?? '');
      const transient = result.error || result.status === 429 || result.status >= 500 || inProgress;
      if (!transient || !retry || this.stopped === 'hard') {
        if (expect && result.status !== expect) {
          this.givenUp.push({
            what: `${method} ${path}`,
            status: result.status ?? result.error,
            body: result.text?.slice(0, 200),
          });
        }
        return result;
      }
      if (Date.now() > deadline) {
        this.givenUp.push({
          what: `${method} ${path}`,
          status: result.status ?? result.error,
          after: 'retries',
        });
        return result;
      }
      const retryAfter = Number(result.headers?.['retry-after']);
      await sleep(
        Number.isFinite(retryAfter) && retryAfter > 0
          ? Math.min(retryAfter * 1000, 3000)
          : 300 + attempt * 100,
      );
    }
  }

  sandboxCall(method, path, body) {
    return request(this.sandbox, method, path, { headers: this.sandboxAdmin, body });
  }

  /** A query on the private Postgres, its own connection each time (it is restarted under us). */
  async db(sql, params = []) {
    const deadline = Date.now() + RETRY_FOR_MS;
    for (;;) {
      const client = new pg.Client({ connectionString: this.cluster.postgres.url });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return (await client.query(sql, params)).rows;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(500);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
  }

  /** The user's browser at the bank: approve, then follow the bank's redirect to one of our apis. */
  async approveAtBank(authorisationUrl) {
    const atBank = await this.approveOnly(authorisationUrl);
    return atBank.ok ? this.backToUs(atBank.callback) : atBank;
  }

  /** The bank's page, approved: where the bank sends the browser back (our callback), or why not. */
  async approveOnly(authorisationUrl) {
    const form = await request(this.sandbox, 'POST', rebase(this.sandbox, authorisationUrl), {
      body: { decision: 'approve' },
      form: true,
    });
    if (form.status !== 302) return { ok: false, why: `bank page ${form.status ?? form.error}` };
    return { ok: true, callback: new URL(form.headers.location) };
  }

  /** Our callback, followed (retried through an outage's 503 page, as its meta refresh does). */
  async backToUs(callback) {
    const back = await this.api('GET', `${callback.pathname}${callback.search}`);
    const to = back.headers?.location ?? '';
    // Where the merchant's page gets the outcome (a declined payment is an outcome too), never an error.
    return {
      ok: back.status === 302 && to.startsWith(REDIRECT_URL) && !to.includes('error='),
      why: `${back.status ?? back.error} ${to}`,
    };
  }

  // --------------------------------------------------------------------------------------- setup

  async startReceiver() {
    const merchants = this.merchants;
    this.receiverFailing = true;
    this.receiverRng = seededRandom(this.rng.int(1, 2 ** 31));
    this.receiver = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const merchant = merchants[Number(req.url.split('/')[2])];
        const body = Buffer.concat(chunks).toString('utf8');
        if (!merchant) return res.writeHead(404).end();
        // A merchant endpoint that fails now and then, as real ones do: the retries must cover it.
        if (this.receiverFailing && this.receiverRng.chance(0.08)) return res.writeHead(500).end();
        try {
          verifyWebhook(body, req.headers, merchant.secret);
        } catch (error) {
          merchant.badSignatures.push(`${req.headers['webhook-id']}: ${error.message}`);
          return res.writeHead(400).end();
        }
        const event = JSON.parse(body);
        merchant.received.set(event.id, (merchant.received.get(event.id) ?? 0) + 1);
        res.writeHead(200).end();
      });
    });
    await new Promise((resolve) => this.receiver.listen(0, '127.0.0.1', resolve));
    this.receiverUrl = `http://127.0.0.1:${this.receiver.address().port}`;
  }

  async registerUpstreamWebhook() {
    await this.sandboxCall('PUT', '/sandbox/admin/webhooks/retry-policy', {
      delaysMs: [500, 1000, 2000, 4000, 8000, 15_000, 30_000],
      timeoutMs: 5_000,
    });
    await this.api('POST', '/admin/upstream/webhooks', {
      auth: ADMIN_TOKEN,
      body: { callbackUrl: `${this.cluster.apiUrls[0]}/v1/webhooks/upstream` },
      expect: 201,
    });
  }

  async onboardMerchant(index) {
    const created = await this.api('POST', '/admin/merchants', {
      auth: ADMIN_TOKEN,
      body: { name: `soak merchant ${index}` },
      expect: 201,
    });
    if (created.status !== 201)
      throw new Error(`onboarding merchant ${index}: ${created.status ?? created.error} ${created.text}`);
    const merchant = {
      index,
      id: created.body.data.merchant.id,
      key: created.body.data.apiKey.key,
      received: new Map(),
      badSignatures: [],
      users: [],
    };
    const endpoint = await this.api('POST', '/v1/event-endpoints', {
      auth: merchant.key,
      body: { url: `${this.receiverUrl}/m/${index}`, types: [] },
      idempotencyKey: `endpoint-${index}`,
      expect: 201,
    });
    if (endpoint.status !== 201)
      throw new Error(`event endpoint of merchant ${index}: ${endpoint.status} ${endpoint.text}`);
    merchant.secret = endpoint.body.data.secret;
    merchant.endpointId = endpoint.body.data.endpoint.id;
    if (!merchant.endpointId || !merchant.secret)
      throw new Error(`event endpoint of merchant ${index}: ${endpoint.text}`);
    this.merchants.push(merchant);
    return merchant;
  }

  async onboardUser(merchant, n) {
    const reference = `soak-${merchant.index}-${n}`;
    const created = await this.api('POST', '/v1/users', {
      auth: merchant.key,
      body: { reference },
      idempotencyKey: `user-${reference}`,
    });
    if (created.status !== 201 && created.status !== 200) {
      this.givenUp.push({ what: `user ${reference}`, status: created.status ?? created.error });
      return undefined;
    }
    const user = {
      id: created.body.data.id,
      reference,
      merchant,
      accounts: [],
      vrp: null,
      sse: null,
    };
    await this.renewSession(user);
    merchant.users.push(user);
    this.users.push(user);
    this.openStream(user);
    await this.connectBank(user);
    if (n === 0) await this.setUpVrp(user);
    return user;
  }

  /** The merchant's backend minting the user's frontend a session token (they expire: SESSION_TTL_SECONDS). */
  async renewSession(user) {
    const session = await this.api('POST', `/v1/users/${user.id}/sessions`, {
      auth: user.merchant.key,
      expect: 201,
    });
    user.session = session.body?.data?.token ?? user.session;
  }

  /** Half the user's calls come from their frontend (the session, renewed on 401), half from the merchant's backend. */
  authOf(user) {
    return this.rng.chance(0.5) ? { user } : user.merchant.key;
  }

  async connectBank(user) {
    const consent = await this.api('POST', `/v1/users/${user.id}/consents`, {
      auth: user.merchant.key,
      body: { institutionId: 'sandbox-redirect', redirectUrl: REDIRECT_URL },
      idempotencyKey: `consent-${user.reference}`,
      expect: 201,
    });
    if (consent.status !== 201) return;
    user.consentId = consent.body.data.id;
    const back = await this.approveAtBank(consent.body.data.authorisationUrl);
    if (!back.ok) {
      this.givenUp.push({ what: `bank connect of ${user.reference}`, status: back.why });
      return;
    }
    const accounts = await this.api('GET', `/v1/users/${user.id}/accounts`, {
      auth: user.merchant.key,
      expect: 200,
    });
    user.accounts = (accounts.body?.data ?? []).map((a) => ({
      id: a.id,
      type: a.type,
      added: [],
      removed: [],
      busy: false,
    }));
  }

  async setUpVrp(user) {
    const created = await this.api('POST', `/v1/users/${user.id}/vrp/consents`, {
      auth: user.merchant.key,
      idempotencyKey: `vrp-${user.reference}`,
      body: {
        institutionId: 'sandbox-payments',
        payee: PAYEE,
        reference: 'Sweep',
        redirectUrl: REDIRECT_URL,
        controlParameters: {
          maxAmountPerPayment: { amount: VRP_LIMITS.perPayment.toFixed(2), currency: 'GBP' },
          periodicLimits: [
            {
              frequency: 'MONTHLY',
              alignment: 'CONSENT',
              totalMaxAmount: { amount: VRP_LIMITS.total.toFixed(2), currency: 'GBP' },
            },
          ],
        },
      },
      expect: 201,
    });
    if (created.status !== 201) return;
    const back = await this.approveAtBank(created.body.data.authorisationUrl);
    if (!back.ok) {
      this.givenUp.push({ what: `VRP consent of ${user.reference}`, status: back.why });
      return;
    }
    user.vrp = { consentId: created.body.data.id };
  }

  // ------------------------------------------------------------------------------- event streams

  /** The user's frontend: a stream from the start of history, resumed with Last-Event-ID after every break. */
  openStream(user) {
    const stream = { received: [], connects: 0, violations: [], current: null, buffer: '' };
    user.sse = stream;
    const lastId = () => (stream.received.length ? stream.received[stream.received.length - 1].seq : 0);
    const connect = () => {
      if (this.stopped === 'hard') return;
      const target = this.rng.pick(this.liveApis());
      stream.connects += 1;
      const req = http.request(new URL(`/v1/users/${user.id}/events`, target.url), {
        headers: {
          authorization: `Bearer ${user.session}`,
          accept: 'text/event-stream',
          'last-event-id': String(lastId()),
        },
      });
      stream.current = req;
      stream.buffer = '';
      const again = (delay) => {
        if (stream.current !== req) return;
        stream.current = null;
        req.destroy();
        setTimeout(connect, delay).unref();
      };
      req.on('response', (res) => {
        this.answers.record(
          target.role.name,
          'GET',
          `/v1/users/${user.id}/events`,
          { status: res.statusCode, headers: res.headers },
          { restarting: target.role.down },
        );
        if (res.statusCode === 401) {
          res.resume();
          // The session expired: the frontend gets a new one from its backend, and resumes where it was.
          return void this.renewSession(user).then(() => again(0));
        }
        if (res.statusCode !== 200) {
          res.resume();
          return again(500);
        }
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          stream.buffer += chunk;
          let end;
          while ((end = stream.buffer.indexOf('\n\n')) >= 0) {
            const block = stream.buffer.slice(0, end);
            stream.buffer = stream.buffer.slice(end + 2);
            let id;
            let data;
            for (const line of block.split('\n')) {
              if (line.startsWith('id: ')) id = line.slice(4);
              else if (line.startsWith('data: ')) data = line.slice(6);
            }
            if (id === undefined || data === undefined) continue;
            const seq = Number(id);
            if (!(seq > lastId())) stream.violations.push(`id ${id} after ${lastId()}`);
            stream.received.push({ seq, eventId: JSON.parse(data).id });
          }
        });
        res.on('end', () => again(300));
        res.on('error', () => again(300));
      });
      req.on('error', (error) => {
        if (stream.current === req) {
          this.answers.record(
            target.role.name,
            'GET',
            `/v1/users/${user.id}/events`,
            { error: error.code ?? 'error' },
            { restarting: true },
          );
          again(500);
        }
      });
      req.end();
    };
    stream.reconnect = () => {
      const req = stream.current;
      if (!req) return;
      stream.current = null;
      req.destroy();
      setTimeout(connect, this.rng.int(0, 1000)).unref();
    };
    stream.close = () => {
      const req = stream.current;
      stream.current = null;
      req?.destroy();
    };
    connect();
  }

  // ---------------------------------------------------------------------------------- actions

  async read() {
    const user = this.rng.pick(this.users);
    const auth = this.authOf(user);
    const account = user.accounts.length ? this.rng.pick(user.accounts) : null;
    const choice = this.rng.int(0, 3);
    this.reads += 1;
    if (choice === 0 || !account) await this.api('GET', `/v1/users/${user.id}/accounts`, { auth });
    else if (choice === 1)
      await this.api('GET', `/v1/accounts/${account.id}/transactions?limit=50`, { auth });
    else if (choice === 2 && user.consentId)
      await this.api('GET', `/v1/consents/${user.consentId}`, { auth });
    else await this.api('GET', '/v1/users?limit=10', { auth: user.merchant.key });
  }

  /**
   * A change at the bank (a new transaction, or one of ours removed), an incremental sync, and, when the
   * run succeeds, a check of what it stored: during the chaos, not only after it. One change at a time per
   * account, so a run that started after the change must show it: its stored count equals the bank's, every
   * transaction we added is there and none we removed.
   */
  async changeAndSync() {
    const user = this.rng.pick(this.users.filter((u) => u.accounts.some((a) => !a.busy)));
    if (!user) return;
    const free = user.accounts.filter((a) => !a.busy);
    const account = this.rng.pick(free.filter((a) => a.type !== 'CREDIT_CARD')) ?? free[0];
    account.busy = true;
    try {
      const [row] = await this.db(
        `SELECT a.upstream_account_id, c.upstream_consent_id FROM accounts a JOIN consents c ON c.id = a.consent_id WHERE a.id = $1`,
        [account.id],
      );
      const base = `/sandbox/admin/consents/${row.upstream_consent_id}/accounts/${row.upstream_account_id}/transactions`;
      if (account.added.length && this.rng.chance(0.3)) {
        const id = account.added.splice(this.rng.int(0, account.added.length - 1), 1)[0];
        const removed = await this.sandboxCall('DELETE', `${base}/${id}`);
        if (removed.status === 204) account.removed.push(id);
      } else {
        const amount = -(this.rng.int(100, 9999) / 100);
        const added = await this.sandboxCall('POST', base, {
          amount,
          description: `soak ${this.rng.int(1, 1e6)}`,
        });
        const id = added.body?.data?.id;
        if (id) account.added.push(id);
      }
      const changedAt = Date.now();
      this.syncsRequested += 1;
      const auth = this.authOf(user);
      // The user present, as in an app they look at: not one of the bank's daily reads without them.
      const asked = await this.api('POST', `/v1/accounts/${account.id}/sync`, {
        auth,
        headers: USER_PRESENT,
      });
      const syncId = asked.body?.data?.syncId;
      if (asked.status !== 202 || !syncId) return;
      const run = await this.runEnd(syncId, auth);
      if (run?.status !== 'succeeded') return;
      if (!(Date.parse(run.startedAt) >= changedAt)) {
        this.runChecks.unchecked += 1;
        return;
      }
      await this.checkStored(account, row, run);
    } finally {
      account.busy = false;
    }
  }

  /** The run once it ended, or undefined when it has not within RUN_END_MS (the quiesce looks again). */
  async runEnd(syncId, auth) {
    const deadline = Date.now() + RUN_END_MS;
    while (Date.now() < deadline && !this.stopped) {
      const res = await this.api('GET', `/v1/syncs/${syncId}`, { auth });
      const run = res.body?.data;
      if (run?.status === 'succeeded' || run?.status === 'failed') return run;
      await sleep(500);
    }
    return undefined;
  }

  async checkStored(account, row, run) {
    const tracked = [...account.added, ...account.removed];
    const [stored] = await this.db(
      `SELECT count(*)::int AS n, coalesce(array_agg(raw->>'id') FILTER (WHERE raw->>'id' = ANY($2::text[])), '{}') AS present
       FROM transactions WHERE account_id = $1`,
      [account.id, tracked],
    );
    const bank = await this.sandboxCall('GET', `/sandbox/admin/consents/${row.upstream_consent_id}/accounts`);
    const count = bank.body?.data?.find((a) => a.id === row.upstream_account_id)?.transactionCount;
    const present = new Set(stored.present);
    const missing = account.added.filter((id) => !present.has(id));
    const kept = account.removed.filter((id) => present.has(id));
    this.runChecks.checked += 1;
    if (stored.n !== count || missing.length || kept.length)
      this.runChecks.problems.push(
        `run ${run.id} of account ${account.id}: stored ${stored.n}, bank ${count}, ${missing.length} added missing [${missing.slice(0, 3)}], ${kept.length} removed still stored [${kept.slice(0, 3)}]`,
      );
  }

  async singlePayment() {
    const created = await this.createPayment();
    if (!created) return;
    const back = await this.approveAtBank(created.authorisationUrl);
    this.approved(created.payment, back);
  }

  /**
   * Payments approved at the bank whose users come back to us while `outage` runs (Postgres restarted
   * during bank callbacks): each callback must answer the 503 page until it can store the approval, then
   * send the user to the merchant.
   */
  async paymentsThroughOutage(count, outage) {
    const created = (await Promise.all(Array.from({ length: count }, () => this.createPayment()))).filter(
      Boolean,
    );
    const atBank = await Promise.all(created.map((c) => this.approveOnly(c.authorisationUrl)));
    const down = outage();
    await sleep(300);
    await Promise.all(
      created.map(async (c, i) =>
        this.approved(c.payment, atBank[i].ok ? await this.backToUs(atBank[i].callback) : atBank[i]),
      ),
    );
    await down;
  }

  approved(payment, back) {
    payment.authorised = back.ok;
    if (!back.ok) this.givenUp.push({ what: `payment ${payment.id} at the bank`, status: back.why });
  }

  async createPayment() {
    const user = this.rng.pick(this.users);
    const pence = this.rng.pick([0, 12, 34, 50, 75, 99, 98]);
    const amount = `${this.rng.int(1, 40)}.${String(pence).padStart(2, '0')}`;
    const key = `pay-${user.reference}-${this.rng.int(1, 1e9)}`;
    const created = await this.api('POST', `/v1/users/${user.id}/payments`, {
      auth: user.merchant.key,
      idempotencyKey: key,
      body: {
        institutionId: 'sandbox-payments',
        amount: { amount, currency: 'GBP' },
        payee: PAYEE,
        reference: `Order ${key.slice(-6)}`,
        redirectUrl: REDIRECT_URL,
      },
      expect: 201,
    });
    if (created.status !== 201) return undefined;
    const payment = { id: created.body.data.id, kind: 'SINGLE', amount, authorised: false };
    this.payments.push(payment);
    return { payment, authorisationUrl: created.body.data.authorisationUrl };
  }

  /** A burst of VRP payments at once: together they may exceed the limit, and must not get past it. */
  async vrpBurst() {
    const owners = this.users.filter((u) => u.vrp);
    if (!owners.length) return;
    const user = this.rng.pick(owners);
    const burst = Array.from({ length: this.rng.int(1, 3) }, () => ({
      amount: `${this.rng.int(1, VRP_LIMITS.perPayment - 1)}.${String(this.rng.int(0, 96)).padStart(2, '0')}`,
      key: `vrp-pay-${user.reference}-${this.rng.int(1, 1e9)}`,
    }));
    await Promise.all(
      burst.map(async ({ amount, key }) => {
        const res = await this.api('POST', `/v1/vrp/consents/${user.vrp.consentId}/payments`, {
          auth: this.authOf(user),
          idempotencyKey: key,
          body: { amount: { amount, currency: 'GBP' } },
        });
        if (res.status === 201)
          this.payments.push({ id: res.body.data.id, kind: 'VRP', amount, authorised: true });
        else if (res.status === 422) this.vrpRefusals += 1;
      }),
    );
  }

  /** Upstream webhooks about nothing of ours (ignored or unmatched), some sent twice. */
  async emitWebhook() {
    this.emitted += 1;
    const type = this.rng.pick([
      'consent.state.authorized',
      'payment.state.success',
      'consent.state.revoked',
    ]);
    await this.sandboxCall('POST', '/sandbox/admin/webhooks/emit', {
      type,
      data: type.startsWith('payment')
        ? { paymentId: `soak-none-${this.rng.int(1, 1e9)}`, status: 'COMPLETED' }
        : { consentId: `soak-none-${this.rng.int(1, 1e9)}` },
      duplicate: this.rng.chance(0.3),
    });
  }

  async step() {
    const roll = this.rng.next();
    if (roll < 0.4) return this.read();
    if (roll < 0.6) return this.changeAndSync();
    if (roll < 0.72) return this.singlePayment();
    if (roll < 0.86) return this.vrpBurst();
    if (roll < 0.94) return this.emitWebhook();
    const user = this.rng.pick(this.users);
    user.sse?.reconnect();
  }

  /** `actors` doing steps at once until `until`. */
  async run(until, actors) {
    await Promise.all(
      Array.from({ length: actors }, async () => {
        while (Date.now() < until && !this.stopped) {
          await this.step().catch((error) => this.givenUp.push({ what: 'load step', status: error.message }));
          await sleep(this.rng.int(100, 400));
        }
      }),
    );
  }

  close() {
    this.stopped = 'hard';
    for (const user of this.users) user.sse?.close();
    this.receiver?.closeAllConnections();
    this.receiver?.close();
  }
}
