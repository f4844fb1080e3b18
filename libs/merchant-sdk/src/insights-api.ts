import { dataOf, doneOf, type RawClient } from './http-transport.js';
import type { ConnectFunnel, ConnectReport, Conversion, InstitutionHealth, Query } from './models.js';

/** What the merchant learns from its users' connections. */
export interface InsightsApi {
  /**
   * Connection conversion by institution and day (UTC): data consents started, and how many were
   * authorised, rejected, abandoned, failed or are pending, how many reached a first sync, and the median
   * seconds to each. `from`/`to` are days (`YYYY-MM-DD`, both included); default the last 30 days.
   */
  conversion(query?: Query<'/v1/insights/conversion'>): Promise<Conversion>;
  /**
   * The connect funnel by bank and day (UTC): attempts to connect a bank in `<bff-connect>`, how many
   * reached each step, how each ended, and the errors met by step and code. `from`/`to` as `conversion`.
   */
  connectFunnel(query?: Query<'/v1/insights/connect-funnel'>): Promise<ConnectFunnel>;
  /**
   * Reports a step of an attempt (`<bff-connect>` sends its own; a page of your own may do the same).
   * `keepalive` lets it outlive the page, for a report sent as the page goes.
   */
  reportConnectStep(report: ConnectReport, options?: { keepalive?: boolean }): Promise<void>;
  /**
   * Institution health (`GET /v1/insights/institution-health`): each bank's upstream error rate (its or the
   * upstream's failures, not 4xx refusals) and p95 latency of the calls made for you, over the range and
   * by hour (by day for more than 7 days). `from`/`to` are days (`YYYY-MM-DD`, both included); default the
   * last 7 days.
   */
  institutionHealth(query?: Query<'/v1/insights/institution-health'>): Promise<InstitutionHealth>;
}

export function insightsApi(raw: RawClient): InsightsApi {
  return {
    conversion: (query = {}) => dataOf(raw.GET('/v1/insights/conversion', { params: { query } })),
    connectFunnel: (query = {}) => dataOf(raw.GET('/v1/insights/connect-funnel', { params: { query } })),
    reportConnectStep: (report, options = {}) =>
      doneOf(raw.POST('/v1/connect-funnel/reports', { body: report, keepalive: options.keepalive })),
    institutionHealth: (query = {}) =>
      dataOf(raw.GET('/v1/insights/institution-health', { params: { query } })),
  };
}
