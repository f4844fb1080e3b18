import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { MerchantsModule } from '#libs/domain/merchants';
import { UsersModule } from '#libs/domain/users';
import { MerchantApiKeyStrategy, OperatorStrategy, UserSessionStrategy } from './auth.strategies.js';
import { ConsoleSessionService } from './console-session.service.js';
import { MerchantKeyVerifier } from './merchant-key.verifier.js';
import { PrincipalCache } from './principal-cache.js';
import { RateLimiterService } from './rate-limiter.service.js';
import { RequestAccessService } from './request-access.service.js';

/**
 * The three passport strategies and what the access hook asks of them (RequestAccessService): the app
 * registers the hook on every route (bootstrap.ts).
 */
@Module({
  imports: [PassportModule, MerchantsModule, UsersModule],
  providers: [
    OperatorStrategy,
    MerchantApiKeyStrategy,
    UserSessionStrategy,
    RequestAccessService,
    RateLimiterService,
    PrincipalCache,
    MerchantKeyVerifier,
    ConsoleSessionService,
  ],
  exports: [ConsoleSessionService],
})
export class AuthModule {}
