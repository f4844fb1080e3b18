// The soak's verdict on the processes themselves (none died unasked, every stop was graceful, RSS), apart
// from the invariants of the data they served (soak-invariants.mjs).

/**
 * RSS a process that ran the whole load may end with: twice its warmed-up figure or that plus 256 MiB,
 * whichever is more (caches fill to their bounds early in a run; a leak keeps going).
 */
const RSS_GROWTH_FACTOR = 2;
const RSS_GROWTH_MIB = 256;
/** At most `n` of a row's details, and how many more there were. */
export const sample = (list, n = 12) =>
  list.length > n ? [...list.slice(0, n), `… ${list.length - n} more`] : list;

/** Rows about the processes themselves: none died unasked, every stop was graceful, RSS. */
export function processRows(cluster) {
  const rows = [];
  const crashes = cluster.roles.flatMap((r) =>
    r.exitsUnasked.map(
      (e) => `${r.name} exited ${e.exit} at ${e.at}: ${e.logs.split('\n').slice(-3).join(' | ')}`,
    ),
  );
  rows.push({
    invariant: 'no process exits unasked',
    expected: '0',
    observed: String(crashes.length),
    ok: crashes.length === 0,
    details: sample(crashes),
  });
  const slow = cluster.roles.flatMap((r) =>
    r.slowStops.map((s) =>
      [`${r.name} at ${s.at}: ${s.ms} ms, ${s.how}; its last lines:`, ...s.lines].join('\n'),
    ),
  );
  rows.push({
    invariant: 'every SIGTERM stop ends by itself, never SIGKILL',
    expected: '0 slow',
    observed: `${slow.length} slow`,
    ok: slow.length === 0,
    details: sample(slow),
  });
  // Its own deadline (SHUTDOWN_BUDGET_MS) reached, it exits 1 naming the step it was stuck in.
  const deadline = cluster.roles.flatMap((r) =>
    r.deadlineStops.map((s) => [`${r.name} at ${s.at}: ${s.ms} ms; its last lines:`, ...s.lines].join('\n')),
  );
  rows.push({
    invariant: 'every SIGTERM stop within its own 9 s deadline (exit 0)',
    expected: '0 at the deadline',
    observed: `${deadline.length} at the deadline`,
    ok: deadline.length === 0,
    details: sample(deadline),
  });
  for (const role of cluster.roles) {
    // A process that ran the whole load must not grow past its bound; a restarted one is a new process
    // (its start figure is its first incarnation's), so it is only reported.
    const bound =
      role.rssStart === null
        ? null
        : Math.max(role.rssStart * RSS_GROWTH_FACTOR, role.rssStart + RSS_GROWTH_MIB);
    const compared = !role.restarts && bound !== null && role.rssEnd !== null;
    rows.push({
      invariant: `RSS ${role.name}${role.restarts ? ` (restarted ×${role.restarts})` : ''}`,
      expected: compared ? `≤ ${Math.round(bound)} MiB at end` : 'reported',
      observed: `${role.rssStart ?? '?'} MiB at start, ${role.rssEnd ?? '?'} MiB at end`,
      ok: !compared || role.rssEnd <= bound,
      details: compared ? [`grew ${role.rssEnd - role.rssStart} MiB`] : [],
    });
  }
  return rows;
}
