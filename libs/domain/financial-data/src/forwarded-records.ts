import { amountTextToApi } from '#libs/domain/accounts';
import { ScannedRecords, UpstreamError } from '#libs/upstream-client';
import { moneyToStrings } from './money.js';

/**
 * An upstream list page's records as the API serves them (every numeric `amount` a decimal string, as
 * `moneyToStrings` makes them): JSON text in pieces that, joined, are the records joined with commas,
 * ready to go inside `[` `]`. Pieces, so the answer is joined once, envelope and all: a 200 KB string
 * built in steps is copied again at every step.
 *
 * Records the upstream client scanned rather than parsed (its usual compact body, see scanListBody) are
 * forwarded as they came with only their amounts rewritten: printing 250 parsed records again cost more
 * than the rewrite. Parsed records (any other layout) are converted and printed. Both give the same
 * records; scanned ones keep the upstream's own escapes, which mean the same. Text, not bytes: the answer
 * stays on V8's heap, which a collection gives back, where 200 KB buffers per answer kept the api's RSS up
 * after load.
 */
export function forwardedRecords(records: unknown[] | ScannedRecords): string[] {
  if (!(records instanceof ScannedRecords)) {
    return finiteAmounts(() => moneyToStrings(records)).flatMap((record, i) =>
      i === 0 ? [JSON.stringify(record)] : [',', JSON.stringify(record)],
    );
  }
  return finiteAmounts(() => rewrittenAmounts(records));
}

/** The scanned records' text in pieces, every located amount rewritten as a decimal string. */
function rewrittenAmounts({ body, start, end, numberSpans }: ScannedRecords): string[] {
  const parts: string[] = [];
  let copied = start;
  for (let k = 0; k < numberSpans.length; k += 2) {
    const from = numberSpans[k];
    const to = numberSpans[k + 1];
    parts.push(body.slice(copied, from), `"${amountTextToApi(body.slice(from, to))}"`);
    copied = to;
  }
  parts.push(body.slice(copied, end));
  return parts;
}

/**
 * An amount JSON reads as infinite (`1e400`) is the upstream breaking its own contract: a PROTOCOL error,
 * answered as the upstream being unavailable, not as a fault of ours.
 */
function finiteAmounts<T>(convert: () => T): T {
  try {
    return convert();
  } catch (error) {
    // amountToApi's only TypeError: a number that is not finite.
    if (!(error instanceof TypeError)) throw error;
    throw new UpstreamError('an upstream record holds an amount that is not a finite number', {
      kind: 'PROTOCOL',
      shape: 'unrecognised',
      retryable: false,
      cause: error,
    });
  }
}

/** How many records a page holds, however they came. */
export const recordCount = (records: unknown[] | ScannedRecords) =>
  records instanceof ScannedRecords ? records.count : records.length;
