// Scenario "events": P3, the upstream webhook receiver (verified, stored in the inbox, fan-out enqueued)
// at 50 connections against bare Fastify accepting the same POST in the same run; and delivery of 10,000
// outbox events to 10 local endpoints through the worker: events/s and the lag from the outbox insert to
// receipt. Its own database (DATABASE_URL's name + `_bench_events`), dropped and created again.
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { BenchFailure } from '../bench-failure.mjs';
import { benchDatabaseUrl, freshStore } from '../bench-store.mjs';
import { call, expectStatus } from '../http-helpers.mjs';
import { latencyStats, median, percentile } from '../load-generator.mjs';
import {
  onboardMerchant,
  startBare,
  startConsumingWorker,
  startSandboxAndApi,
  tuned,
  until,
} from '../processes.mjs';

const QUEUE_PREFIX = 'bff-bench-events';
const RECEIVER_PATH = '/v1/webhooks/upstream';
/** Signed requests per measured phase: each webhook id is used once, so every request is a new event. */
const FULL = { perPhase: 12_000, deliveryEvents: 10_000, endpoints: 10, pacedEvents: 2_000 };
/** --smoke: every step, a few hundred events to two endpoints. */
const SMOKE = { perPhase: 200, deliveryEvents: 200, endpoints: 2, pacedEvents: 100 };
const PACED_RATE = 500;
/** Outbox events inserted per statement. */
const INSERT_BATCH = 500;
const TARGETS = { ingestVsBare: 0.15, ingestP99Ms: 30 };
const dist = (path) => fileURLToPath(new URL(`../../../dist/${path}`, import.meta.url));

/**
 * `count` webhooks as the upstream sends them: each its own id, signed now. A payment's status for
 * payments nobody holds: `pending` is one the BFF ignores, `success` one it looks up (and finds nothing).
 */
export function signedWebhooks(webhookHeaders, secret, count, round, status = 'pending') {
  const now = Math.floor(Date.now() / 1000);
  return Array.from({ length: count }, (_, i) => {
    const id = `bench-${round}-${i}-${Math.random().toString(36).slice(2, 8)}`;
    const body = JSON.stringify({
      id,
      type: `payment.state.${status}`,
      createdAt: new Date().toISOString(),
      applicationId: 'bench-app',
      data: { paymentId: `p-${round}-${i}`, status: status.toUpperCase(), amount: '12.34', currency: 'GBP' },
    });
    const headers = {
      'content-type': 'application/json',
      ...webhookHeaders({ id, timestampSeconds: now, body, secrets: [secret] }),
    };
    return { path: RECEIVER_PATH, method: 'POST', headers, body };
  });
}

