import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { MerchantsModule } from '#libs/domain/merchants';
import { UsersModule } from '#libs/domain/users';
import { MerchantApiKeyStrategy, OperatorStrategy, UserSessionStrategy } from './auth.strategies.js';
import { AuthenticationGuard } from './authentication.guard.js';
import { ConsoleSessionService } from './console-session.service.js';
import { MerchantCorsGuard } from './merchant-cors.guard.js';
import { MerchantKeyVerifier } from './merchant-key.verifier.js';
import { PrincipalCache } from './principal-cache.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { RateLimiterService } from './rate-limiter.service.js';

/**
 * The three passport strategies and the guards that use them. The app registers the guards globally
 * in this order: AuthenticationGuard, DefaultDenyGuard, MerchantCorsGuard, RateLimitGuard.
 */
@Module({
  imports: [PassportModule, MerchantsModule, UsersModule],
  providers: [
    OperatorStrategy,
    MerchantApiKeyStrategy,
    UserSessionStrategy,
    AuthenticationGuard,
    MerchantCorsGuard,
    RateLimitGuard,
    RateLimiterService,
    PrincipalCache,
    MerchantKeyVerifier,
    ConsoleSessionService,
  ],
  exports: [
    ConsoleSessionService,
    AuthenticationGuard,
    MerchantCorsGuard,
    RateLimitGuard,
    RateLimiterService,
  ],
})
export class AuthModule {}
