import { Module } from '@nestjs/common';
import { AuditEntryRepository } from './audit-entry.repository.js';
import { AuditTrailService } from './audit-trail.service.js';

/** The audit log of administrative actions. */
@Module({ providers: [AuditEntryRepository, AuditTrailService], exports: [AuditTrailService] })
export class AuditModule {}
