import { Global, Module } from '@nestjs/common';
import { HeldIdempotencyClaims } from './held-idempotency-claims.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';
import { IdempotencyRepository } from './idempotency.repository.js';

/** Global so any controller module can put @Idempotent() on a route without importing this. */
@Global()
@Module({
  providers: [IdempotencyRepository, IdempotencyInterceptor, HeldIdempotencyClaims],
  exports: [IdempotencyRepository, HeldIdempotencyClaims],
})
export class IdempotencyModule {}
