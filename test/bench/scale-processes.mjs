// The scale bench's api processes: their environment (every read going to Postgres), and the first-page
// read spread over more of them.
import { benchPorts, startApp, tuned } from './processes.mjs';

export const QUEUE_PREFIX = 'bff-bench-scale';

/** The api's environment: every read going to Postgres (no page caches). */
export function apiEnv(databaseUrl) {
  return {
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX,
    ...tuned({ storedPageCacheMb: 0, readCacheMb: 0 }),
    UPSTREAM_WEBHOOK_AUTO_REGISTER: 'false',
  };
}

/** One more api process on `port`, as startSandboxAndApi starts the first: unthrottled, on the sandbox. */
function startApi(databaseUrl, sandboxUrl, port) {
  return startApp(
    `api-${port}`,
    'dist/apps/api/src/main.js',
    {
      ...apiEnv(databaseUrl),
      UPSTREAM_BASE_URL: sandboxUrl,
      API_PORT: String(port),
      API_HOST: '127.0.0.1',
      API_PUBLIC_URL: `http://127.0.0.1:${port}`,
      RATE_LIMIT_PER_MINUTE: '1000000',
    },
    '/health/live',
    port,
  );
}

/** The first-page read with its load spread over 1, 2, 4… api processes, on the same database. */
export async function processCurve(api, sandboxUrl, databaseUrl, auth, accountId, { counts, measure, log }) {
  const extra = [];
  const curve = [];
  try {
    for (const n of counts) {
      while (extra.length + 1 < n)
        extra.push(await startApi(databaseUrl, sandboxUrl, benchPorts().api + 1 + extra.length));
      const urls = [api, ...extra]
        .slice(0, n)
        .map((a) => `${a.url}/v1/accounts/${accountId}/transactions?limit=100`);
      const m = await measure(urls, auth);
      curve.push({ processes: n, ...m });
      log(`${n} api process(es): ${m.rps.toFixed(0)} req/s, p99 ${m.p99.toFixed(2)} ms`);
    }
  } finally {
    for (const a of extra) await a.stop();
  }
  return curve;
}
