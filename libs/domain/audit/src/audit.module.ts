import { Module } from '@nestjs/common';
import { AuditEntryRepository } from './audit-entry.repository.js';
import { AuditTrail } from './audit-trail.service.js';

/** The audit log of administrative actions. */
@Module({ providers: [AuditEntryRepository, AuditTrail], exports: [AuditTrail] })
export class AuditModule {}
