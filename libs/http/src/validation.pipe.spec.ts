import type { ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '#libs/errors';
import { assertProperty } from '#libs/testing';
import { createValidationPipe, RememberedQuery } from './validation.pipe.js';

@RememberedQuery()
class PageInput {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 20;

  @IsOptional()
  @IsString()
  @MaxLength(8)
  cursor?: string;

  @IsOptional()
  @IsIn(['date', '-date'])
  sort: string = '-date';
}

/** Inherits the mark: every list input extends one marked base. */
class UsersPageInput extends PageInput {}

class SecretInput {
  @IsOptional()
  @IsString()
  token?: string;
}

const query = (metatype: unknown): ArgumentMetadata => ({ type: 'query', metatype: metatype as never });

/** What the pipe answers: the input as a plain record and its class, or the refusal's details. */
async function outcome(pipe: ReturnType<typeof createValidationPipe>, value: object, metatype: unknown) {
  try {
    const input = (await pipe.transform({ ...value }, query(metatype))) as object;
    return { input: { ...input }, type: Object.getPrototypeOf(input) as unknown };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { refused: error.extra.details };
  }
}

const field = fc.oneof(
  fc.constantFrom('1', '20', '100', '101', '0', 'abc', '-date', 'date', 'x'),
  fc.string({ maxLength: 10 }),
);
const queries = fc.dictionary(fc.constantFrom('limit', 'cursor', 'sort', 'other'), field, { maxKeys: 4 });

describe('the validation pipe remembering valid queries', () => {
  it('answers any query as a pipe that remembers nothing would, the first time and every time after', async () => {
    const remembering = createValidationPipe();
    await assertProperty(
      fc.asyncProperty(fc.array(queries, { minLength: 1, maxLength: 6 }), async (sequence) => {
        for (const value of [...sequence, ...sequence]) {
          for (const metatype of [PageInput, UsersPageInput]) {
            const fresh = await outcome(createValidationPipe(), value, metatype);
            expect(await outcome(remembering, value, metatype)).toEqual(fresh);
          }
        }
      }),
      60,
    );
  });

  it('gives each request its own copy: a handler changing one changes no later answer', async () => {
    const pipe = createValidationPipe();
    const first = (await pipe.transform({ limit: '5' }, query(PageInput))) as PageInput;
    first.limit = 99;
    first.sort = 'changed';
    const second = (await pipe.transform({ limit: '5' }, query(PageInput))) as PageInput;
    expect(second).toBeInstanceOf(PageInput);
    expect({ ...second }).toEqual({ limit: 5, sort: '-date' });
  });

  it('keeps nothing of an input class that is not marked (a token stays out of memory)', async () => {
    const pipe = createValidationPipe();
    await pipe.transform({ token: 'one-time-secret' }, query(SecretInput));
    const remembered = (pipe as unknown as { queries: Map<unknown, Map<string, object>> }).queries;
    expect(remembered.has(SecretInput)).toBe(false);
    expect(JSON.stringify([...remembered.values()].map((m) => [...m.keys()]))).not.toContain('secret');
  });
});
