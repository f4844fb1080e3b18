import { Injectable } from '@nestjs/common';
import type { TenantCaller } from '#libs/context';
import { ConnectFunnelService, ConsentConversionService } from '#libs/domain/consents';
import {
  HEALTH_HOURLY_MAX_DAYS,
  InstitutionHealthService,
  UpstreamCallsService,
} from '#libs/domain/upstream-calls';
import { invalidRequest } from '#libs/errors';
import { envelope } from '#libs/http';
import { checkedId } from '../common/id-param.js';
import { ConnectFunnelInput } from '../common/inputs/connect-funnel.input.js';
import { ConversionInput } from '../common/inputs/conversion.input.js';
import { InstitutionHealthInput } from '../common/inputs/institution-health.input.js';
import { callLogPage } from '../common/pages/call-log-pages.js';
import { UpstreamCallListInput } from './inputs/tool-arguments.input.js';
import { type Tool, tool } from './mcp-tool-kit.js';

/** The MCP tools over the upstream call log, connection conversion, the connect funnel and institution health (their REST routes' reads). */
@Injectable()
export class McpInsightToolsService {
  constructor(
    private readonly callLog: UpstreamCallsService,
    private readonly conversion: ConsentConversionService,
    private readonly funnel: ConnectFunnelService,
    private readonly health: InstitutionHealthService,
  ) {}

  tools(): Tool[] {
    return [
      tool({
        name: 'list_upstream_calls',
        // The consent's and the payment's log answer the same envelope.
        route: 'GET /v1/syncs/{syncId}/upstream-calls',
        description:
          "Every attempt of every call we made to the upstream (the bank's side) for one sync run, consent or payment, newest first: operation, HTTP status, error code, duration, attempt and the upstream's tracingId of each; as GET /v1/syncs/{syncId}/upstream-calls (or the consent's, the payment's). Name exactly one of syncId, consentId, paymentId.",
        input: UpstreamCallListInput,
        read: (caller, args) => this.upstreamCalls(caller, args),
      }),
      tool({
        name: 'connection_conversion',
        route: 'GET /v1/insights/conversion',
        description:
          'Bank connections started by day (UTC) and bank, and what became of them (authorised, rejected, abandoned, failed, pending, first synced, median times): where customers drop off; as GET /v1/insights/conversion.',
        input: ConversionInput,
        read: async (caller, range) => envelope(await this.conversion.ofMerchant(caller, range)),
      }),
      tool({
        name: 'connect_funnel',
        route: 'GET /v1/insights/connect-funnel',
        description:
          'Attempts to connect a bank in the connect component by day (UTC) and bank: how many opened it, searched, chose a bank, went to the bank and came back; how each ended (connected, declined, cancelled, failed, abandoned, in progress); and the errors met, by step and code: where customers drop out before a consent exists; as GET /v1/insights/connect-funnel.',
        input: ConnectFunnelInput,
        read: async (caller, range) => envelope(await this.funnel.ofMerchant(caller, range)),
      }),
      tool({
        name: 'institution_health',
        route: 'GET /v1/insights/institution-health',
        description: `Each bank's upstream error rate (its or the upstream's failures: no answer, 5xx, 429, the bank's failure relayed; not 4xx refusals) and p95 latency of the calls made for you, over the range and by hour (by day beyond ${HEALTH_HOURLY_MAX_DAYS} days): whether a customer's problem is the bank's; as GET /v1/insights/institution-health.`,
        input: InstitutionHealthInput,
        read: async (caller, range) => envelope(await this.health.ofMerchant(caller, range)),
      }),
    ];
  }

  /** One parent's call log: exactly one of the ids names it. */
  private async upstreamCalls(caller: TenantCaller, args: UpstreamCallListInput) {
    const named = (['syncId', 'consentId', 'paymentId'] as const).flatMap((key) => {
      const given = args[key];
      return given === undefined ? [] : [{ key, given }];
    });
    if (named.length !== 1)
      throw invalidRequest([{ field: 'syncId', issue: 'name exactly one of syncId, consentId, paymentId' }]);
    const [{ key, given }] = named;
    const parent = ({ syncId: 'sync-run', consentId: 'consent', paymentId: 'payment' } as const)[key];
    return callLogPage(this.callLog, caller, parent, checkedId(key, given), args);
  }
}
