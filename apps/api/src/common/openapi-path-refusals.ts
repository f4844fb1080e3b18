import type { OpenAPIObject } from '@nestjs/swagger';
import { PATH_PARAMETER_MAX_LENGTH } from '#libs/http';

const REFUSAL = `VALIDATION_FAILED: a path parameter over ${PATH_PARAMETER_MAX_LENGTH} characters (refused by the router, before the route)`;

/**
 * Every operation with a path parameter can answer 400: the router refuses an overlong parameter before
 * any route runs, so no route's decorators could say so. Declared here, once, from the same limit.
 */
export function declarePathRefusals(document: OpenAPIObject): void {
  for (const [path, operations] of Object.entries(document.paths)) {
    if (!path.includes('{')) continue;
    for (const operation of Object.values(operations) as { responses?: Record<string, unknown> }[]) {
      if (!operation?.responses) continue;
      const declared = operation.responses['400'] as { description?: string } | undefined;
      operation.responses['400'] = declared
        ? { ...declared, description: `${declared.description ?? ''}; or ${REFUSAL}` }
        : {
            description: REFUSAL,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiErrorResponse' } } },
          };
    }
  }
}
