import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { SandboxError, type UpstreamIssue } from './sandbox-error.js';

function issues(errors: ValidationError[], parent = ''): UpstreamIssue[] {
  return errors.flatMap((e) => {
    const parameter = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({
      type: 'INVALID_REQUEST',
      code: 'INVALID_PROPERTY_UNEXPECTED_VALUE',
      parameter,
      message,
    }));
    return [...own, ...issues(e.children ?? [], parameter)];
  });
}

/**
 * Validation as the upstream answers it: 400 with one INVALID_REQUEST issue per offending property.
 * Unknown properties are stripped, not refused: the real service ignores fields it does not know.
 */
export function createSandboxValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new SandboxError(400, 'The request is invalid', issues(errors)),
  });
}
