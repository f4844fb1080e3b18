import { applyDecorators, type ValidationError, ValidationPipe } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsDefined, IsOptional, ValidateNested } from 'class-validator';
import { SandboxError, type UpstreamIssue } from './sandbox-error.js';

/** One issue per failed constraint, named by its dotted path (`payer.accountIdentifications.0.type`). */
export function flattenIssues(
  errors: ValidationError[],
  parent = '',
): (UpstreamIssue & { parameter: string })[] {
  return errors.flatMap((e) => {
    const parameter = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({
      type: 'INVALID_REQUEST',
      code: 'INVALID_PROPERTY_UNEXPECTED_VALUE',
      parameter,
      message,
    }));
    return [...own, ...flattenIssues(e.children ?? [], parameter)];
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
    exceptionFactory: (errors) => new SandboxError(400, 'The request is invalid', flattenIssues(errors)),
  });
}

/*
 * A nested DTO property. The decorators apply in the order a stacked `@IsDefined() @ValidateNested()
 * @Type(...)` would (bottom up), so the issues and their order stay the same as the spelled-out form.
 */
export function RequiredNested(type: () => new () => object): PropertyDecorator {
  return applyDecorators(Type(type), ValidateNested(), IsDefined());
}

export function OptionalNested(type: () => new () => object): PropertyDecorator {
  return applyDecorators(Type(type), ValidateNested(), IsOptional());
}
