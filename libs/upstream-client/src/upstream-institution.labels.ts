import type { UpstreamError } from './upstream.error.js';
import { SERVICE_BREAKER } from './upstream-breaker.js';

/** Institution ids that may become a metric label once seen in a successful institutions listing. */
const SAFE_LABEL = /^[A-Za-z0-9._-]{1,64}$/;
const MAX_LABELS = 500;

/**
 * The metric label of an institution: its id once a successful listing showed it (at most 500, of a
 * safe shape), else `other`, so a caller cannot grow the label set with made-up ids.
 */
export class InstitutionLabels {
  private readonly known = new Set<string>();

  remember(ids: readonly string[]): void {
    for (const id of ids) {
      if (this.known.size >= MAX_LABELS) break;
      if (SAFE_LABEL.test(id)) this.known.add(id);
    }
  }

  of(key: string): string {
    return key === SERVICE_BREAKER || this.known.has(key) ? key : 'other';
  }
}

/** Who refused with a 429: the upstream itself, or the bank through a 424; undefined for anything else. */
export function rateLimitSource(error: UpstreamError): 'upstream' | 'institution' | undefined {
  if (error.status === 429) return 'upstream';
  const bankStatus =
    error.institutionError?.httpStatusCode ??
    error.issues.find((issue) => issue.institutionError?.httpStatusCode)?.institutionError?.httpStatusCode;
  return error.status === 424 && bankStatus === 429 ? 'institution' : undefined;
}
