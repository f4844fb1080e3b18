// Scenario "sandbox at scale": a page of 100 transactions (the newest of each consent's current account)
// while rotating over 1, 100 and 10,000 consents, as a sync rotating over every customer would read it,
// against bare Fastify serving one such page's bytes. The sandbox runs as its own process, so its
// resident memory is its own. Each consent's first read builds its balance summary; that cold pass is
// timed on its own, then the rotations are measured warm, as the single consent is.
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { USER_PRESENT } from '../../kit/user-present.mjs';
import { BenchFailure } from '../bench-failure.mjs';
import { call, expectStatus, inParallel } from '../http-helpers.mjs';
import { startBare, startBenchSandbox } from '../processes.mjs';
import { measureRounds, ratioOf } from '../rounds.mjs';

const ROTATIONS = [1, 100, 10_000];
/** --smoke: the same steps over a few consents. */
const SMOKE_ROTATIONS = [1, 20];
const PAGE = 100;
const ADMIN = { authorization: `Bearer ${process.env.SANDBOX_ADMIN_TOKEN ?? 'sandbox-admin-token'}` };
const APP_ID = process.env.UPSTREAM_APPLICATION_ID ?? '00000000-0000-4000-8000-000000000001';
const APP_SECRET = process.env.UPSTREAM_APPLICATION_SECRET ?? 'sandbox-secret';

export async function sandboxRotation({ load, options, progress }) {
  const rotations = options.smoke ? SMOKE_ROTATIONS : ROTATIONS;
  const sandbox = await startBenchSandbox();
  const closers = [() => sandbox.stop()];
  try {
    const consents = Math.max(...rotations);
    progress(`creating ${consents} consents at the sandbox`);
    let started = performance.now();
    const created = await inParallel(consents, 16, async (i) => {
      const res = await expectStatus(
        'POST /sandbox/admin/consents',
        call(sandbox.url, 'POST', '/sandbox/admin/consents', ADMIN, {
          institutionId: 'sandbox-redirect',
          applicationUserId: `bench-rotation-${i}`,
        }),
        201,
      );
      const { consentToken, accounts } = res.body.data;
      const current = accounts?.find((a) => a.accountType === 'CURRENT');
      if (!consentToken || !current)
        throw new BenchFailure('POST /sandbox/admin/consents: no token or account');
      return {
        path: `/accounts/${current.id}/transactions?limit=${PAGE}`,
        headers: {
          authorization: `Basic ${Buffer.from(`${APP_ID}:${APP_SECRET}`).toString('base64')}`,
          consent: consentToken,
          // The user present: the rounds read each account more often than a bank's daily allowance.
          ...USER_PRESENT,
        },
      };
    });
    const createMs = performance.now() - started;

    progress(`first read of each of the ${consents} consents (builds its balance summaries)`);
    started = performance.now();
    let firstBody;
    await inParallel(consents, 4, async (i) => {
      const res = await expectStatus(
        `GET ${created[i].path}`,
        call(sandbox.url, 'GET', created[i].path, created[i].headers),
      );
      if (res.body.data?.length !== PAGE)
        throw new BenchFailure(`GET ${created[i].path}: not ${PAGE} records`);
      if (i === 0) firstBody = Buffer.from(res.text);
    });
    const coldMs = performance.now() - started;
    const afterCold = sandbox.memory();

    const bare = await startBare(new Map([['/page', firstBody]]));
    closers.push(() => bare.close());
    const targets = [
      { key: 'bare', label: 'bare Fastify, one page of 100 (baseline)', baseUrl: bare.url, paths: ['/page'] },
      ...rotations.map((n) => ({
        key: `rotate-${n}`,
        label: `sandbox, page of 100 rotating over ${n} consent(s)`,
        baseUrl: sandbox.url,
        paths: created.slice(0, n),
      })),
    ];
    for (const t of targets) t.bodyBytes = firstBody.length;
    const rows = await measureRounds({ load, options, progress }, targets);
    const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
    for (const n of rotations) {
      byKey[`rotate-${n}`].ratio = ratioOf(byKey[`rotate-${n}`], byKey.bare);
      byKey[`rotate-${n}`].ratioToOne = ratioOf(byKey[`rotate-${n}`], byKey['rotate-1']);
    }
    const memory = sandbox.memory();
    return {
      kind: 'sandbox-rotation',
      name: 'sandbox at scale: a page of 100 rotating over consents',
      consents,
      setup: {
        createConsentsMs: createMs,
        coldFirstReadsMs: coldMs,
        coldReadsPerSecond: (consents * 1000) / coldMs,
        rssAfterColdMiB: afterCold.rssMiB,
      },
      rows,
      memory,
      target: { ratioToOne: 0.8, rssMiB: 300 },
      meetsTarget: byKey[`rotate-${consents}`].ratioToOne.rpsMedianOfRounds >= 0.8 && memory.peakRssMiB < 300,
    };
  } finally {
    for (const close of closers.reverse()) {
      await close().catch((error) => progress(`close failed: ${error.message}`));
    }
  }
}
