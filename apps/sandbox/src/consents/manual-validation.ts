import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { flattenIssues, SandboxError } from '../core/index.js';

type Constructor<T> = new () => T;

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
  const issues = flattenIssues(errors, options.prefix ?? '');
  if (options.shape === 'fieldValidation') {
    const messagesByField = new Map<string, string[]>();
    for (const { parameter, message } of issues) {
      messagesByField.set(parameter, [...(messagesByField.get(parameter) ?? []), message]);
    }
    throw new SandboxError(400, 'There are validation errors', [], {
      shape: 'fieldValidation',
      fieldErrors: [...messagesByField].map(([fieldName, messages]) => ({
        fieldName,
        error: messages.some((m) => /should not be (empty|null or undefined)|must be defined/.test(m))
          ? 'MANDATORY'
          : 'INVALID_FORMAT',
      })),
    });
  }
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
