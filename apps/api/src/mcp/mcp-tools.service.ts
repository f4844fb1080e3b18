import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool as ToolDeclaration,
} from '@modelcontextprotocol/sdk/types.js';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
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
import { LookupInput } from '../common/inputs/lookup.input.js';
import { OpenApiDocumentService } from '../common/openapi-document/openapi-document.service.js';
import { keysetPage } from '../common/paging.js';
import {
  AccountListInput,
  ConsentInput,
  ConsentListInput,
  DeliveryListInput,
  EndpointListInput,
  FindCustomerInput,
  SyncRunInput,
  UserInput,
  UserListInput,
} from './inputs/tool-arguments.input.js';
import { insightTools } from './mcp-insight-tools.js';
import {
  argumentsOf,
  ATTEMPT_NUMBER,
  CHANGE_NUMBER,
  inputSchemaOf,
  type Tool,
  tool,
} from './mcp-tool-kit.js';

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
    private readonly openApi: OpenApiDocumentService,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  private catalogue?: { tools: Map<string, Tool>; declared: ToolDeclaration[] };

  /**
   * A server for one request (stateless), its tools bound to the request's caller. The SDK's low-level
   * server, not `McpServer`: that one takes output schemas only as zod, and each tool's is its REST
   * route's answer as the OpenAPI document describes it, a JSON Schema already.
   */
  serverFor(caller: TenantCaller, request: FastifyRequest): Server {
    const { tools, declared } = this.toolCatalogue();
    const server = new Server(
      { name: 'open-banking-bff', version: '1.0.0' },
      { capabilities: { tools: { listChanged: false } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: declared }));
    server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
      const tool = tools.get(params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${params.name} not found`);
      // A refused argument is the tool's error, not the protocol's, so the assistant reads it and
      // corrects its call: the route's 400, in the envelope, as any failure of the tool.
      return this.answer(
        async () => tool.read(caller, await argumentsOf(tool, params.arguments ?? {})),
        request,
      );
    });
    return server;
  }

  /** The tools and what tools/list says of them, built once: none depends on the caller. */
  private toolCatalogue(): NonNullable<McpToolsService['catalogue']> {
    this.catalogue ??= {
      tools: new Map(this.tools().map((tool) => [tool.name, tool])),
      declared: this.tools().map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: inputSchemaOf(tool.input) as never,
        outputSchema: this.openApi.responseJsonSchema(tool.route) as never,
        annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
      })),
    };
    return this.catalogue;
  }

  /**
   * The view as JSON text and as structured content; a failure as the REST envelope's error, flagged,
   * as text only: structured content must conform to the tool's output schema, which is the success's.
   */
  private async answer(read: () => Promise<object>, request: FastifyRequest): Promise<CallToolResult> {
    try {
      const body = (await read()) as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
    } catch (error) {
      return toolError(JSON.stringify(mappedAndLogged(this.logger, error, request).body));
    }
  }

  private tools(): Tool[] {
    return [
      ...this.customerTools(),
      ...this.consentTools(),
      ...this.syncTools(),
      ...insightTools({ callLog: this.calls, conversion: this.conversion, health: this.health }),
      ...this.deliveryTools(),
    ];
  }

  private customerTools(): Tool[] {
    return [
      tool({
        name: 'find_customer',
        // GET /v1/users?reference= answers one user: the same envelope as this route's.
        route: 'GET /v1/users/{userId}',
        description: 'The customer (user) with your reference for them, as GET /v1/users?reference= answers.',
        input: FindCustomerInput,
        read: async (caller, { reference }) => envelope(await this.users.findByReference(caller, reference)),
      }),
      tool({
        name: 'get_customer',
        route: 'GET /v1/users/{userId}',
        description: 'One customer by id, as GET /v1/users/{userId}.',
        input: UserInput,
        read: async (caller, args) =>
          envelope(await this.users.get(caller, checkedId('userId', args.userId))),
      }),
    ];
  }

  private consentTools(): Tool[] {
    return [
      tool({
        name: 'list_consents',
        route: 'GET /v1/users/{userId}/consents',
        description:
          "A customer's consents (bank connections), newest first, as GET /v1/users/{userId}/consents.",
        input: UserListInput,
        read: async (caller, args) => {
          const userId = checkedId('userId', args.userId);
          const page = keysetPage(args, `/v1/users/${userId}/consents`);
          const { consents, nextBeforeId } = await this.consents.listForUser(
            caller,
            userId,
            page.limit,
            page.after,
          );
          return page.answer(consents, nextBeforeId);
        },
      }),
      tool({
        name: 'get_consent',
        route: 'GET /v1/consents/{consentId}',
        description:
          'One consent: status, scope and dates (never its token), as GET /v1/consents/{consentId}.',
        input: ConsentInput,
        read: async (caller, args) =>
          envelope(await this.consents.get(caller, checkedId('consentId', args.consentId))),
      }),
      tool({
        name: 'consent_history',
        route: 'GET /v1/consents/{consentId}/history',
        description: "A consent's status changes, oldest first, as GET /v1/consents/{consentId}/history.",
        input: ConsentListInput,
        read: async (caller, args) => {
          const consentId = checkedId('consentId', args.consentId);
          const page = keysetPage(args, `/v1/consents/${consentId}/history`, { key: CHANGE_NUMBER });
          const { changes, nextAfterId } = await this.consents.statusHistory(
            caller,
            consentId,
            page.limit,
            page.after,
          );
          return page.answer(changes, nextAfterId);
        },
      }),
    ];
  }

  private syncTools(): Tool[] {
    return [
      tool({
        name: 'list_accounts',
        route: 'GET /v1/users/{userId}/accounts',
        description:
          "A customer's accounts with their sync freshness (status, lastSyncedAt, lastError, failingSince), as GET /v1/users/{userId}/accounts.",
        input: UserListInput,
        read: async (caller, args) => {
          const userId = checkedId('userId', args.userId);
          const page = keysetPage(args, `/v1/users/${userId}/accounts`);
          const { accounts, nextAfterId } = await this.accounts.listForUser(
            caller,
            userId,
            page.limit,
            page.after,
          );
          return page.answer(accounts, nextAfterId);
        },
      }),
      tool({
        name: 'list_sync_runs',
        route: 'GET /v1/accounts/{accountId}/syncs',
        description:
          "An account's sync runs, newest first, each with its error (code, message and the upstream's tracingId to quote to the bank), as GET /v1/accounts/{accountId}/syncs.",
        input: AccountListInput,
        read: async (caller, args) => {
          const accountId = checkedId('accountId', args.accountId);
          const page = keysetPage(args, `/v1/accounts/${accountId}/syncs`);
          const { runs, nextBeforeId } = await this.sync.listRuns(caller, accountId, page.limit, page.after);
          return page.answer(runs, nextBeforeId);
        },
      }),
      tool({
        name: 'get_sync_run',
        route: 'GET /v1/syncs/{syncId}',
        description: 'One sync run: status, window, progress, attempts and error, as GET /v1/syncs/{syncId}.',
        input: SyncRunInput,
        read: async (caller, args) =>
          envelope(await this.sync.getRun(caller, checkedId('syncId', args.syncId))),
      }),
      tool({
        name: 'look_up',
        route: 'GET /v1/lookup',
        description:
          "What an id names: a tracing id (ours or the upstream's), a customer's reference, or the id of a sync run, payment, event or delivery; as GET /v1/lookup?id=.",
        input: LookupInput,
        read: async (caller, { id }) => envelope(await this.lookups.lookUp(caller, id)),
      }),
    ];
  }

  private deliveryTools(): Tool[] {
    return [
      tool({
        name: 'list_deliveries',
        route: 'GET /v1/event-endpoints/{id}/deliveries',
        description:
          "An event endpoint's deliveries, newest first (attempts, the last answer, the next attempt), as GET /v1/event-endpoints/{id}/deliveries.",
        input: EndpointListInput,
        read: async (caller, args) => {
          const endpointId = checkedId('endpointId', args.endpointId);
          const page = keysetPage(args, `/v1/event-endpoints/${endpointId}/deliveries`);
          const rows = await this.endpoints.deliveriesOf(caller, endpointId, {
            beforeId: page.after ?? null,
            limit: page.limit + 1,
          });
          const items = rows.slice(0, page.limit);
          return page.answer(items, rows.length > page.limit ? items[items.length - 1].id : null);
        },
      }),
      tool({
        name: 'list_delivery_attempts',
        route: 'GET /v1/event-endpoints/{id}/deliveries/{deliveryId}/attempts',
        description:
          "A delivery's attempts, newest first, each with the request sent and the answer or error, as GET /v1/event-endpoints/{id}/deliveries/{deliveryId}/attempts.",
        input: DeliveryListInput,
        read: async (caller, args) => {
          const endpointId = checkedId('endpointId', args.endpointId);
          const deliveryId = checkedId('deliveryId', args.deliveryId);
          const path = `/v1/event-endpoints/${endpointId}/deliveries/${deliveryId}/attempts`;
          const page = keysetPage(args, path, { key: ATTEMPT_NUMBER });
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
      }),
    ];
  }
}

const toolError = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });
