import { timingSafeEqual } from 'node:crypto';
import {
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ApplicationRegistryService, type SandboxApplication } from './application-registry.service.js';
import { SandboxError } from './sandbox-error.js';

/**
 * Who may call a sandbox route: the upstream's HTTP Basic applications (the default), the control API's
 * bearer token, or anyone (the hosted consent page the PSU's browser opens, health).
 */
export type SandboxAccess = 'application' | 'admin' | 'public';
const ACCESS = 'sandbox:access';
export const SandboxAccess = (access: SandboxAccess) => SetMetadata(ACCESS, access);

export const API_VERSION_HEADER = 'x-yapily-api-version';

/** What every authenticated sandbox request carries: who called, on whose behalf, and in which version. */
export interface SandboxContext {
  /** The application the call acts for: the sub-application when selected, else the caller. */
  application: SandboxApplication;
  /** The root application of that application (itself when it is a root). */
  rootApplication: SandboxApplication;
  /** The application whose credentials were presented. */
  caller: SandboxApplication;
  apiVersion: '1' | '2.0-ALPHA';
  psu: { id?: string; corporateId?: string; ipAddress?: string };
}

type RequestWithContext = FastifyRequest & { sandbox?: SandboxContext };

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

@Injectable()
export class SandboxAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly applications: ApplicationRegistryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const access =
      this.reflector.getAllAndOverride<SandboxAccess | undefined>(ACCESS, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'application';
    const request = context.switchToHttp().getRequest<RequestWithContext>();
    if (access === 'public') return true;
    if (access === 'admin') return this.admin(request);
    request.sandbox = this.application(request);
    return true;
  }

  private admin(request: FastifyRequest): boolean {
    const value = header(request, 'authorization') ?? '';
    const token = value.startsWith('Bearer ') ? value.slice(7) : '';
    const expected = Buffer.from(this.config.sandbox.adminToken);
    const given = Buffer.from(token);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new SandboxError(
        401,
        'The sandbox control API needs Authorization: Bearer <SANDBOX_ADMIN_TOKEN>',
        [{ type: 'CREDENTIALS', code: 'CREDENTIALS_INVALID', message: 'Invalid or missing admin token' }],
      );
    }
    return true;
  }

  private application(request: FastifyRequest): SandboxContext {
    const authorization = header(request, 'authorization');
    // Webhook endpoints number their issue codes (upstream spec §7.2): 10700 for invalid credentials.
    const webhookRoute = request.url.startsWith('/webhook/');
    if (!authorization) throw SandboxError.credentialsMissing();
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
    const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const caller =
      colon > 0
        ? this.applications.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1))
        : undefined;
    if (!caller) {
      throw webhookRoute
        ? new SandboxError(401, 'Invalid credentials', [
            { type: 'UNAUTHORIZED', code: 10700, message: 'Invalid credentials' },
          ])
        : SandboxError.credentialsInvalid();
    }

    let application = caller;
    const sub = header(request, 'sub-application');
    if (sub && sub !== caller.id) {
      const target = this.applications.get(sub);
      if (!target || target.rootApplicationId !== caller.id) {
        throw SandboxError.forbidden(
          `Sub-application ${sub} is not a sub-application of the calling application`,
        );
      }
      application = target;
    }
    const rootApplication = application.rootApplicationId
      ? this.applications.get(application.rootApplicationId)!
      : application;
    const version = header(request, API_VERSION_HEADER);
    if (version !== undefined && version !== '2.0-ALPHA' && version !== '1' && version !== '1.0') {
      throw SandboxError.invalidProperty(API_VERSION_HEADER, `Unsupported API version ${version}`);
    }
    return {
      application,
      rootApplication,
      caller,
      apiVersion: version === '2.0-ALPHA' ? '2.0-ALPHA' : '1',
      psu: {
        id: header(request, 'psu-id'),
        corporateId: header(request, 'psu-corporate-id'),
        ipAddress: header(request, 'psu-ip-address'),
      },
    };
  }
}

/** The authenticated caller of an application route. */
export const Ctx = createParamDecorator((_: unknown, context: ExecutionContext): SandboxContext => {
  const request = context.switchToHttp().getRequest<RequestWithContext>();
  if (!request.sandbox) throw new Error('Ctx used on a route that is not application-authenticated');
  return request.sandbox;
});
