import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { TenantCaller } from '#libs/context';
import { AccountsService } from '#libs/domain/accounts';
import { ConsentConversionService, ConsentsService } from '#libs/domain/consents';
import { EventEndpointsService } from '#libs/domain/events';
import { SyncService, TracingLookupService } from '#libs/domain/sync';
import { InstitutionHealthService, UpstreamCallsService } from '#libs/domain/upstream-calls';
import { UsersService } from '#libs/domain/users';
import { envelope, mappedAndLogged } from '#libs/http';
import { type AppLogger, LOGGER } from '#libs/observability';
import { checkedId } from '../common/id-param.js';
import { keysetPage } from '../common/paging.js';
import { insightTools } from './mcp-insight-tools.js';
import { anId, ATTEMPT_NUMBER, CHANGE_NUMBER, pageOf, paging, type Tool } from './mcp-tool-kit.js';

/**
 * The tools of the api's MCP server (docs/mcp.md). Each is the REST route of its description, thin: it
 * calls the same domain service method with the caller's tenant and answers the same view (the
 * envelope, `data` and `meta`), so the tenant checks, the 404s and the fields left out (tokens, secrets)
 * are the REST routes' own. None writes.
 */
@Injectable()
export class McpToolsService {
  constructor(
    private readonly users: UsersService,
    private readonly consents: ConsentsService,
    private readonly accounts: AccountsService,
    private readonly sync: SyncService,
    private readonly lookups: TracingLookupService,
    private readonly endpoints: EventEndpointsService,
    private readonly calls: UpstreamCallsService,
    private readonly conversion: ConsentConversionService,
    private readonly health: InstitutionHealthService,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  /** A server for one request (stateless), its tools bound to the request's caller. */
  serverFor(caller: TenantCaller, request: FastifyRequest): McpServer {
    const server = new McpServer({ name: 'open-banking-bff', version: '1.0.0' });
    for (const tool of this.tools()) {
      server.registerTool(
        tool.name,
        {
          description: tool.description,
          inputSchema: tool.input,
          annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
        },
        (args: Record<string, unknown>) => this.answer(() => tool.read(caller, args), request),
      );
    }
    return server;
  }

  /** The view as JSON text and as structured content; a failure as the REST envelope's error, flagged. */
  private async answer(read: () => Promise<object>, request: FastifyRequest): Promise<CallToolResult> {
    try {
      const body = (await read()) as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
    } catch (error) {
      const { body } = mappedAndLogged(this.logger, error, request);
      const content = body as unknown as Record<string, unknown>;
      return {
        isError: true,
        content: [{ type: 'text', text: JSON.stringify(content) }],
        structuredContent: content,
      };
    }
  }

  private tools(): Tool[] {
    return [
      ...this.customerTools(),
      ...this.syncTools(),
      ...insightTools({ callLog: this.calls, conversion: this.conversion, health: this.health }),
      ...this.deliveryTools(),
    ];
  }

  private customerTools(): Tool[] {
    return [
      {
        name: 'find_customer',
        description: 'The customer (user) with your reference for them, as GET /v1/users?reference= answers.',
        input: { reference: z.string().min(1).max(200).describe('Your reference for the customer') },
        read: async (caller, { reference }) =>
          envelope(await this.users.findByReference(caller, reference as string)),
      },
      {
        name: 'get_customer',
        description: 'One customer by id, as GET /v1/users/{userId}.',
        input: { userId: anId('The user id') },
        read: async (caller, args) =>
          envelope(await this.users.get(caller, checkedId('userId', args.userId as string))),
      },
      {
        name: 'list_consents',
        description:
          "A customer's consents (bank connections), newest first, as GET /v1/users/{userId}/consents.",
        input: { userId: anId('The user id'), ...paging },
        read: async (caller, args) => {
          const userId = checkedId('userId', args.userId as string);
          const page = keysetPage(pageOf(args), `/v1/users/${userId}/consents`);
          const { consents, nextBeforeId } = await this.consents.listForUser(
            caller,
            userId,
            page.limit,
            page.after,
          );
          return page.answer(consents, nextBeforeId);
        },
      },
      {
        name: 'get_consent',
        description:
          'One consent: status, scope and dates (never its token), as GET /v1/consents/{consentId}.',
        input: { consentId: anId('The consent id') },
        read: async (caller, args) =>
          envelope(await this.consents.get(caller, checkedId('consentId', args.consentId as string))),
      },
      {
        name: 'consent_history',
        description: "A consent's status changes, oldest first, as GET /v1/consents/{consentId}/history.",
        input: { consentId: anId('The consent id'), ...paging },
        read: async (caller, args) => {
          const consentId = checkedId('consentId', args.consentId as string);
          const page = keysetPage(pageOf(args), `/v1/consents/${consentId}/history`, { key: CHANGE_NUMBER });
          const { changes, nextAfterId } = await this.consents.statusHistory(
            caller,
            consentId,
            page.limit,
            page.after,
          );
          return page.answer(changes, nextAfterId);
        },
      },
    ];
  }

  private syncTools(): Tool[] {
    return [
      {
        name: 'list_accounts',
        description:
          "A customer's accounts with their sync freshness (status, lastSyncedAt, lastError, failingSince), as GET /v1/users/{userId}/accounts.",
        input: { userId: anId('The user id'), ...paging },
        read: async (caller, args) => {
          const userId = checkedId('userId', args.userId as string);
          const page = keysetPage(pageOf(args), `/v1/users/${userId}/accounts`);
          const { accounts, nextAfterId } = await this.accounts.listForUser(
            caller,
            userId,
            page.limit,
            page.after,
          );
          return page.answer(accounts, nextAfterId);
        },
      },
      {
        name: 'list_sync_runs',
        description:
          "An account's sync runs, newest first, each with its error (code, message and the upstream's tracingId to quote to the bank), as GET /v1/accounts/{accountId}/syncs.",
        input: { accountId: anId('The account id'), ...paging },
        read: async (caller, args) => {
          const accountId = checkedId('accountId', args.accountId as string);
          const page = keysetPage(pageOf(args), `/v1/accounts/${accountId}/syncs`);
          const { runs, nextBeforeId } = await this.sync.listRuns(caller, accountId, page.limit, page.after);
          return page.answer(runs, nextBeforeId);
        },
      },
      {
        name: 'get_sync_run',
        description: 'One sync run: status, window, progress, attempts and error, as GET /v1/syncs/{syncId}.',
        input: { syncId: anId('The sync run id') },
        read: async (caller, args) =>
          envelope(await this.sync.getRun(caller, checkedId('syncId', args.syncId as string))),
      },
      {
        name: 'look_up',
        description:
          "What an id names: a tracing id (ours or the upstream's), a customer's reference, or the id of a sync run, payment, event or delivery; as GET /v1/lookup?id=.",
        input: {
          id: z
            .string()
            .min(1)
            .max(255)
            .regex(/^[\x21-\x7e]+$/)
            .describe('The id to look up'),
        },
        read: async (caller, { id }) => envelope(await this.lookups.lookUp(caller, id as string)),
      },
    ];
  }

  private deliveryTools(): Tool[] {
    return [
      {
        name: 'list_deliveries',
        description:
          "An event endpoint's deliveries, newest first (attempts, the last answer, the next attempt), as GET /v1/event-endpoints/{id}/deliveries.",
        input: { endpointId: anId('The event endpoint id'), ...paging },
        read: async (caller, args) => {
          const endpointId = checkedId('endpointId', args.endpointId as string);
          const page = keysetPage(pageOf(args), `/v1/event-endpoints/${endpointId}/deliveries`);
          const rows = await this.endpoints.deliveriesOf(caller, endpointId, {
            beforeId: page.after ?? null,
            limit: page.limit + 1,
          });
          const items = rows.slice(0, page.limit);
          return page.answer(items, rows.length > page.limit ? items[items.length - 1].id : null);
        },
      },
      {
        name: 'list_delivery_attempts',
        description:
          "A delivery's attempts, newest first, each with the request sent and the answer or error, as GET /v1/event-endpoints/{id}/deliveries/{deliveryId}/attempts.",
        input: { endpointId: anId('The event endpoint id'), deliveryId: anId('The delivery id'), ...paging },
        read: async (caller, args) => {
          const endpointId = checkedId('endpointId', args.endpointId as string);
          const deliveryId = checkedId('deliveryId', args.deliveryId as string);
          const path = `/v1/event-endpoints/${endpointId}/deliveries/${deliveryId}/attempts`;
          const page = keysetPage(pageOf(args), path, { key: ATTEMPT_NUMBER });
          const rows = await this.endpoints.attemptsOf(caller, endpointId, deliveryId, {
            beforeAttempt: page.after === undefined ? null : Number(page.after),
            limit: page.limit + 1,
          });
          const items = rows.slice(0, page.limit);
          return page.answer(
            items,
            rows.length > page.limit ? String(items[items.length - 1].attempt) : null,
          );
        },
      },
    ];
  }
}
