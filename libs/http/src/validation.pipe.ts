import { type ValidationError, ValidationPipe } from '@nestjs/common';
import { type ErrorDetail, invalidRequest } from '#libs/errors';

/**
 * One issue per field, and the most telling one: "must be an integer" says it for `limit=abc`, where
 * "must not be greater than 100" (also true of NaN) would mislead. Type checks (`is…`) come first.
 */
function firstIssue(constraints: Record<string, string>): string | undefined {
  const entries = Object.entries(constraints);
  return (entries.find(([name]) => name.startsWith('is')) ?? entries[0])?.[1];
}

function flatten(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const issue = e.constraints ? firstIssue(e.constraints) : undefined;
    return [...(issue ? [{ field, issue }] : []), ...flatten(e.children ?? [], field)];
  });
}

/** Every input of every route: unknown fields refused, types transformed, failures in the error envelope. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    // Every check runs, and flatten() keeps the most telling issue of each field.
    stopAtFirstError: false,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => invalidRequest(flatten(errors)),
  });
}
