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
import { mappedAndLogged } from '#libs/http';
import { type AppLogger, LOGGER } from '#libs/observability';
import { OpenApiDocumentService } from '../common/openapi-document/openapi-document.service.js';
import { McpCustomerToolsService } from './mcp-customer-tools.service.js';
import { McpDeliveryToolsService } from './mcp-delivery-tools.service.js';
import { McpInsightToolsService } from './mcp-insight-tools.service.js';
import { argumentsOf, inputSchemaOf, type Tool } from './mcp-tool-kit.js';

/**
 * The api's MCP server (docs/mcp.md): its tools, declared with their REST routes' output schemas, and
 * their answers and errors in the REST envelope. The tools themselves are in three sets by what they
 * read (McpCustomerToolsService, McpInsightToolsService, McpDeliveryToolsService); each is the REST
 * route of its description, thin, so the tenant checks, the 404s and the fields left out (tokens,
 * secrets) are the REST routes' own. None writes.
 */
@Injectable()
export class McpToolsService {
  constructor(
    private readonly customerTools: McpCustomerToolsService,
    private readonly insightTools: McpInsightToolsService,
    private readonly deliveryTools: McpDeliveryToolsService,
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
    return [...this.customerTools.tools(), ...this.insightTools.tools(), ...this.deliveryTools.tools()];
  }
}

const toolError = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });
