import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { CoreModule, type CoreOptions } from '#libs/core';
import { ReadCache } from '#libs/database';
import { AuthModule } from './common/auth/auth.module.js';
import { AuthenticationGuard } from './common/auth/authentication.guard.js';
import { MerchantCorsGuard } from './common/auth/merchant-cors.js';
import { RateLimitGuard } from './common/auth/rate-limit.guard.js';
import { IdempotencyModule } from './common/idempotency/idempotency.module.js';
import { MerchantsModule } from '#libs/domain/merchants';
import { DefaultDenyGuard, HttpErrorFilter, createValidationPipe } from '#libs/http';
import { AdminMerchantsController } from './admin/admin-merchants.controller.js';
import { ConsentsApiModule } from './consents/consents-api.module.js';
import { DataApiModule } from './accounts/accounts-api.module.js';
import { SyncApiModule } from './sync/sync-api.module.js';
import { EventsApiModule } from './events/events-api.module.js';
import { PaymentsApiModule } from './payments/payments-api.module.js';
import { AdminUpstreamController } from './admin/admin-upstream.controller.js';
import { HealthModule } from './system/system.module.js';
import { RootModule } from './system/root.controller.js';
import { MeController } from './system/me.controller.js';
import { MetricsController } from './system/metrics.controller.js';
import { UsersApiModule } from './users/users-api.module.js';

@Module({})
export class AppModule {
  static forRoot(options: CoreOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(options),
        HealthModule,
        RootModule,
        AuthModule,
        MerchantsModule,
        IdempotencyModule,
        UsersApiModule,
        ConsentsApiModule,
        DataApiModule,
        SyncApiModule,
        EventsApiModule,
        PaymentsApiModule,
      ],
      controllers: [MetricsController, AdminMerchantsController, AdminUpstreamController, MeController],
      // Global guards run in this order: who is calling, may they call this route, CORS, then their rate.
      providers: [
        { provide: APP_GUARD, useExisting: AuthenticationGuard },
        { provide: APP_GUARD, useClass: DefaultDenyGuard },
        { provide: APP_GUARD, useExisting: MerchantCorsGuard },
        { provide: APP_GUARD, useExisting: RateLimitGuard },
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
