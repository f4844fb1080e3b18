import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { CoreModule, type CoreOptions } from '#libs/core';
import { ReadCache } from '#libs/database';
import { createValidationPipe, HttpErrorFilter } from '#libs/http';
import { AccountsApiModule } from './accounts/accounts-api.module.js';
import { AdminApiModule } from './admin/admin-api.module.js';
import { AuditApiModule } from './common/audit/audit-api.module.js';
import { AuthModule } from './common/auth/auth.module.js';
import { IdempotencyModule } from './common/idempotency/idempotency.module.js';
import { OpenApiDocumentModule } from './common/openapi-document/openapi-document.module.js';
import { ConsentsApiModule } from './consents/consents-api.module.js';
import { ConsoleApiModule } from './console/console-api.module.js';
import { EventsApiModule } from './events/events-api.module.js';
import { InsightsApiModule } from './insights/insights-api.module.js';
import { InstitutionsApiModule } from './institutions/institutions-api.module.js';
import { McpApiModule } from './mcp/mcp-api.module.js';
import { MerchantApiModule } from './merchant/merchant-api.module.js';
import { PaymentsApiModule } from './payments/payments-api.module.js';
import { SystemModule } from './system/system.module.js';
import { UpstreamCallsApiModule } from './upstream-calls/upstream-calls-api.module.js';
import { UsersApiModule } from './users/users-api.module.js';
import { VrpApiModule } from './vrp/vrp-api.module.js';
import { WebhooksApiModule } from './webhooks/webhooks-api.module.js';

/**
 * One module per URL resource (the folders beside this file), on the plumbing in common/. Their order
 * is the order of the OpenAPI document's operations, in which docs/api-reference.md lists each tag's.
 */
@Module({})
export class AppModule {
  static forRoot(options: CoreOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(options),
        SystemModule,
        AuthModule,
        IdempotencyModule,
        OpenApiDocumentModule,
        AuditApiModule,
        AdminApiModule,
        MerchantApiModule,
        InsightsApiModule,
        UsersApiModule,
        InstitutionsApiModule,
        ConsentsApiModule,
        AccountsApiModule,
        WebhooksApiModule,
        EventsApiModule,
        PaymentsApiModule,
        VrpApiModule,
        McpApiModule,
        ConsoleApiModule,
        UpstreamCallsApiModule,
      ],
      // No guards: who may call a route is decided before Nest, by the access hook (bootstrap.ts).
      providers: [
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
        // Only the api keeps page-view reads, so only the api listens for the changes that void them.
        {
          provide: 'READ_CACHE_LISTENING',
          inject: [ReadCache],
          useFactory: (cache: ReadCache) => cache.listen(),
        },
      ],
    };
  }
}
