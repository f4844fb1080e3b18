import { Injectable, type OnModuleInit, RequestMethod } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { AUTH_METADATA, AuthKind } from '#libs/http';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor.js';
import { AuditInterceptor } from './audit.interceptor.js';
import { AUDITED_METADATA } from './audited.metadata.js';

/**
 * What is wrong with the routes' audit wiring: an operator route that changes something and names no
 * audit action, or an audited idempotent route whose entry would be written outside its idempotency
 * (interceptors run outermost first, in the order they were declared bottom-up).
 */
export function auditWiringProblems(
  discovery: DiscoveryService,
  scanner: MetadataScanner,
  reflector: Reflector,
): string[] {
  const missing: string[] = [];
  for (const wrapper of discovery.getControllers()) {
    const type = wrapper.metatype as (new (...args: never[]) => object) | undefined;
    if (!type || !wrapper.instance) continue;
    const prototype = Object.getPrototypeOf(wrapper.instance) as object;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = (prototype as Record<string, unknown>)[name] as () => unknown;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined || method === RequestMethod.GET || method === RequestMethod.HEAD) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, type) ?? '');
      const path = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
      const route = `${RequestMethod[method]} /${[base, path].filter((p) => p && p !== '/').join('/')}`;
      const interceptors = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? []) as unknown[];
      const audit = interceptors.indexOf(AuditInterceptor);
      const idempotency = interceptors.indexOf(IdempotencyInterceptor);
      if (audit !== -1 && idempotency > audit) {
        missing.push(`${route}: put @Audited above @Idempotent, so its entry is written inside it`);
      }
      const kinds = reflector.getAllAndOverride<AuthKind[] | undefined>(AUTH_METADATA, [handler, type]);
      if (!kinds?.includes(AuthKind.Operator) || reflector.get(AUDITED_METADATA, handler)) continue;
      missing.push(`${route}: an operator route that changes something must be @Audited`);
    }
  }
  return missing;
}

/** Refuses to start an api whose routes' audit wiring is wrong ({@link auditWiringProblems}). */
@Injectable()
export class AuditCoverageCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const problems = auditWiringProblems(this.discovery, this.scanner, this.reflector);
    if (problems.length > 0) throw new Error(`The audit log's wiring:\n  ${problems.join('\n  ')}`);
  }
}
