import { dataOf, type RawClient } from './http-transport.js';
import type { Conversion, Query } from './models.js';

/** What the merchant learns from its users' connections. */
export interface InsightsApi {
  /**
   * Connection conversion by institution and day (UTC): data consents started, and how many were
   * authorised, rejected, abandoned, failed or are pending, how many reached a first sync, and the median
   * seconds to each. `from`/`to` are days (`YYYY-MM-DD`, both included); default the last 30 days.
   */
  conversion(query?: Query<'/v1/insights/conversion'>): Promise<Conversion>;
}

export function insightsApi(raw: RawClient): InsightsApi {
  return {
    conversion: (query = {}) => dataOf(raw.GET('/v1/insights/conversion', { params: { query } })),
  };
}