/** Local merchant endpoints on one server: records, per event id, when it first arrived. */
async function startReceivers(endpoints) {
  const received = new Map();
  let requests = 0;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (c) => chunks.push(c));
    request.on('end', () => {
      requests += 1;
      const at = Date.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (!received.has(event.id)) received.set(event.id, at - Date.parse(event.createdAt));
      response.writeHead(200).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    urls: Array.from({ length: endpoints }, (_, i) => `${base}/endpoint-${i}`),
    received,
    requests: () => requests,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}

export async function eventsBench({ load, options, progress }) {
  const {
    perPhase: PER_PHASE,
    deliveryEvents: DELIVERY_EVENTS,
    endpoints: ENDPOINTS,
    pacedEvents: PACED_EVENTS,
  } = options.smoke ? SMOKE : FULL;
  const databaseUrl = benchDatabaseUrl('events');
  const env = {
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX,
    ...tuned({ eventsSweepEverySeconds: 0, syncDispatchEverySeconds: 0 }),
  };
  const { SecretBox, generateWebhookSecret, webhookHeaders } = await import(dist('libs/crypto/src/index.js'));
  const { loadConfig } = await import(dist('libs/config/src/index.js'));
  const { queue, db, closers } = await freshStore(databaseUrl, QUEUE_PREFIX, ['events'], progress);
  try {
    // The receiver's secret, sealed as the admin route stores it (with the keys the apps will load).
    const secret = generateWebhookSecret();
    const box = new SecretBox(loadConfig({ ...process.env, ...env }).crypto.encryptionKeys);
    const sealed = box.seal(secret, 'upstream-webhook:bench-app');
    await db.query(
      `INSERT INTO upstream_webhooks (id, application_id, callback_url, secret_ciphertext, secret_key_id, updated_at)
       VALUES (gen_random_uuid(), 'bench-app', 'http://127.0.0.1/v1/webhooks/upstream', $1, $2, now())`,
      [sealed.ciphertext, sealed.keyId],
    );
    const { api } = await startSandboxAndApi(env, closers);
    const answer = JSON.stringify({ data: { eventId: 'x', duplicate: false }, meta: { tracingId: 'x' } });
    const bare = await startBare(new Map([[RECEIVER_PATH, answer]]));
    closers.push(() => bare.close());

    const connections = options.apiConnections;
    const sampleBytes = Buffer.byteLength(signedWebhooks(webhookHeaders, secret, 1, 'size')[0].body);
    const phase = (baseUrl, paths, warm) =>
      load('load', {
        baseUrl,
        paths,
        connections,
        warmupMs: warm ? options.warmupMs : 0,
        warmupRequests: warm ? 2_000 : 0,
        durationMs: options.durationMs,
        requests: paths.length,
        expectStatus: 200,
      });
    const rows = { bare: [], ours: [] };
    for (let round = 0; round < options.rounds; round += 1) {
      progress(`round ${round + 1}/${options.rounds}: webhook ingest, ours and bare Fastify`);
      const ours = await phase(
        api.url,
        signedWebhooks(webhookHeaders, secret, PER_PHASE, round),
        round === 0,
      );
      if (ours.errorCount > 0) {
        const e = ours.errors[0];
        throw new BenchFailure(`webhook ingest: HTTP ${e.status ?? ''} ${e.error ?? ''} ${e.body ?? ''}`);
      }
      const base = await phase(
        bare.url,
        signedWebhooks(webhookHeaders, secret, PER_PHASE, `b${round}`),
        round === 0,
      );
      for (const [key, r] of [
        ['ours', ours],
        ['bare', base],
      ]) {
        rows[key].push({
          rps: (r.completed * 1000) / r.elapsedMs,
          samples: r.samples,
          completed: r.completed,
        });
      }
    }
    const stored = Number((await db.query('SELECT count(*) FROM inbound_events')).rows[0].count);
    const summarise = (list) => {
      const all = list.flatMap((r) => Array.from(r.samples)).sort((a, b) => a - b);
      return { rps: median(list.map((r) => r.rps)), latencyMs: latencyStats(Float64Array.from(all)) };
    };
    const ingest = summarise(rows.ours);
    const bareIngest = summarise(rows.bare);
    const ratios = rows.ours.map((r, i) => r.rps / rows.bare[i].rps);
    const ingestRatio = median(ratios);

    // ---- delivery ----
    progress(`delivery: ${DELIVERY_EVENTS} outbox events to ${ENDPOINTS} endpoints through one worker`);
    const receivers = await startReceivers(ENDPOINTS);
    closers.push(() => receivers.close());
    const merchants = [];
    for (let i = 0; i < ENDPOINTS; i += 1) {
      const { merchantId, auth } = await onboardMerchant(api.url, `events bench ${i}`);
      await expectStatus(
        'POST /v1/event-endpoints',
        call(api.url, 'POST', '/v1/event-endpoints', auth, { url: receivers.urls[i], types: [] }),
        201,
      );
      merchants.push(merchantId);
    }
    // The ingest rounds' events wait for fan-out: not this measurement's work.
    await queue.obliterate({ force: true });
    await db.query('TRUNCATE inbound_events');
    const worker = await startConsumingWorker(env, queue, closers, 30_000);
    // As the sync and fan-out record them: one statement per batch, with the NOTIFY the relay listens for.
    const insertEvents = (from, count) =>
      db.query(
        `WITH inserted AS (
           INSERT INTO merchant_events (id, merchant_id, user_id, type, data)
           SELECT gen_random_uuid(), ($1::uuid[])[1 + n % $2], NULL, 'transactions.changed',
                  jsonb_build_object('accountId', gen_random_uuid(), 'progress', jsonb_build_object('inserted', n))
           FROM generate_series($3::int, $3::int + $4 - 1) AS n
           RETURNING 1)
         SELECT count(*) FROM (SELECT pg_notify('merchant_events', count(*)::text) FROM inserted) notified`,
        [merchants, ENDPOINTS, from, count],
      );
    // A burst: all 10,000 at once. The lag is mostly the backlog's; the rate is what matters.
    const started = performance.now();
    for (let i = 0; i < DELIVERY_EVENTS; i += INSERT_BATCH)
      await insertEvents(i, Math.min(INSERT_BATCH, DELIVERY_EVENTS - i));
    const insertedMs = performance.now() - started;
    await until(
      `all ${DELIVERY_EVENTS} events received`,
      async () => (receivers.received.size >= DELIVERY_EVENTS ? true : undefined),
      300_000,
    );
    const deliveryMs = performance.now() - started;
    const lags = Float64Array.from(receivers.received.values()).sort();
    // Then a steady flow well under that rate (50 events every 100 ms): the lag an event sees when the
    // system keeps up, from its commit to the endpoint's receipt.
    const burstLags = receivers.received.size;
    progress(`delivery: ${PACED_EVENTS} more events at ${PACED_RATE}/s`);
    // Each batch is due at its own tenth of a second from the start, whatever the inserts took, and the
    // rate achieved is reported beside the one asked for.
    const pacedStarted = performance.now();
    for (let i = 0; i < PACED_EVENTS; i += PACED_RATE / 10) {
      const due = pacedStarted + (i / PACED_RATE) * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      await insertEvents(DELIVERY_EVENTS + i, PACED_RATE / 10);
    }
    // The last batch's tenth of a second is part of the pace: a slow insert makes it longer.
    const pacedEnd = pacedStarted + (PACED_EVENTS / PACED_RATE) * 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, pacedEnd - performance.now())));
    const pacedAchieved = PACED_EVENTS / ((performance.now() - pacedStarted) / 1000);
    await until(
      `all ${PACED_EVENTS} paced events received`,
      async () => (receivers.received.size >= DELIVERY_EVENTS + PACED_EVENTS ? true : undefined),
      120_000,
    );
    const pacedLags = Float64Array.from([...receivers.received.values()].slice(burstLags)).sort();
    const workerMemory = worker.memory();
    const delivery = {
      events: DELIVERY_EVENTS,
      endpoints: ENDPOINTS,
      requests: receivers.requests(),
      insertSeconds: insertedMs / 1000,
      seconds: deliveryMs / 1000,
      eventsPerSecond: DELIVERY_EVENTS / (deliveryMs / 1000),
      lagMs: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags[lags.length - 1] },
      paced: {
        events: PACED_EVENTS,
        perSecond: PACED_RATE,
        achievedPerSecond: pacedAchieved,
        lagMs: {
          p50: percentile(pacedLags, 50),
          p99: percentile(pacedLags, 99),
          max: pacedLags[pacedLags.length - 1],
        },
      },
      workerRssMiB: workerMemory.rssMiB,
    };

    const met = ingestRatio >= TARGETS.ingestVsBare && ingest.latencyMs.p99 < TARGETS.ingestP99Ms;
    const rowOf = (key, label, rounds, stats) => ({
      key,
      label,
      bodyBytes: sampleBytes,
      requests: rounds.reduce((n, r) => n + r.completed, 0),
      rps: stats.rps,
      latencyMs: stats.latencyMs,
    });
    const ingestRow = {
      ...rowOf('ingest', 'POST /v1/webhooks/upstream (verify, store, enqueue)', rows.ours, ingest),
      ratio: { rps: ingestRatio, rpsMedianOfRounds: ingestRatio },
    };
    const bareRow = rowOf('bare', 'bare Fastify accepting the same POST', rows.bare, bareIngest);
    const times = (n) => `×${n.toFixed(2)}`;
    return {
      kind: 'events',
      name: `events (${connections} connections; ${options.rounds} rounds)`,
      rows: [bareRow, ingestRow],
      ingest: { ratio: ingestRatio, ratiosByRound: ratios, stored, meetsTarget: met, target: TARGETS },
      delivery,
      notes: [
        `P3 webhook ingest: ${ingest.rps.toFixed(0)} req/s vs bare ${bareIngest.rps.toFixed(0)} → ${times(ingestRatio)} (rounds ${ratios.map(times).join(' ')}), p99 ${ingest.latencyMs.p99.toFixed(1)} ms; target ×${TARGETS.ingestVsBare}, p99 < ${TARGETS.ingestP99Ms} ms → ${met ? 'met' : 'NOT met'}; ${stored} events stored`,
        `delivery: ${DELIVERY_EVENTS} events (inserted in ${delivery.insertSeconds.toFixed(2)} s) to ${ENDPOINTS} endpoints in ${delivery.seconds.toFixed(2)} s = ${delivery.eventsPerSecond.toFixed(0)} events/s; burst lag outbox → receipt p50 ${delivery.lagMs.p50.toFixed(0)} ms, p99 ${delivery.lagMs.p99.toFixed(0)} ms; worker RSS ${delivery.workerRssMiB.toFixed(0)} MiB`,
        `delivery at a steady ${PACED_RATE} events/s (${pacedAchieved.toFixed(0)}/s achieved; ${PACED_EVENTS} events): lag outbox → receipt p50 ${delivery.paced.lagMs.p50.toFixed(0)} ms, p99 ${delivery.paced.lagMs.p99.toFixed(0)} ms, max ${delivery.paced.lagMs.max.toFixed(0)} ms; ${delivery.requests} requests in all (at least once: a repeat would show here)`,
      ],
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}
