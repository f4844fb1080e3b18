// The api-reads scenario's memory reading and its targets (issue 57's, the one set the README and
// docs/benchmarks.md state), apart from the scenario's set-up and runs (api-reads.mjs).
export const RSS_TARGET_MIB = 250;
export const P99_TARGET_MS = 25;

/**
 * Each measured api process's RSS when the load stopped, then polled (every 100 ms, one 30 s deadline for
 * all) until it is back under the target.
 */
export async function settledMemory(apps) {
  const stoppedAt = Date.now();
  const states = apps.map((app) => ({ app, atEnd: app.memory() }));
  for (const state of states) {
    state.settled = state.atEnd;
    while (state.settled.rssMiB >= RSS_TARGET_MIB && Date.now() - stoppedAt < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state.settled = state.app.memory();
    }
    state.settledAfterS = (Date.now() - stoppedAt) / 1000;
  }
  return states.map(({ app, ...state }) => ({ name: app.name, ...state }));
}

/**
 * Issue 57's targets, the one set the README and docs/benchmarks.md state: CPU per request is pooled over
 * the rounds (ratioOf's `cpu`), req/s the median of the rounds' ratios. A target whose rows were left out
 * with --targets is 'not measured', never met; one read in paced rounds that fell short is 'refused'.
 */
export function readTargets(byKey, connections, memory) {
  const cpu = (key, base, field, limit, target) => {
    const ratio = byKey[key]?.[field]?.cpu;
    const rate = byKey[key]?.cpuAtRate;
    // A paced round short of its rate was read at another pace (a saturated server pays less a request):
    // the figure is refused, never quoted as met or not.
    const short = [key, base].filter((k) => byKey[k]?.pace?.held === false);
    if (short.length) {
      return {
        key: `${key}:${base}`,
        target: `${target}: ${key} CPU/request ≤ ×${limit} of ${base}`,
        met: 'refused',
        figure: short
          .map((k) => {
            const { rate: asked, lowestShare, tolerance } = byKey[k].pace;
            return `${k}'s load reached ${(lowestShare * 100).toFixed(0)}% of ${asked} req/s in its slowest paced round (more than ${tolerance * 100}% short)`;
          })
          .join('; '),
      };
    }
    return {
      key: `${key}:${base}`,
      target: `${target}: ${key} CPU/request ≤ ×${limit} of ${base}`,
      met: ratio === undefined ? 'not measured' : ratio <= limit,
      figure:
        ratio === undefined
          ? ''
          : `×${ratio.toFixed(2)} (${byKey[key].cpuUsPerRequest.toFixed(1)} vs ${byKey[base].cpuUsPerRequest.toFixed(1)} µs${rate ? ` at ${rate} req/s, held` : ''})`,
    };
  };
  const p99 = (key) => {
    const ms = byKey[key]?.latencyMs.p99;
    return {
      key: `${key}:p99`,
      target: `${key} p99 < ${P99_TARGET_MS} ms at ${connections} connections`,
      met: ms === undefined ? 'not measured' : ms < P99_TARGET_MS,
      figure: ms === undefined ? '' : `${ms.toFixed(1)} ms`,
    };
  };
  const live = byKey['api-live']?.ratioToSandbox?.rpsMedianOfRounds;
  return [
    cpu('api-accounts', 'nest-accounts', 'ratioToNest', 1.3, 'near a minimal Nest app'),
    cpu('api-users', 'nest-users', 'ratioToNest', 1.3, 'near a minimal Nest app'),
    cpu('api-probe', 'nest-probe', 'ratioToNest', 1.2, 'near a minimal Nest app'),
    cpu('api-accounts', 'nestpg-accounts', 'ratioToNestPg', 0.5, 'cheaper than a read of Postgres'),
    cpu('api-users', 'nestpg-users', 'ratioToNestPg', 0.5, 'cheaper than a read of Postgres'),
    cpu('api-accounts-304', 'api-accounts', 'ratioTo200', 0.5, 'a 304 cheaper than a 200'),
    cpu('api-users-304', 'api-users', 'ratioTo200', 0.5, 'a 304 cheaper than a 200'),
    p99('api-accounts'),
    p99('api-users'),
    {
      key: 'api-live:sandbox-live',
      target: 'api-live req/s ≥ ×0.5 of sandbox-live (median of rounds)',
      met: live === undefined ? 'not measured' : live >= 0.5,
      figure: live === undefined ? '' : `×${live.toFixed(2)}`,
    },
    ...memory.map(({ name, settled }) => ({
      key: `memory:${name}`,
      target: `${name} RSS < ${RSS_TARGET_MIB} MiB within 30 s of the load stopping`,
      met: settled.rssMiB < RSS_TARGET_MIB,
      figure: `${settled.rssMiB.toFixed(0)} MiB`,
    })),
  ];
}
