// Scenario "sandbox: 1000-transaction page": the sandbox's GET /accounts/{id}/transactions against a bare
// Fastify server that ships the byte-identical bodies from memory, so the ratio is the sandbox's own
// overhead (auth, consent check, paging, Nest) over the bare cost of sending ~1 MB of JSON.
import { Buffer } from 'node:buffer';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { USER_PRESENT } from '../../kit/user-present.mjs';
import { BenchFailure } from '../bench-failure.mjs';
import { latencyStats } from '../load-generator.mjs';
import { failureOf, measureRounds, ratioOf } from '../rounds.mjs';

const ROOT = new URL('../../../', import.meta.url);
const DIST_BOOTSTRAP = new URL('dist/apps/sandbox/src/bootstrap.js', ROOT);
const DIST_CONFIG = new URL('dist/libs/config/src/index.js', ROOT);
const JSON_TYPE = 'application/json;charset=UTF-8';
const PAGE = 1000;
const EXPECTED_TRANSACTIONS = 6500;
const OFFSETS = [0, 1000, 2000, 3000, 4000, 5000, 6000];

export { BenchFailure };

/** One request for setup (no keep-alive, so nothing lingers): status and body. */
function call(baseUrl, method, path, headers = {}, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      new URL(path, baseUrl),
      {
        method,
        agent: false,
        headers: payload ? { ...headers, 'content-type': 'application/json' } : headers,
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no response within 30 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

async function expectOk(label, promise, status = 200) {
  const res = await promise;
  if (res.status !== status) {
    throw new BenchFailure(
      `${label}: HTTP ${res.status} (expected ${status}): ${res.body.toString('utf8').slice(0, 300)}`,
    );
  }
  return res;
}

/**
 * The sandbox in this process, on a random loopback port, closed by `closers`: no child process sits
 * between the bench and what it times. Answers its config (admin token, credentials) and URL.
 */
export async function startInProcessSandbox(closers) {
  await import('reflect-metadata');
  const { createSandboxApp } = await import(DIST_BOOTSTRAP.href);
  const { loadConfig } = await import(DIST_CONFIG.href);
  const config = loadConfig({ LOG_LEVEL: 'warn', SANDBOX_HOST: '127.0.0.1', SANDBOX_PORT: '0' });
  const { app } = await createSandboxApp(config);
  closers.push(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { config, url: `http://127.0.0.1:${app.getHttpServer().address().port}` };
}

const transactionsPath = (accountId, limit, offset) =>
  `/accounts/${encodeURIComponent(accountId)}/transactions?limit=${limit}&offset=${offset}`;

export async function sandboxTransactionPage({ load, options, progress }) {
  if (!existsSync(DIST_BOOTSTRAP) || !existsSync(DIST_CONFIG)) {
    throw new BenchFailure(
      'dist/ is missing: run `npm run build` first (or use `npm run bench`, which builds).',
    );
  }
  const { default: Fastify } = await import('fastify');

  const closers = [];
  try {
    // --- the sandbox, in-process, on a random loopback port -----------------------------------------
    const { config, url: sandboxUrl } = await startInProcessSandbox(closers);

    const consentRes = await expectOk(
      'POST /sandbox/admin/consents',
      call(
        sandboxUrl,
        'POST',
        '/sandbox/admin/consents',
        { authorization: `Bearer ${config.sandbox.adminToken}` },
        {
          institutionId: 'sandbox-redirect',
          applicationUserId: 'bench-user',
        },
      ),
      201,
    );
    const consentToken = JSON.parse(consentRes.body).data?.consentToken;
    if (!consentToken)
      throw new BenchFailure('POST /sandbox/admin/consents: no data.consentToken in the response');
    const basic = Buffer.from(
      `${config.upstream.applicationId}:${config.upstream.applicationSecret}`,
    ).toString('base64');
    // The user present: the bench reads one account far more often than a bank's daily allowance of
    // reads without the user (four) would let it.
    const auth = { authorization: `Basic ${basic}`, consent: consentToken, ...USER_PRESENT };

    const accounts = JSON.parse(
      (await expectOk('GET /accounts', call(sandboxUrl, 'GET', '/accounts', auth))).body,
    ).data;
    const current = accounts.find((a) => a.accountType === 'CURRENT');
    if (!current) throw new BenchFailure(`GET /accounts: no CURRENT account among ${accounts.length}`);

    // The first call generates the consent's data; time it once, for information.
    let started = performance.now();
    await expectOk(
      'first transactions page',
      call(sandboxUrl, 'GET', transactionsPath(current.id, PAGE, 0), auth),
    );
    const firstCallMs = performance.now() - started;

    // The bodies the baseline will serve, fetched once; check the walk sees every transaction once.
    const bodies = new Map();
    const ids = new Set();
    for (const offset of OFFSETS) {
      for (const limit of [PAGE, 1]) {
        const path = transactionsPath(current.id, limit, offset);
        const res = await expectOk(`GET ${path}`, call(sandboxUrl, 'GET', path, auth));
        bodies.set(`${limit}|${offset}`, res.body);
        if (limit === PAGE) for (const tx of JSON.parse(res.body).data) ids.add(tx.id);
      }
    }
    if (ids.size !== EXPECTED_TRANSACTIONS) {
      throw new BenchFailure(
        `the offset walk saw ${ids.size} distinct transactions, expected ${EXPECTED_TRANSACTIONS}`,
      );
    }

    // --- the baseline: bare Fastify, same paths, same bytes, from memory --------------------------------
    const bare = Fastify({ logger: false });
    closers.push(() => bare.close());
    bare.get('/accounts/:accountId/transactions', (request, reply) => {
      const body = bodies.get(`${request.query.limit}|${request.query.offset}`);
      if (!body) return reply.code(404).send();
      return reply.type(JSON_TYPE).send(body);
    });
    await bare.listen({ host: '127.0.0.1', port: 0 });
    const bareUrl = `http://127.0.0.1:${bare.server.address().port}`;

    const pages = (limit) => OFFSETS.map((offset) => transactionsPath(current.id, limit, offset));
    const bytesOf = (limit) =>
      OFFSETS.reduce((n, o) => n + bodies.get(`${limit}|${o}`).length, 0) / OFFSETS.length;
    const targets = [
      {
        key: 'bare-1000',
        label: 'bare Fastify, same 1000-tx bodies (baseline)',
        baseUrl: bareUrl,
        paths: pages(PAGE),
        headers: {},
      },
      {
        key: 'sandbox-1000',
        label: 'sandbox, 1000-tx page',
        baseUrl: sandboxUrl,
        paths: pages(PAGE),
        headers: auth,
      },
      {
        key: 'sandbox-1',
        label: 'sandbox, 1-tx page (fixed overhead)',
        baseUrl: sandboxUrl,
        paths: pages(1),
        headers: auth,
      },
      {
        key: 'bare-1',
        label: 'bare Fastify, same 1-tx bodies',
        baseUrl: bareUrl,
        paths: pages(1),
        headers: {},
      },
    ];

    for (const t of targets) t.bodyBytes = Math.round(bytesOf(t.key.endsWith('-1') ? 1 : PAGE));
    const rows = await measureRounds({ load, options, progress }, targets);
    const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
    byKey['sandbox-1000'].ratio = ratioOf(byKey['sandbox-1000'], byKey['bare-1000']);
    byKey['sandbox-1'].ratio = ratioOf(byKey['sandbox-1'], byKey['bare-1000']);
    byKey['sandbox-1'].ratioSameSize = ratioOf(byKey['sandbox-1'], byKey['bare-1']);

    // --- the walk: all 6,500 transactions, page by page, sequential, one keep-alive connection --------
    const walk = {};
    for (const t of [targets[1], targets[0]]) walk[t.key] = { samples: [], bytes: 0 };
    for (let batch = 0; batch < options.walkBatches; batch += 1) {
      for (const t of batch % 2 ? [targets[0], targets[1]] : [targets[1], targets[0]]) {
        progress(`walk batch ${batch + 1}/${options.walkBatches}: ${t.label}`);
        const result = await load('walks', {
          baseUrl: t.baseUrl,
          paths: t.paths,
          headers: t.headers,
          walks: options.walksPerBatch,
          warmupWalks: 1,
          durationMs: 10_000,
        });
        if (result.errorCount > 0) throw failureOf(`walk on ${t.label}`, result);
        walk[t.key].samples.push(...result.samples);
        walk[t.key].bytes = result.bytesPerWalk;
      }
    }
    const walkSummary = (key) => ({
      walks: walk[key].samples.length,
      bytes: walk[key].bytes,
      ms: latencyStats(walk[key].samples),
    });
    const walkSandbox = walkSummary('sandbox-1000');
    const walkBare = walkSummary('bare-1000');

    return {
      name: 'sandbox: 1000-transaction page',
      account: { id: current.id, transactions: ids.size, pages: OFFSETS.length },
      firstCallMs,
      rows,
      walk: {
        description: `${OFFSETS.length} pages of limit=${PAGE}, offset 0..${OFFSETS.at(-1)}, sequential, one keep-alive connection`,
        sandbox: walkSandbox,
        baseline: walkBare,
        ratioMedian: walkSandbox.ms.p50 / walkBare.ms.p50,
      },
    };
  } finally {
    for (const close of closers.reverse()) {
      await close().catch((error) => progress(`close failed: ${error.message}`));
    }
  }
}
