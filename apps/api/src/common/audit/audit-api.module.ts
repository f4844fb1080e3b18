import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AuditCoverageCheck } from './audit-coverage.check.js';

/** The audit log's HTTP side: the api refuses to start when a route's audit wiring is wrong. */
@Module({
  imports: [DiscoveryModule],
  providers: [AuditCoverageCheck],
})
export class AuditApiModule {}
