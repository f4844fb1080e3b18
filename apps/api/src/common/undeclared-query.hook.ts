import { ApiExtension, type OpenAPIObject } from '@nestjs/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ErrorCode } from '#libs/errors';
import { sendError } from '#libs/http';
import type { AppLogger } from '#libs/observability';

/**
 * The document's mark on an operation that ignores a query parameter it does not declare instead of
 * refusing it: only a route whose URL a third party builds or extends, which we cannot ask to stop.
 */
export const UNDECLARED_QUERY = 'x-undeclared-query-parameters';
const IGNORED = 'ignored';

/**
 * On a route that must take whatever query a third party sends (the bank's redirect, the upstream's
 * webhook, a link passed through a mail or chat service): its undeclared parameters are dropped, not
 * refused. Say at the use why the route is one of those.
 */
export const IgnoresUndeclaredQuery = (): MethodDecorator => ApiExtension(UNDECLARED_QUERY, IGNORED);

/** Fastify route config key: the route's declared query parameters and what becomes of the others. */
const QUERY_RULE = 'queryRule';

interface QueryRule {
  declared: ReadonlySet<string>;
  /** Refused (400); otherwise dropped before the route reads the query. */
  refuse: boolean;
}

const REFUSAL =
  'VALIDATION_FAILED: a query parameter the operation does not declare (refused before the route)';

/** Fastify's route url for an OpenAPI path: `/v1/users/{userId}` → `/v1/users/:userId`. */
const routeUrl = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

/**
 * One rule for the query of every documented route, from the document itself: a parameter its operation
 * does not declare is refused with 400 naming it (and those it takes), before the route runs, so no route
 * ignores one while another refuses it, and a client generated from the document learns of a misspelt
 * filter at once rather than reading an unfiltered answer. Operations marked `IgnoresUndeclaredQuery`
 * drop such parameters instead. Declares that 400 on every other operation, and gives each route its
 * rule (read by {@link registerUndeclaredQueryRule}). Called before the app initialises, so the hook
 * sees every route as Nest registers it; a documented route Fastify knows by another name fails the boot.
 */
export function applyUndeclaredQueryRule(document: OpenAPIObject, fastify: FastifyInstance): void {
  const rules = new Map<string, QueryRule>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations) as [string, OperationLike][]) {
      if (!operation?.responses) continue;
      const declared = new Set(
        (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name as string),
      );
      const refuse = operation[UNDECLARED_QUERY] !== IGNORED;
      rules.set(`${method.toUpperCase()} ${routeUrl(path)}`, { declared, refuse });
      if (!refuse) continue;
      const known = operation.responses['400'] as { description?: string } | undefined;
      operation.responses['400'] = known
        ? { ...known, description: `${known.description ?? ''}; or ${REFUSAL}` }
        : {
            description: REFUSAL,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiErrorResponse' } } },
          };
    }
  }
  const unmatched = new Set(rules.keys());
  fastify.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    // A GET's HEAD (Fastify adds one per GET) takes the GET's query.
    const method = methods.includes('GET') || methods.includes('HEAD') ? 'GET' : methods[0];
    const key = `${method} ${route.url}`;
    const rule = rules.get(key);
    if (!rule) return;
    unmatched.delete(key);
    const config = { [QUERY_RULE]: rule };
    route.config = { ...route.config, ...config };
  });
  fastify.addHook('onReady', (done) => {
    done(
      unmatched.size > 0
        ? new Error(`Documented routes without their query rule: ${[...unmatched].join(', ')}`)
        : undefined,
    );
  });
}

interface OperationLike {
  parameters?: { in?: string; name?: string }[];
  responses?: Record<string, unknown>;
  [UNDECLARED_QUERY]?: unknown;
}

/**
 * The rule's hook: after the access hook (who may call comes first: an anonymous caller learns nothing of
 * a route's parameters) and before a kept answer is served, which never reaches Nest. Routes outside the
 * document (Swagger's viewer, the console's files) carry no rule and pass.
 */
export function registerUndeclaredQueryRule(fastify: FastifyInstance, logger: AppLogger): void {
  fastify.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done) => {
    const rule = request.routeOptions.config[QUERY_RULE as never] as QueryRule | undefined;
    const query = request.query as Record<string, unknown> | undefined;
    if (!rule || !query) return done();
    const undeclared = Object.keys(query).filter((name) => !rule.declared.has(name));
    if (undeclared.length === 0) return done();
    if (!rule.refuse) {
      request.query = Object.fromEntries(Object.entries(query).filter(([name]) => rule.declared.has(name)));
      return done();
    }
    // Answered here: the request goes no further (a callback hook that replied does not call done).
    sendError(logger, undeclaredQuery(undeclared, rule.declared), request, reply);
  });
}

function undeclaredQuery(undeclared: string[], declared: ReadonlySet<string>): DomainError {
  const takes = declared.size > 0 ? `it takes ${[...declared].join(', ')}` : 'it takes none';
  const names = undeclared.join(', ');
  const plural = undeclared.length > 1 ? 's' : '';
  return new DomainError(
    ErrorCode.VALIDATION_FAILED,
    `Unknown query parameter${plural} ${names}: this operation does not declare ${undeclared.length > 1 ? 'them' : 'it'} (${takes}).`,
    {
      details: undeclared.map((name) => ({
        field: name,
        issue: `${name} is not a query parameter of this operation (${takes})`,
      })),
    },
  );
}
