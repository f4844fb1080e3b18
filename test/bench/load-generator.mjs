// A small keep-alive HTTP load generator (node:http only). Runs in any thread; run.mjs runs it in a worker
// thread so the client has its own event loop and does not share one with the servers it measures.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);
/** Hard caps, whatever a job asks for: the bench must stay bounded in count and in time. */
const MAX_REQUESTS = 200_000;
const MAX_PHASE_MS = 30_000;
const MAX_CONNECTIONS = 64;
const MAX_RATE = 100_000;
/** A body kept for an error message is cut here. */
const SNIPPET_BYTES = 300;

/** Only loopback targets: the bench must never load anything off this machine. */
export function loopbackTarget(baseUrl) {
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(host)) {
    throw new Error(`load generator: refusing non-loopback target ${baseUrl}`);
  }
  return { host, port: Number(url.port) };
}

const clamp = (value, lo, hi) => Math.min(hi, Math.max(lo, Math.floor(Number(value) || 0)));

/** One request (a GET, or a POST of `body`): status, body size and latency (start → last byte). */
function request(agent, target, path, headers, timeoutMs, method = 'GET', body = undefined) {
  return new Promise((resolve) => {
    const start = performance.now();
    const req = http.request({ agent, ...target, path, method, headers }, (res) => {
      let bytes = 0;
      const keep = res.statusCode === 200 ? null : [];
      res.on('data', (chunk) => {
        bytes += chunk.length;
        if (keep && bytes - chunk.length < SNIPPET_BYTES) keep.push(chunk);
      });
      res.on('end', () => {
        const ms = performance.now() - start;
        const snippet = keep ? Buffer.concat(keep).subarray(0, SNIPPET_BYTES).toString('utf8') : undefined;
        resolve({ status: res.statusCode, bytes, ms, snippet, reused: req.reusedSocket });
      });
      res.on('error', (error) =>
        resolve({ error: `response: ${error.message}`, ms: performance.now() - start }),
      );
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no response within ${timeoutMs} ms`)));
    req.on('error', (error) => resolve({ error: error.message, ms: performance.now() - start }));
    req.end(body);
  });
}

/**
 * `connections` workers share one request counter and stop at `maxRequests` requests or `durationMs`,
 * whichever comes first. With `ratePerSecond`, request i is sent no earlier than i / rate seconds after
 * the start (an even pace, as long as the server keeps up); without, each worker sends its next request
 * as soon as the last is answered. Request i asks for paths[i % paths.length] (a path, or { path, headers }). The first unexpected status stops
 * the phase (it would fail the run anyway); network errors stop it after `maxErrors`.
 */
async function phase(agent, target, job, maxRequests, durationMs, record) {
  const samples = record ? new Float64Array(maxRequests) : null;
  const state = {
    issued: 0,
    completed: 0,
    bytes: 0,
    newConnections: 0,
    errors: [],
    errorCount: 0,
    stop: false,
  };
  const started = performance.now();
  const deadline = started + durationMs;
  const intervalMs = job.ratePerSecond ? 1000 / job.ratePerSecond : 0;
  const loop = async () => {
    while (!state.stop && state.issued < maxRequests && performance.now() < deadline) {
      const slot = state.issued;
      const { path, headers, method, body } = job.targets[slot % job.targets.length];
      state.issued += 1;
      const early = started + slot * intervalMs - performance.now();
      if (early >= 1) await new Promise((resolve) => setTimeout(resolve, early));
      if (performance.now() >= deadline) break;
      const r = await request(agent, target, path, headers, job.timeoutMs, method, body);
      if (r.error || r.status !== job.expectStatus) {
        state.errorCount += 1;
        if (state.errors.length < 5) {
          state.errors.push({ path, status: r.status, error: r.error, body: r.snippet });
        }
        if (!r.error || state.errorCount >= job.maxErrors) state.stop = true;
        continue;
      }
      if (samples) samples[state.completed] = r.ms;
      state.completed += 1;
      state.bytes += r.bytes;
      if (!r.reused) state.newConnections += 1;
    }
  };
  await Promise.all(Array.from({ length: job.connections }, loop));
  return {
    elapsedMs: performance.now() - started,
    completed: state.completed,
    bytes: state.bytes,
    newConnections: state.newConnections,
    errorCount: state.errorCount,
    errors: state.errors,
    samples: samples ? samples.slice(0, state.completed) : null,
  };
}

function normalise(job) {
  if (!Array.isArray(job.paths) || job.paths.length === 0) throw new Error('load generator: no paths');
  const headers = { ...(job.headers ?? {}) };
  return {
    // A path is a string, or { path, headers, method?, body? }: headers of its own (one consent token per
    // path), or a POST with its own body (one signed webhook per request).
    targets: job.paths.map((p) =>
      typeof p === 'string'
        ? { path: p, headers }
        : { path: p.path, headers: { ...headers, ...p.headers }, method: p.method, body: p.body },
    ),
    headers,
    connections: clamp(job.connections ?? 1, 1, MAX_CONNECTIONS),
    requests: clamp(job.requests ?? MAX_REQUESTS, 1, MAX_REQUESTS),
    durationMs: clamp(job.durationMs ?? MAX_PHASE_MS, 1, MAX_PHASE_MS),
    warmupRequests: clamp(job.warmupRequests ?? 0, 0, MAX_REQUESTS),
    warmupMs: clamp(job.warmupMs ?? 0, 0, MAX_PHASE_MS),
    timeoutMs: clamp(job.timeoutMs ?? 10_000, 100, MAX_PHASE_MS),
    expectStatus: job.expectStatus ?? 200,
    ratePerSecond: job.ratePerSecond ? clamp(job.ratePerSecond, 1, MAX_RATE) : 0,
    maxErrors: clamp(job.maxErrors ?? 10, 1, 1000),
  };
}

/**
 * A warm-up phase (not recorded), then a measured phase over `connections` keep-alive connections.
 * Returns the measured phase's per-request latencies (ms) as `samples`, plus counts and errors.
 */
export async function runLoad(job) {
  const target = loopbackTarget(job.baseUrl);
  const j = normalise(job);
  const agent = new http.Agent({ keepAlive: true, maxSockets: j.connections, maxFreeSockets: j.connections });
  try {
    if (j.warmupRequests > 0 && j.warmupMs > 0) {
      const warm = await phase(agent, target, j, j.warmupRequests, j.warmupMs, false);
      if (warm.errorCount > 0) return { phase: 'warm-up', ...warm, samples: new Float64Array(0) };
    }
    return { phase: 'measure', ...(await phase(agent, target, j, j.requests, j.durationMs, true)) };
  } finally {
    agent.destroy();
  }
}

/**
 * Sequential walks over `paths` on one keep-alive connection: each walk's wall time, first request
 * start to last byte of the last page. `warmupWalks` unrecorded walks first; at most `walks` recorded
 * walks, and none starts after `durationMs`.
 */
export async function runWalks(job) {
  const target = loopbackTarget(job.baseUrl);
  const j = normalise({ ...job, connections: 1 });
  const walks = clamp(job.walks ?? 10, 1, 10_000);
  const warmupWalks = clamp(job.warmupWalks ?? 0, 0, 100);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1 });
  const samples = [];
  const errors = [];
  let bytes = 0;
  const deadline = performance.now() + j.durationMs;
  try {
    for (let w = 0; w < warmupWalks + walks && performance.now() < deadline; w += 1) {
      const started = performance.now();
      let walkBytes = 0;
      for (const { path, headers } of j.targets) {
        const r = await request(agent, target, path, headers, j.timeoutMs);
        if (r.error || r.status !== j.expectStatus) {
          errors.push({ path, status: r.status, error: r.error, body: r.snippet });
          return {
            completed: samples.length,
            errorCount: errors.length,
            errors,
            samples,
            bytesPerWalk: bytes,
          };
        }
        walkBytes += r.bytes;
      }
      if (w >= warmupWalks) samples.push(performance.now() - started);
      bytes = walkBytes;
    }
    return { completed: samples.length, errorCount: 0, errors, samples, bytesPerWalk: bytes };
  } finally {
    agent.destroy();
  }
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function latencyStats(samples) {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    min: sorted[0] ?? NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
    mean: sorted.length ? sum / sorted.length : NaN,
  };
}
