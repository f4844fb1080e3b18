import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '#libs/errors';
import { createValidationPipe } from '#libs/http';
import { assertProperty } from '#libs/testing';
import { CreateUserInput } from './create-user.input.js';
import { UpdateUserInput } from './update-user.input.js';

const pipe = createValidationPipe();

/** Whether the api's validation takes `reference` in a body of `input`. */
async function accepted(input: typeof CreateUserInput | typeof UpdateUserInput, reference: string) {
  try {
    await pipe.transform({ reference }, { type: 'body', metatype: input });
    return true;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return false;
  }
}

/** What the document says of the property (@nestjs/swagger's metadata, which /docs-json is built from). */
function documented(input: object, name: string) {
  return Reflect.getMetadata('swagger/apiModelProperties', input, name) as {
    pattern: string;
    minLength: number;
    maxLength: number;
    required?: boolean;
    description?: string;
  };
}

describe('a user reference: one rule, checked and documented', () => {
  it('is taken exactly when the documented pattern and lengths hold, on create and on change', async () => {
    const references = fc.oneof(
      fc.string({ maxLength: 210 }),
      fc.string({
        unit: fc.integer({ min: 0x20, max: 0x7f }).map((c) => String.fromCharCode(c)),
        maxLength: 205,
      }),
      fc.constantFrom('', ' ', 'customer-42', 'a'.repeat(200), 'a'.repeat(201), 'é', 'a b'),
    );
    for (const input of [CreateUserInput, UpdateUserInput]) {
      const doc = documented(input.prototype, 'reference');
      const pattern = new RegExp(doc.pattern);
      await assertProperty(
        fc.asyncProperty(references, async (reference) => {
          const says =
            pattern.test(reference) && reference.length >= doc.minLength && reference.length <= doc.maxLength;
          expect(await accepted(input, reference), JSON.stringify(reference)).toBe(says);
        }),
        500,
      );
    }
  });

  it('keeps each route’s own description and whether it is required', () => {
    // Undefined: @nestjs/swagger's default, required.
    expect(documented(CreateUserInput.prototype, 'reference').required).not.toBe(false);
    expect(documented(UpdateUserInput.prototype, 'reference').required).toBe(false);
    expect(documented(CreateUserInput.prototype, 'reference').description).toContain('unique per merchant');
  });
});
