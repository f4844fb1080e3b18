// The soak's verdict as a person reads it: the invariants' table, each failure's details, and the
// processes' last log lines when anything failed.

/** `rows`: { invariant, expected, observed, ok, details }. Passed: every row ok, no fatal error, some rows. */
export function verdict({ heading, rows, fatal, logs }) {
  const cell = (r, h) => String(h === 'ok' ? (r.ok ? 'ok' : 'FAIL') : r[h]);
  const widths = ['invariant', 'expected', 'observed', 'ok'].map((h) =>
    Math.max(h.length, ...rows.map((r) => cell(r, h).length)),
  );
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  const out = [
    '',
    ...heading,
    '',
    line(['invariant', 'expected', 'observed', 'ok']),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line([r.invariant, r.expected, r.observed, r.ok ? 'ok' : 'FAIL'])),
  ];
  const failed = rows.filter((r) => !r.ok);
  for (const r of failed) out.push('', `FAIL ${r.invariant}:`, ...r.details.map((d) => `  - ${d}`));
  if (fatal) out.push('', `The soak itself failed: ${fatal.stack ?? fatal}`);
  if (failed.length || fatal) {
    for (const { name, logs: text } of logs) out.push('', `--- last log lines of ${name}:`, text || '(none)');
  }
  const passed = !failed.length && !fatal && rows.length > 0;
  out.push('', passed ? 'SOAK PASSED' : `SOAK FAILED (${failed.length} invariants)`);
  return { text: out.join('\n'), passed };
}
