import { Injectable, type OnModuleInit, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { AUTH_METADATA, AuthKind } from '#libs/http';
import { AUDITED_METADATA } from './audited.decorator.js';

/** The routes the operator may call that change something and name no audit action. */
export function unauditedOperatorRoutes(
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
      const kinds = reflector.getAllAndOverride<AuthKind[] | undefined>(AUTH_METADATA, [handler, type]);
      if (!kinds?.includes(AuthKind.Operator)) continue;
      if (reflector.get(AUDITED_METADATA, handler)) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, type) ?? '');
      const path = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
      missing.push(`${RequestMethod[method]} /${[base, path].filter((p) => p && p !== '/').join('/')}`);
    }
  }
  return missing;
}

/** Refuses to start an api in which an operator route changes something without an audit entry. */
@Injectable()
export class AuditCoverageCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const missing = unauditedOperatorRoutes(this.discovery, this.scanner, this.reflector);
    if (missing.length > 0) {
      throw new Error(`Operator routes that change something must be @Audited:\n  ${missing.join('\n  ')}`);
    }
  }
}
