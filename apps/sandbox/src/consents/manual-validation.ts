import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { SandboxError, type UpstreamIssue } from '../core/index.js';

type Constructor<T> = new () => T;

function flatten(errors: ValidationError[], parent = ''): { parameter: string; constraints: string[] }[] {
  return errors.flatMap((e) => {
    const parameter = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {});
    return [
      ...(own.length ? [{ parameter, constraints: own }] : []),
      ...flatten(e.children ?? [], parameter),
    ];
  });
}

/**
 * Validates a value the global pipe cannot see as a DTO (a JSON-patch array, a query with upstream-specific
 * error shapes). `fieldValidation` answers in the `{ errors: [{ fieldName, error }] }` shape the
 * Application Management endpoints document; `standard` mirrors the global pipe's issues.
 */
export function validateAs<T extends object>(
  cls: Constructor<T>,
  plain: unknown,
  options: { prefix?: string; shape?: 'standard' | 'fieldValidation' } = {},
): T {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    throw SandboxError.badRequest(`${options.prefix ?? 'The request body'} must be a JSON object`);
  }
  const instance = plainToInstance(cls, plain);
  const errors = validateSync(instance, {
    whitelist: true,
    validationError: { target: false, value: false },
  });
  if (errors.length === 0) return instance;
  const problems = flatten(errors, options.prefix ?? '');
  if (options.shape === 'fieldValidation') {
    throw new SandboxError(400, 'There are validation errors', [], {
      shape: 'fieldValidation',
      fieldErrors: problems.map((p) => ({
        fieldName: p.parameter,
        error: p.constraints.some((c) => /should not be (empty|null or undefined)|must be defined/.test(c))
          ? 'MANDATORY'
          : 'INVALID_FORMAT',
      })),
    });
  }
  const issues: UpstreamIssue[] = problems.flatMap((p) =>
    p.constraints.map((message) => ({
      type: 'INVALID_REQUEST',
      code: 'INVALID_PROPERTY_UNEXPECTED_VALUE',
      parameter: p.parameter,
      message,
    })),
  );
  throw new SandboxError(400, 'The request is invalid', issues);
}

/** Query values that may come repeated (`?a=1&a=2`) or comma-separated (`?a=1,2`), as one list. */
export function listParam(value: unknown): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const values = Array.isArray(value) ? value : [value];
  return values
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}
