import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { AuditAction } from '#libs/domain/audit';
import { AuditInterceptor } from './audit.interceptor.js';
import { AUDITED_METADATA, type AuditedOptions } from './audited.metadata.js';

export { answered } from './audited.metadata.js';

/**
 * Records the route's action in the audit log once it has succeeded (AuditInterceptor), and says so in
 * the OpenAPI document (`x-audit-action`). Every operator route that changes something must carry it
 * (AuditCoverageCheck); so do a merchant's own integration routes (keys, origins, webhook endpoints).
 * Place it above `@Idempotent()`: the entry is then written inside the idempotent request, before its
 * answer is kept, so an entry that could not be written fails the request and is not replayed as done
 * (AuditCoverageCheck refuses to start otherwise).
 */
export const Audited = (action: AuditAction, options: AuditedOptions) =>
  applyDecorators(
    SetMetadata(AUDITED_METADATA, { action, ...options }),
    UseInterceptors(AuditInterceptor),
    ApiExtension('x-audit-action', action),
  );
