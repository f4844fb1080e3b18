import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { Controller, Post, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiExtension,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TenantCaller } from '#libs/context';
import { ApiErrorResponse, Auth, AuthKind, invalidRequest, Tenant } from '#libs/http';
import { McpToolsService } from './mcp-tools.service.js';

const JSON_RPC = {
  type: 'object',
  description: 'A JSON-RPC 2.0 message of the Model Context Protocol',
  additionalProperties: true,
} as const;

/**
 * The Model Context Protocol over Streamable HTTP, stateless (docs/mcp.md): every POST is answered by a
 * server and transport made for it alone, bound to the caller the access hook resolved, so nothing of
 * one request (nor of one merchant) outlives it, any api process can answer any request, and
 * authentication, the rate limit and the request's tracing id are the REST routes' own.
 */
@ApiTags('mcp')
@Auth(AuthKind.Merchant)
@Controller('v1/mcp')
export class McpController {
  constructor(private readonly tools: McpToolsService) {}

  @Post()
  @ApiOperation({
    summary: 'Model Context Protocol (Streamable HTTP) for a support assistant',
    description:
      'Read-only tools over your customers, consents, accounts, sync runs, lookups and event deliveries, each answering what its REST route answers (docs/mcp.md). Stateless: no `Mcp-Session-Id`; send `Accept: application/json, text/event-stream`. Answers are JSON-RPC messages (a notification alone answers 202 with no body); a tool that fails answers `isError` with the error envelope of its REST route. Use an MCP client rather than calling this directly.',
  })
  // An MCP client speaks to it, not the merchant SDK (test/sdk-types.e2e-spec.ts reads this).
  @ApiExtension('x-sdk', 'none: use an MCP client')
  @ApiBody({ schema: JSON_RPC })
  @ApiOkResponse({ description: 'The JSON-RPC answer', schema: JSON_RPC })
  @ApiAcceptedResponse({ description: 'Notifications or responses only: nothing to answer' })
  @ApiBadRequestResponse({
    type: ApiErrorResponse,
    description:
      'VALIDATION_FAILED: the body is no JSON-RPC message, Accept lacks application/json or text/event-stream, or MCP-Protocol-Version names a version not supported',
  })
  async handle(
    @Tenant() caller: TenantCaller,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    assertMcpRequest(request);
    const server = this.tools.serverFor(caller, request);
    // Stateless (no session id) and JSON answers: nothing is kept between requests, nothing streams.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    // From here the transport writes the answer; it keeps the headers set so far (request id, rate limit, CORS).
    reply.hijack();
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value);
    }
    reply.raw.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }
}

/**
 * What the transport would refuse in JSON-RPC, refused here first in the error envelope like every 4xx
 * of the api: an answer an MCP client cannot take, a body that is no JSON-RPC message, a protocol version not spoken.
 */
function assertMcpRequest(request: FastifyRequest): void {
  const { body } = request;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest([{ field: 'body', issue: 'must be a JSON object' }]);
  }
  if (!JSONRPCMessageSchema.safeParse(body).success) {
    throw invalidRequest([
      { field: 'body', issue: 'must be a JSON-RPC 2.0 message of the Model Context Protocol' },
    ]);
  }
  const accept = request.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    throw invalidRequest([
      { field: 'accept', issue: 'must accept both application/json and text/event-stream' },
    ]);
  }
  const version = request.headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) {
    throw invalidRequest([
      { field: 'mcp-protocol-version', issue: `must be one of ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}` },
    ]);
  }
}
