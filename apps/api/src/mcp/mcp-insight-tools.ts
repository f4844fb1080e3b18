import { z } from 'zod';
import type { ConsentConversionService } from '#libs/domain/consents';
import {
  HEALTH_DEFAULT_DAYS,
  HEALTH_HOURLY_MAX_DAYS,
  type InstitutionHealthService,
  UPSTREAM_CALL_KEY,
  type UpstreamCallsService,
} from '#libs/domain/upstream-calls';
import { invalidRequest } from '#libs/errors';
import { envelope } from '#libs/http';
import { isCalendarDay } from '#libs/time';
import { checkedId } from '../common/id-param.js';
import { keysetPage } from '../common/paging.js';
import { anId, pageOf, paging, type Tool } from './mcp-tool-kit.js';

const rangeOf = (args: Record<string, unknown>) => ({
  from: args.from as string | undefined,
  to: args.to as string | undefined,
});

/** The services the insight tools read. */
export interface InsightServices {
  callLog: UpstreamCallsService;
  conversion: ConsentConversionService;
  health: InstitutionHealthService;
}

/** The tools over the upstream call log, connection conversion and institution health (their REST routes' reads). */
export function insightTools({ callLog, conversion, health }: InsightServices): Tool[] {
  const day = (what: string) =>
    z.string().refine(isCalendarDay, 'a calendar day, YYYY-MM-DD').optional().describe(what);
  return [
    {
      name: 'list_upstream_calls',
      // The consent's and the payment's log answer the same envelope.
      route: 'GET /v1/syncs/{syncId}/upstream-calls',
      description:
        "Every attempt of every call we made to the upstream (the bank's side) for one sync run, consent or payment, newest first: operation, HTTP status, error code, duration, attempt and the upstream's tracingId of each; as GET /v1/syncs/{syncId}/upstream-calls (or the consent's, the payment's). Name exactly one of syncId, consentId, paymentId.",
      input: {
        syncId: anId('A sync run id').optional(),
        consentId: anId('A consent id').optional(),
        paymentId: anId('A payment id').optional(),
        ...paging,
      },
      read: async (caller, args) => {
        const named = (['syncId', 'consentId', 'paymentId'] as const).filter((k) => args[k] !== undefined);
        if (named.length !== 1)
          throw invalidRequest([
            { field: 'syncId', issue: 'name exactly one of syncId, consentId, paymentId' },
          ]);
        const [key] = named;
        const id = checkedId(key, args[key] as string);
        const parent = ({ syncId: 'sync-run', consentId: 'consent', paymentId: 'payment' } as const)[key];
        const collection = ({ syncId: 'syncs', consentId: 'consents', paymentId: 'payments' } as const)[key];
        const page = keysetPage(pageOf(args), `/v1/${collection}/${id}/upstream-calls`, {
          key: UPSTREAM_CALL_KEY,
        });
        const { calls, nextBeforeId } = await callLog.pageOf(caller, parent, id, page.limit, page.after);
        return page.answer(calls, nextBeforeId);
      },
    },
    {
      name: 'connection_conversion',
      route: 'GET /v1/insights/conversion',
      description:
        'Bank connections started by day (UTC) and bank, and what became of them (authorised, rejected, abandoned, failed, pending, first synced, median times): where customers drop off; as GET /v1/insights/conversion.',
      input: {
        from: day('First day counted, default 29 days before `to`'),
        to: day('Last day counted, default today'),
      },
      read: async (caller, args) => envelope(await conversion.ofMerchant(caller, rangeOf(args))),
    },
    {
      name: 'institution_health',
      route: 'GET /v1/insights/institution-health',
      description: `Each bank's upstream error rate (its or the upstream's failures: no answer, 5xx, 429, the bank's failure relayed; not 4xx refusals) and p95 latency of the calls made for you, over the range and by hour (by day beyond ${HEALTH_HOURLY_MAX_DAYS} days): whether a customer's problem is the bank's; as GET /v1/insights/institution-health.`,
      input: {
        from: day(`First day counted, default ${HEALTH_DEFAULT_DAYS - 1} days before \`to\``),
        to: day('Last day counted, default today'),
      },
      read: async (caller, args) => envelope(await health.ofMerchant(caller, rangeOf(args))),
    },
  ];
}
