// Scenario "upstream client: offset walk": all 6,500 transactions of the sandbox's current account, 1000
// per page, through the built UpstreamClient's offset iterator and through a plain `fetch` loop over the
// same URLs and headers, alternating in the same run. The ratio is what the client's typing, envelope
// handling, retry/breaker policies, timeouts and metrics cost over the bare minimum.
import { Buffer } from 'node:buffer';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { USER_PRESENT } from '../../kit/user-present.mjs';
import { latencyStats, median } from '../load-generator.mjs';
import { BenchFailure, startInProcessSandbox } from './sandbox-transactions.mjs';

const ROOT = new URL('../../../', import.meta.url);
const DIST_BOOTSTRAP = new URL('dist/apps/sandbox/src/bootstrap.js', ROOT);
const DIST_CONFIG = new URL('dist/libs/config/src/index.js', ROOT);
const DIST_CLIENT = new URL('dist/libs/upstream-client/src/index.js', ROOT);
const PAGE = 1000;
const EXPECTED_TRANSACTIONS = 6500;
/** The client may cost at most this much over the plain loop (the acceptance bar). */
export const TARGET_OVERHEAD = 0.15;

export async function upstreamClientWalk({ options, progress }) {
  for (const file of [DIST_BOOTSTRAP, DIST_CONFIG, DIST_CLIENT]) {
    if (!existsSync(file))
      throw new BenchFailure(`${file.pathname} is missing: run \`npm run build\` first.`);
  }
  const { createUpstreamClient } = await import(DIST_CLIENT.href);
  const { Registry } = await import('prom-client');

  const closers = [];
  try {
    const { config, url: baseUrl } = await startInProcessSandbox(closers);

    const consent = await fetch(`${baseUrl}/sandbox/admin/consents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${config.sandbox.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ institutionId: 'sandbox-redirect', applicationUserId: 'bench-client-user' }),
    });
    if (consent.status !== 201)
      throw new BenchFailure(`POST /sandbox/admin/consents: HTTP ${consent.status}`);
    const token = (await consent.json()).data.consentToken;

    // The client as the apps build it, with metrics on, pointed at this sandbox.
    const client = createUpstreamClient(
      { ...config, upstream: { ...config.upstream, baseUrl } },
      { registry: new Registry() },
    );
    closers.push(() => client.close());
    // The user present (on both paths): the walks read one account far more often than a bank's daily
    // allowance of reads without the user (four) would let them.
    const psu = { ipAddress: USER_PRESENT['psu-ip-address'] };
    const callOptions = { consent: token, institutionId: 'sandbox-redirect', psu };
    const current = (await client.data.getAccounts(callOptions)).data.find(
      (a) => a.accountType === 'CURRENT',
    );
    if (!current) throw new BenchFailure('no CURRENT account');

    const basic = Buffer.from(
      `${config.upstream.applicationId}:${config.upstream.applicationSecret}`,
    ).toString('base64');
    const headers = {
      authorization: `Basic ${basic}`,
      consent: token,
      accept: 'application/json',
      ...USER_PRESENT,
    };
    const path = `/accounts/${encodeURIComponent(current.id)}/transactions`;

    const viaClient = async () => {
      let n = 0;
      for await (const page of client.data.transactionPages(current.id, { limit: PAGE }, callOptions))
        n += page.data.length;
      return n;
    };
    // The bare minimum: same URLs, same headers, same stop rule, JSON parsed, nothing else.
    const viaFetch = async () => {
      let n = 0;
      for (let offset = 0; ; offset += PAGE) {
        const res = await fetch(`${baseUrl}${path}?limit=${PAGE}&offset=${offset}`, { headers });
        if (res.status !== 200) throw new BenchFailure(`fetch loop: HTTP ${res.status}`);
        const body = await res.json();
        n += body.data.length;
        if (body.data.length < PAGE || body.meta.pagination.totalCount <= PAGE) return n;
      }
    };
    const targets = [
      { key: 'fetch', label: 'plain fetch loop (baseline)', walk: viaFetch },
      { key: 'client', label: 'UpstreamClient.data.transactionPages', walk: viaClient },
    ];

    // Warm both paths (JIT, connections, the sandbox's page cache), then check they see the same data.
    for (const t of targets) {
      for (let i = 0; i < 3; i += 1) {
        const n = await t.walk();
        if (n !== EXPECTED_TRANSACTIONS)
          throw new BenchFailure(`${t.label} saw ${n} transactions, expected ${EXPECTED_TRANSACTIONS}`);
      }
    }

    const samples = { fetch: [], client: [] };
    const rounds = options.rounds * 2;
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 ? targets : [...targets].reverse();
      for (const t of order) {
        progress(`upstream client round ${round + 1}/${rounds}: ${t.label}`);
        for (let i = 0; i < options.walksPerBatch; i += 1) {
          const started = performance.now();
          await t.walk();
          samples[t.key].push(performance.now() - started);
        }
      }
    }
    const summarise = (t) => {
      const ms = latencyStats(Float64Array.from(samples[t.key]));
      return {
        key: t.key,
        label: t.label,
        walks: samples[t.key].length,
        ms,
        transactionsPerSecond: (EXPECTED_TRANSACTIONS * 1000) / ms.p50,
      };
    };
    const rows = targets.map(summarise);
    const [base, mine] = rows;
    const overhead = mine.ms.p50 / base.ms.p50 - 1;
    return {
      kind: 'upstream-client',
      name: 'upstream client: offset walk of 6,500 transactions',
      description: `7 pages of limit=${PAGE}, sequential; ${rows[0].walks} walks per target in ${rounds} alternating rounds, medians`,
      rows,
      overhead,
      overheadPerRound: median(samples.client.map((c, i) => c / samples.fetch[i] - 1)),
      target: TARGET_OVERHEAD,
      meetsTarget: overhead < TARGET_OVERHEAD,
    };
  } finally {
    for (const close of closers.reverse()) {
      await close().catch((error) => progress(`close failed: ${error.message}`));
    }
  }
}
