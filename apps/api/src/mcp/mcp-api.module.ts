import { Module } from '@nestjs/common';
import { AccountsModule } from '#libs/domain/accounts';
import { ConsentsModule } from '#libs/domain/consents';
import { EventsModule } from '#libs/domain/events';
import { SyncModule } from '#libs/domain/sync';
import { UpstreamCallsModule } from '#libs/domain/upstream-calls';
import { UsersModule } from '#libs/domain/users';
import { McpController } from './mcp.controller.js';
import { McpCustomerToolsService } from './mcp-customer-tools.service.js';
import { McpDeliveryToolsService } from './mcp-delivery-tools.service.js';
import { McpInsightToolsService } from './mcp-insight-tools.service.js';
import { McpToolsService } from './mcp-tools.service.js';

/** /v1/mcp: the read-only MCP server for a merchant's support assistant (docs/mcp.md). */
@Module({
  imports: [UsersModule, ConsentsModule, AccountsModule, SyncModule, EventsModule, UpstreamCallsModule],
  controllers: [McpController],
  providers: [McpCustomerToolsService, McpInsightToolsService, McpDeliveryToolsService, McpToolsService],
})
export class McpApiModule {}
