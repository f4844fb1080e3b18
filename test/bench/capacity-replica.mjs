// The capacity bench's second part (test/bench/capacity.mjs): the hot read by one api process with every
// read on the primary, then with a streaming replica, and the CPU each process and server spent a page.
import { startPrivateReplica } from '../kit/private-replica.mjs';
import { cpuMicros, serverCpuSeconds } from './cpu.mjs';
import { call, expectStatus } from './http-helpers.mjs';
import { benchPorts, onboardMerchant, startApi, startHeadless, until } from './processes.mjs';
import { connectBank } from './scenarios/api-reads.mjs';

/** CPU seconds of one private cluster's own processes, ended backends included (serverCpuSeconds). */
const clusterCpuSeconds = (server) => serverCpuSeconds(server.postmasterPid());

/**
 * The hot read (a stored transactions page, caches off) by one api process for --seconds, first with every
 * read on the primary, then with DATABASE_REPLICA_URL: the api's, the primary's and the replica's CPU per
 * request. The replica's extra work in the api (its position polled, a merchant's fence read from Redis)
 * shows in the api's figure; what leaves the primary, in its.
 */
export async function replicaReads({ postgres, sandbox, base, load, log }) {
  const closers = [];
  try {
    const replica = await startPrivateReplica(postgres);
    closers.push(() => replica.destroy());
    // The data: a bank connected and synced by a worker, then both set-up processes stopped.
    const setupClosers = [];
    closers.push(async () => {
      for (const close of setupClosers.reverse()) await close();
    });
    const worker = startHeadless('worker', 'dist/apps/worker/src/main.js', {
      ...base,
      DATABASE_URL: postgres.url,
      UPSTREAM_BASE_URL: sandbox.url,
    });
    setupClosers.push(() => worker.stop());
    const setup = await startApi(
      'api-reads-setup',
      { ...base, DATABASE_URL: postgres.url },
      sandbox,
      benchPorts().api,
      setupClosers,
    );
    const merchant = await onboardMerchant(setup.url, 'Replica Reads Co');
    const user = await expectStatus(
      'POST /v1/users',
      call(setup.url, 'POST', '/v1/users', merchant.auth, { reference: 'reader' }),
      201,
    );
    const userId = user.body.data.id;
    await connectBank(setup.url, merchant.auth, userId);
    const accountId = await until(
      'the first sync',
      async () => {
        const accounts =
          (await call(setup.url, 'GET', `/v1/users/${userId}/accounts`, merchant.auth)).body?.data ?? [];
        return accounts.length > 0 && accounts.every((a) => a.sync.status === 'synced')
          ? accounts[0].id
          : undefined;
      },
      120_000,
    );
    for (const close of setupClosers.splice(0).reverse()) await close();
    const rows = [];
    for (const [label, env] of [
      ['every read on the primary', { ...base, DATABASE_URL: postgres.url }],
      [
        'with DATABASE_REPLICA_URL',
        { ...base, DATABASE_URL: postgres.url, DATABASE_REPLICA_URL: replica.url },
      ],
    ]) {
      const apiClosers = [];
      try {
        const api = await startApi('api-reads', env, sandbox, benchPorts().api, apiClosers);
        const url = `${api.url}/v1/accounts/${accountId}/transactions?limit=100`;
        // Warm: the replica polled, connections open, code paths compiled.
        await load([url], merchant.auth, 2);
        const before = {
          api: cpuMicros(api.pid) / 1e6,
          primary: clusterCpuSeconds(postgres),
          replica: clusterCpuSeconds(replica),
        };
        const result = await load([url], merchant.auth);
        const ok = result.statuses[200] ?? 0;
        const per = (seconds) => (seconds * 1000) / Math.max(1, ok);
        const row = {
          label,
          requests: result.requests,
          statuses: result.statuses,
          apiCpuMsPerRequest: per(cpuMicros(api.pid) / 1e6 - before.api),
          primaryCpuMsPerRequest: per(clusterCpuSeconds(postgres) - before.primary),
          replicaCpuMsPerRequest: per(clusterCpuSeconds(replica) - before.replica),
        };
        log(
          `${label}: ${ok} pages, CPU per page: api ${row.apiCpuMsPerRequest.toFixed(3)} ms, primary ${row.primaryCpuMsPerRequest.toFixed(3)} ms, replica ${row.replicaCpuMsPerRequest.toFixed(3)} ms`,
        );
        rows.push(row);
      } finally {
        for (const close of apiClosers.reverse()) await close();
      }
    }
    return rows;
  } finally {
    for (const close of closers.reverse()) await close().catch((error) => log(`cleanup: ${error.message}`));
  }
}
