// The scale bench's tables, printed when it ends.
import os from 'node:os';

/** The sizes' table; with `workers`, the worker processes' curve under it. */
export function report(results, workers, { connections, seconds }) {
  const base = results[0];
  const fixed = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');
  const lines = [
    '',
    `| records | accounts | transactions table | first page req/s | p99 ms | ×10^4 | deep page req/s | p99 ms | ×10^4 | page plan | dispatcher batch (1,000) | expiry scan batch (500) | first sync of 6,500 ms | ×10^4 | incremental sync ms | ×10^4 |`,
    `|--:|--:|--:|--:|--:|--:|--:|--:|--:|:--|:--|:--|--:|--:|--:|--:|`,
    ...results.map((r) => {
      const plan = (p) =>
        `${fixed(p.ms, 2)} ms, ${p.sorts ? 'SORTS' : 'no sort'}, ${p.seqScans.length ? `SEQ SCAN ${p.seqScans.length}` : 'index only'}`;
      // Times, so the ratio is of cost: above ×1 is slower than at the smallest size.
      return `| ${r.records.toLocaleString('en')} | ${r.accounts.toLocaleString('en')} | ${fixed(r.tableBytes / 2 ** 20, 0)} MiB | ${fixed(r.first.rps, 0)} | ${fixed(r.first.p99, 2)} | ×${fixed(r.first.rps / base.first.rps, 2)} | ${fixed(r.deep.rps, 0)} | ${fixed(r.deep.p99, 2)} | ×${fixed(r.deep.rps / base.deep.rps, 2)} | ${plan(r.plans.deepPage)} | ${plan(r.plans.dispatcherBatch)} | ${plan(r.plans.expiryBatch)} | ${fixed(r.sync.firstSyncMs, 0)} | ×${fixed(r.sync.firstSyncMs / base.sync.firstSyncMs, 2)} | ${fixed(r.sync.incrementalMs, 0)} | ×${fixed(r.sync.incrementalMs / base.sync.incrementalMs, 2)} |`;
    }),
    ...(workers
      ? [
          '',
          `| worker processes | banks | rows | seconds | rows/s | vs ${workers[0].workers} |`,
          `|--:|--:|--:|--:|--:|--:|`,
          ...workers.map(
            (w) =>
              `| ${w.workers} | ${w.banks} | ${w.rows.toLocaleString('en')} | ${fixed(w.seconds, 2)} | ${fixed(w.rowsPerSecond, 0)} | ×${fixed(w.rowsPerSecond / workers[0].rowsPerSecond, 2)} |`,
          ),
        ]
      : []),
    '',
    `indexes used at ${results.at(-1).records.toLocaleString('en')}: page ${results.at(-1).plans.deepPage.indexes.join(', ')}; dispatcher ${results.at(-1).plans.dispatcherBatch.indexes.join(', ')}; expiry scan ${results.at(-1).plans.expiryBatch.indexes.join(', ')}`,
    `machine: ${os.cpus().length} CPUs ${os.cpus()[0]?.model?.trim()}, node ${process.version}; ${connections} connections, ${seconds} s per target`,
  ];
  console.log(lines.join('\n'));
}
