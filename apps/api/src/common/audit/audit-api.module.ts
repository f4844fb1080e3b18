import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { AuditModule as AuditDomainModule } from '#libs/domain/audit';
import { AuditInterceptor } from './audit.interceptor.js';
import { AuditCoverageCheck } from './audit-coverage.check.js';

/** The audit log's HTTP side: `@Audited` routes append their entry; the api checks every operator route has one. */
@Module({
  imports: [DiscoveryModule, AuditDomainModule],
  providers: [{ provide: APP_INTERCEPTOR, useClass: AuditInterceptor }, AuditCoverageCheck],
})
export class AuditApiModule {}
