// The bench's printed report: the markdown tables and notes of run.mjs's summary, one section per scenario.

const fixed = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const times = (n) => (Number.isFinite(n) ? `×${n.toFixed(2)}` : '–');
const kib = (bytes) =>
  bytes >= 1024 * 1024
    ? `${(bytes / 2 ** 20).toFixed(2)} MiB`
    : bytes >= 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${bytes} B`;

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    `| ${cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' | ')} |`;
  return [
    line(headers),
    `|${widths.map((w, i) => (i === 0 ? ':' : '-') + '-'.repeat(w) + (i === 0 ? '-' : ':')).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

const mib = (n) => `${fixed(n, 0)} MiB`;

/**
 * Whose CPU a figure is, and at what pace it was read: the rate asked, the slowest paced round's achieved
 * rate, and REFUSED when that fell short of the rate by more than the tolerance.
 */
function cpuBasis(r) {
  if (!r.pace) return r.cpuOf;
  const achieved = fixed(Math.min(...r.pace.achievedByRound), 0);
  return `${r.cpuOf}, ${r.pace.rate}/s asked, ≥ ${achieved}/s achieved${r.pace.held ? '' : ': REFUSED'}`;
}

/** The request-rate scenarios that start their own processes: rows, ratios and memory. */
function reportRows(s) {
  const out = [`## ${s.name}`, ''];
  const cpu = s.rows.some((r) => typeof r.cpuUsPerRequest === 'number');
  const heap = s.rows.some((r) => typeof r.heapKiBPerRequest === 'number');
  out.push(
    table(
      [
        'target',
        'body',
        'requests',
        'req/s',
        'p50 ms',
        'p99 ms',
        'req/s vs bare',
        ...(s.kind === 'api-reads' ? ['req/s vs sandbox'] : ['req/s vs 1 consent']),
        ...(cpu ? ['server CPU µs/req'] : []),
        ...(heap ? ['heap KiB/req'] : []),
      ],
      s.rows.map((r) => [
        r.label,
        kib(r.bodyBytes),
        r.requests,
        fixed(r.rps),
        fixed(r.latencyMs.p50, 2),
        fixed(r.latencyMs.p99, 2),
        r.ratio
          ? `${times(r.ratio.rps)} (rounds ${times(r.ratio.rpsMedianOfRounds)})`
          : s.kind !== 'api-reads' || r.key.startsWith('bare-')
            ? '(baseline)'
            : '',
        r.ratioToOne
          ? `${times(r.ratioToOne.rpsMedianOfRounds)}`
          : r.ratioToSandbox
            ? `${times(r.ratioToSandbox.rpsMedianOfRounds)}`
            : '',
        ...(cpu
          ? [typeof r.cpuUsPerRequest === 'number' ? `${fixed(r.cpuUsPerRequest, 0)} (${cpuBasis(r)})` : '']
          : []),
        ...(heap ? [typeof r.heapKiBPerRequest === 'number' ? fixed(r.heapKiBPerRequest, 1) : ''] : []),
      ]),
    ),
  );
  out.push('');
  if (s.kind === 'sandbox-rotation') {
    out.push(
      `setup: ${s.consents} consents created in ${fixed(s.setup.createConsentsMs / 1000)} s; first read of each (balance summaries built) ${fixed(s.setup.coldFirstReadsMs / 1000)} s = ${fixed(s.setup.coldReadsPerSecond, 0)} req/s`,
    );
    out.push(
      `sandbox memory: RSS ${mib(s.memory.rssMiB)} at the end, peak ${mib(s.memory.peakRssMiB)}; targets: ×${s.target.ratioToOne} of one consent's req/s at ${s.consents} consents, RSS < ${s.target.rssMiB} MiB → ${s.meetsTarget ? 'met' : 'NOT met'}`,
    );
  } else {
    for (const line of s.notes) out.push(line);
  }
  return out;
}

export function report(summary) {
  const { machine: m, options: o } = summary;
  const out = [];
  out.push(`Benchmarks — ${summary.command}`);
  out.push(
    `machine: ${m.cpus} CPU(s) ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, node ${m.node}; load average at start ${m.loadAverage.join(' ')}, at end ${summary.loadAverageAtEnd.join(' ')}`,
  );
  out.push(
    `load: ${o.connections} keep-alive connection(s), ${o.rounds} round(s) × ${o.durationMs} ms per target (rotated order), warm-up ${o.warmupMs} ms; latencies pooled over rounds`,
  );
  for (const s of summary.scenarios) {
    out.push('');
    if (
      [
        'consent-expiry',
        'transaction-changes',
        'reconcile',
        'tracing-overhead',
        'isolation',
        'lanes',
      ].includes(s.kind)
    ) {
      out.push(`## ${s.name}`, '', ...s.notes);
      continue;
    }
    if (s.kind === 'sandbox-rotation' || s.kind === 'api-reads' || s.kind === 'sync' || s.kind === 'events') {
      out.push(...reportRows(s));
      continue;
    }
    if (s.kind === 'upstream-client') {
      out.push(`## ${s.name}  (${s.description})`);
      out.push('');
      out.push(
        table(
          ['target', 'walks', 'p50 ms', 'min ms', 'max ms', 'transactions/s'],
          s.rows.map((r) => [
            r.label,
            r.walks,
            fixed(r.ms.p50, 2),
            fixed(r.ms.min, 2),
            fixed(r.ms.max, 2),
            fixed(r.transactionsPerSecond, 0),
          ]),
        ),
      );
      out.push('');
      out.push(
        `client overhead over the plain fetch loop: ${(s.overhead * 100).toFixed(1)}% (median of paired walks ${(s.overheadPerRound * 100).toFixed(1)}%); target < ${s.target * 100}% → ${s.meetsTarget ? 'met' : 'NOT met'}`,
      );
      continue;
    }
    out.push(
      `## ${s.name}  (CURRENT account: ${s.account.transactions} transactions in ${s.account.pages} pages; first call incl. data generation ${fixed(s.firstCallMs, 0)} ms)`,
    );
    out.push('');
    out.push(
      table(
        [
          'target',
          'body',
          'requests',
          'errors',
          'req/s',
          'p50 ms',
          'p90 ms',
          'p99 ms',
          'req/s vs baseline',
          'p50 vs baseline',
        ],
        s.rows.map((r) => [
          r.label,
          kib(r.bodyBytes),
          r.requests,
          r.errors,
          fixed(r.rps),
          fixed(r.latencyMs.p50, 2),
          fixed(r.latencyMs.p90, 2),
          fixed(r.latencyMs.p99, 2),
          r.ratio ? times(r.ratio.rps) : r.key === 'bare-1000' ? '(baseline)' : '(reference)',
          r.ratio ? times(r.ratio.p50) : r.key === 'bare-1000' ? '(baseline)' : '(reference)',
        ]),
      ),
    );
    const byKey = Object.fromEntries(s.rows.map((r) => [r.key, r]));
    const main = byKey['sandbox-1000'].ratio;
    out.push('');
    out.push(
      `sandbox 1000-tx ÷ baseline per round: req/s ${main.rpsByRound.map(times).join(' ')} (median ${times(main.rpsMedianOfRounds)}); p50 ${main.p50ByRound.map(times).join(' ')} (median ${times(main.p50MedianOfRounds)})`,
    );
    const same = byKey['sandbox-1'].ratioSameSize;
    out.push(
      `sandbox 1-tx ÷ bare Fastify 1-tx (reference row): req/s ${times(same.rps)}, p50 ${times(same.p50)}`,
    );
    const w = s.walk;
    out.push(
      `walk of all ${s.account.transactions} transactions (${w.description}): sandbox median ${fixed(w.sandbox.ms.p50)} ms (min ${fixed(w.sandbox.ms.min)}, max ${fixed(w.sandbox.ms.max)}, n=${w.sandbox.walks}); baseline median ${fixed(w.baseline.ms.p50)} ms (n=${w.baseline.walks}) → ${times(w.ratioMedian)}`,
    );
  }
  for (const f of summary.failed ?? []) out.push('', `## ${f.scenario}: FAILED`, '', f.error);
  return out.join('\n');
}
