import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { mergeMap, type Observable } from 'rxjs';
import { currentContext } from '#libs/context';
import { type AuditActor, AuditTrailService, type NewAuditEntry } from '#libs/domain/audit';
import type { RequestWithPrincipal } from '#libs/http';
import { type AppLogger, LOGGER } from '#libs/observability';
import { AUDITED_METADATA, type AuditedFacts, type AuditedSpec } from './audited.metadata.js';

const read = (from: AuditedSpec['id'], facts: AuditedFacts): string | null =>
  from === undefined ? null : typeof from === 'string' ? (facts.params[from] ?? null) : (from(facts) ?? null);

/**
 * Appends an `@Audited` route's entry once its handler has succeeded, before the answer is sent: a
 * client that saw the answer can find the entry. An entry that cannot be written fails the request (the
 * action stands; its error says the log could not be written, and the error log line carries the entry).
 * An idempotent replay is the first request's answer again, not a second action: nothing is appended.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly trail: AuditTrailService,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = this.reflector.get<AuditedSpec | undefined>(AUDITED_METADATA, context.getHandler());
    if (!spec) return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & RequestWithPrincipal>();
    const reply = http.getResponse<FastifyReply>();
    return next.handle().pipe(
      mergeMap(async (answer: unknown) => {
        // Inside an idempotent request, a replay never reaches here; the header is the check that says so.
        if (reply.getHeader('idempotent-replayed') === 'true') return answer;
        const facts: AuditedFacts = {
          params: (request.params ?? {}) as Record<string, string>,
          body: request.body,
          answer,
        };
        const caller = request.principal;
        // An audited route reachable without a caller would be a wiring bug: never guess who acted.
        if (caller?.kind !== 'operator' && caller?.kind !== 'merchant') {
          throw new Error(
            `audit: ${spec.action} by ${caller?.kind ?? 'nobody'}: no operator or merchant key`,
          );
        }
        const actor: AuditActor =
          caller.kind === 'merchant'
            ? { kind: 'merchant', merchantId: caller.merchantId, apiKeyId: caller.apiKeyId }
            : { kind: 'operator' };
        const body = facts.body;
        const entry: NewAuditEntry = {
          actor,
          action: spec.action,
          merchantId: actor.kind === 'merchant' ? actor.merchantId : read(spec.merchant, facts),
          resourceType: spec.resource,
          resourceId: read(spec.id, facts),
          fields:
            spec.fields && body && typeof body === 'object'
              ? Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined)
              : [],
          sourceIp: request.ip,
          tracingId: currentContext()?.requestId ?? String(request.id),
        };
        try {
          await this.trail.record(entry);
        } catch (error) {
          this.logger.error(
            { audit: entry, err: error },
            'audit: an action succeeded but its entry was not written',
          );
          throw error;
        }
        return answer;
      }),
    );
  }
}
