// Rounds of load over several targets: each target once per round, in a rotated order, so drift on a
// shared machine hits every target alike; latencies pooled over the rounds; ratios per round against
// the same round's baseline.
import { BenchFailure } from './bench-failure.mjs';
import { latencyStats, median } from './load-generator.mjs';

/** What every load of a target asks for. */
const loadOf = (t, options) => ({
  baseUrl: t.baseUrl,
  paths: t.paths,
  headers: t.headers ?? {},
  // Any other status is an error, so a target expecting a 304 cannot be measured on 200s.
  expectStatus: t.expectStatus ?? 200,
  connections: options.connections,
});

/** How long each round's paced phase lasts: long enough for the CPU clock's 10 ms ticks to be fine. */
const PACED_MS = 2_000;
/** Unmeasured pacing before each measured phase: the server settles into the pace. */
const PACED_LEAD_IN_MS = 300;
/** A process counts as settled after the full-speed rounds once it uses less than this CPU a second. */
const SETTLED_CPU_US_PER_S = 10_000;
const SETTLE_LIMIT_MS = 10_000;
/** --smoke: the same steps, short. */
const SMOKE_PACING = { pacedMs: 300, leadInMs: 50, settleLimitMs: 1_000 };
/**
 * A paced round whose load reached less than its rate by more than this share is refused: its CPU per
 * request was read at another pace than the one it is quoted at (the load generator shares two cores with
 * the servers, and a figure read at 2,000 req/s was once quoted from rounds that held 44–92% of it).
 */
export const PACE_TOLERANCE = 0.05;
/**
 * `--cpu-rate auto`: the highest of these rates at most this share of the slowest paced target's req/s at
 * full speed in the same run, so the generator and every server can hold it.
 */
const AUTO_RATE_SHARE = 0.5;
const AUTO_RATES = [20, 50, 100, 200, 250, 500, 750, 1000, 1500, 2000, 3000, 5000];

/** `--cpu-rate auto`'s rate for targets whose full-speed rows are `rows` (0 when none is held). */
export function autoRate(rows) {
  const ceiling = Math.min(...rows.map((r) => r.rps)) * AUTO_RATE_SHARE;
  return AUTO_RATES.filter((rate) => rate <= ceiling).at(-1) ?? 0;
}

/**
 * The servers' CPU and heap per request at an even `rate` of requests a second, in rounds of their own
 * after the full-speed ones. A server's cost per request depends on how hard it is pushed (a saturated
 * one answers many sockets per wake-up; one that waits on its client wakes for each), so servers of
 * different speeds compare only at the same pace, one all of them keep up with. The full-speed rounds
 * leave garbage that a process collects for seconds after (V8's memory reducer): these rounds start once
 * every process has gone quiet, so no server pays for another phase's requests. Each round's achieved
 * rate is kept; a round short of its rate by more than PACE_TOLERANCE marks the target's figure refused.
 */
async function pacedRounds({ load, options, progress }, targets, rateOf, acc) {
  const pacing = options.smoke
    ? SMOKE_PACING
    : { pacedMs: PACED_MS, leadInMs: PACED_LEAD_IN_MS, settleLimitMs: SETTLE_LIMIT_MS };
  progress('waiting for the servers to go quiet before the paced rounds');
  const deadline = Date.now() + pacing.settleLimitMs;
  for (const t of targets) {
    for (;;) {
      const before = t.cpu();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const used = t.cpu() - before;
      // What a process burns with no request to serve, second by second: kept for the report.
      acc.get(t.key).settleCpuMsPerS.push(used / 1000);
      if (used < SETTLED_CPU_US_PER_S || Date.now() > deadline) break;
    }
  }
  for (let round = 0; round < options.rounds; round += 1) {
    for (let i = 0; i < targets.length; i += 1) {
      const t = targets[(i + round) % targets.length];
      const rate = rateOf(t);
      progress(`paced round ${round + 1}/${options.rounds}: ${t.label} at ${rate} req/s`);
      const job = { ...loadOf(t, options), ratePerSecond: rate, warmupRequests: 0 };
      const leadIn = await load('load', { ...job, durationMs: pacing.leadInMs });
      if (leadIn.errorCount > 0) throw failureOf(t.label, leadIn);
      const slots = Math.round((rate * pacing.pacedMs) / 1000);
      const cpuBefore = t.cpu();
      const collectedBefore = t.collected?.() ?? 0;
      // Time to spare for the last slots: a load that cannot keep the pace is cut off at 1.5× the phase.
      const result = await load('load', { ...job, durationMs: pacing.pacedMs * 1.5, requests: slots });
      if (result.errorCount > 0) throw failureOf(t.label, result);
      const a = acc.get(t.key);
      const cpuUs = t.cpu() - cpuBefore;
      a.cpuUs += cpuUs;
      a.cpuUsByRound.push(Math.round(cpuUs / Math.max(1, result.completed)));
      a.collectedMiB += (t.collected?.() ?? 0) - collectedBefore;
      a.pacedRequests += result.completed;
      a.paced.push((result.completed * 1000) / result.elapsedMs);
    }
  }
}

