import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { DomainError, ErrorCode, type ErrorDetail } from '#libs/errors';

function flatten(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((issue) => ({ field, issue }));
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

/** Every input of every route: unknown fields refused, types transformed, failures in the error envelope. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    // One issue per field: "must be an integer" says it; "must not be less than 1" on top only adds noise.
    stopAtFirstError: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) =>
      new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', { details: flatten(errors) }),
  });
}