/** What the paced rounds of a target achieved against their rate, and whether its figure stands. */
function paceOf(rate, achieved) {
  if (!rate || achieved.length === 0) return null;
  const lowest = Math.min(...achieved);
  return {
    rate,
    achievedByRound: achieved,
    lowestShare: lowest / rate,
    tolerance: PACE_TOLERANCE,
    held: lowest >= rate * (1 - PACE_TOLERANCE),
  };
}

export function failureOf(label, result) {
  const e = result.errors[0];
  const what = e
    ? e.error
      ? e.error
      : `HTTP ${e.status}: ${(e.body ?? '').slice(0, 300)}`
    : 'unknown error';
  return new BenchFailure(
    `${label}: ${result.errorCount} failed request(s); first: GET ${e?.path} → ${what}`,
  );
}

/**
 * targets: [{ key, label, baseUrl, paths, headers?, expectStatus? (200), bodyBytes?, cpu?, collected?,
 * cpuRate?, paceGroup? }]; with `--cpu-rate auto` the targets of one `paceGroup` (those a figure compares)
 * are paced at a rate of their own. Returns one
 * row per target: requests, req/s, pooled latencies and each round's req/s and p50; with `cpu` (a function
 * answering the serving process's CPU µs so far, see cpuMicros), also its CPU µs per request over the
 * measured phases; with `collected` (MiB the process's collections freed so far, `collectedMiB`), the heap
 * it allocated and let go per request.
 */
export async function measureRounds({ load, options, progress }, targets) {
  const chosenRate = options.cpuRate === 'auto' ? 0 : options.cpuRate;
  /** `--cpu-rate auto`'s rate for each pace group (`paceGroup`, undefined for targets of none). */
  const groupRates = new Map();
  const rateOf = (t) => t.cpuRate ?? groupRates.get(t.paceGroup) ?? chosenRate;
  const pacedAtAll = (t) => Boolean(t.cpu && (t.cpuRate ?? options.cpuRate));
  const acc = new Map(
    targets.map((t) => [
      t.key,
      {
        samples: [],
        completed: 0,
        elapsedMs: 0,
        rounds: [],
        cpuUs: 0,
        collectedMiB: 0,
        pacedRequests: 0,
        paced: [],
        cpuUsByRound: [],
        settleCpuMsPerS: [],
      },
    ]),
  );
  for (let round = 0; round < options.rounds; round += 1) {
    for (let i = 0; i < targets.length; i += 1) {
      const t = targets[(i + round) % targets.length];
      progress(`round ${round + 1}/${options.rounds}: ${t.label}`);
      const job = {
        ...loadOf(t, options),
        warmupMs: round === 0 ? options.warmupMs : Math.min(200, options.warmupMs),
        warmupRequests: 10_000,
        durationMs: options.durationMs,
        requests: options.maxRequests,
      };
      // With a CPU reading, the warm-up is a load of its own, so the reading covers measured requests only.
      if (t.cpu) {
        const warm = await load('load', { ...job, durationMs: job.warmupMs, warmupRequests: 0 });
        if (warm.errorCount > 0) throw failureOf(t.label, warm);
        job.warmupRequests = 0;
      }
      const paced = pacedAtAll(t);
      const cpuBefore = paced ? undefined : t.cpu?.();
      const collectedBefore = paced ? undefined : t.collected?.();
      const result = await load('load', job);
      if (result.errorCount > 0) throw failureOf(t.label, result);
      const a = acc.get(t.key);
      if (!paced) {
        if (t.cpu) a.cpuUs += t.cpu() - cpuBefore;
        if (t.collected) a.collectedMiB += t.collected() - collectedBefore;
      }
      a.samples.push(result.samples);
      a.completed += result.completed;
      a.elapsedMs += result.elapsedMs;
      a.rounds.push({
        rps: (result.completed * 1000) / result.elapsedMs,
        p50: latencyStats(result.samples).p50,
      });
    }
  }
  const paced = targets.filter(pacedAtAll);
  if (options.cpuRate === 'auto' && paced.length > 0) {
    // Each group (targets compared with each other) at the highest rate its own slowest member holds: a
    // slow pair elsewhere in the scenario does not pull a fast pair down to a pace where what a process
    // burns between requests, not what a request costs, makes most of the figure.
    for (const group of new Set(paced.map((t) => t.paceGroup))) {
      const members = paced.filter((t) => t.paceGroup === group);
      // A smoke run proves the steps, not the figures: on a machine too busy for even the lowest rate (a
      // whole test suite beside it) it paces at that rate all the same, and its rounds say they were not held.
      const rate =
        autoRate(
          members.map((t) => ({ rps: (acc.get(t.key).completed * 1000) / acc.get(t.key).elapsedMs })),
        ) || (options.smoke ? AUTO_RATES[0] : 0);
      groupRates.set(group, rate);
      progress(
        `--cpu-rate auto: ${rate} req/s${group === undefined ? '' : ` for ${group}`} (at most ×${AUTO_RATE_SHARE} of its slowest paced target's full speed)`,
      );
    }
  }
  if (paced.length > 0 && paced.every((t) => rateOf(t) > 0))
    await pacedRounds({ load, options, progress }, paced, rateOf, acc);
  else if (paced.length > 0)
    throw new BenchFailure(
      '--cpu-rate auto: a paced target answered too few requests at full speed to pace it',
    );
  return targets.map((t) => {
    const a = acc.get(t.key);
    const all = new Float64Array(a.completed);
    let at = 0;
    for (const s of a.samples) {
      all.set(s, at);
      at += s.length;
    }
    return {
      key: t.key,
      label: t.label,
      requests: a.completed,
      errors: 0,
      seconds: a.elapsedMs / 1000,
      connections: options.connections,
      bodyBytes: t.bodyBytes,
      rps: (a.completed * 1000) / a.elapsedMs,
      latencyMs: latencyStats(all),
      rounds: a.rounds,
      cpuUsPerRequest: t.cpu ? a.cpuUs / (a.pacedRequests || a.completed) : null,
      // Approximate: a collection just after the window frees some of its garbage in the next one.
      heapKiBPerRequest: t.collected ? (a.collectedMiB * 1024) / (a.pacedRequests || a.completed) : null,
      cpuOf: t.cpuOf ?? null,
      // The CPU and heap figures' load: req/s paced, or null when they were read at full speed; and what
      // the paced rounds achieved of it (pace.held false: the figure is refused).
      cpuAtRate: a.pacedRequests ? rateOf(t) : null,
      pace: paceOf(a.pacedRequests ? rateOf(t) : 0, a.paced),
      // Each paced round's own CPU per request: a round far from the others (a collection, a neighbour) shows.
      cpuUsByRound: a.cpuUsByRound,
      // Its process's CPU ms each second after the full-speed rounds, until it went quiet (paced only).
      settleCpuMsPerS: a.settleCpuMsPerS,
    };
  });
}

/** A row's req/s and p50 against a baseline row: pooled, per round, and the median of the rounds. */
export function ratioOf(row, base) {
  const rpsByRound = row.rounds.map((r, i) => r.rps / base.rounds[i].rps);
  const p50ByRound = row.rounds.map((r, i) => r.p50 / base.rounds[i].p50);
  return {
    versus: base.key,
    // CPU per request of the measured process against the baseline's: what the load generator on the
    // same cores cannot blur (rps can be capped by the client).
    // Not from a paced round that fell short of its rate: that figure was read at another pace.
    ...(row.cpuUsPerRequest && base.cpuUsPerRequest && row.pace?.held !== false && base.pace?.held !== false
      ? { cpu: row.cpuUsPerRequest / base.cpuUsPerRequest }
      : {}),
    rps: row.rps / base.rps,
    p50: row.latencyMs.p50 / base.latencyMs.p50,
    rpsByRound,
    p50ByRound,
    rpsMedianOfRounds: median(rpsByRound),
    p50MedianOfRounds: median(p50ByRound),
  };
}
