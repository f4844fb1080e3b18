import { type ArgumentMetadata, type ValidationError, ValidationPipe } from '@nestjs/common';
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

/** Distinct query strings remembered per input class: the hot reads' few shapes, and a bound on memory. */
const QUERY_MEMO_SIZE = 500;

const REMEMBERED = new WeakSet<object>();

/**
 * Marks a query input class (and its subclasses) whose valid queries the validation pipe may remember:
 * one with nothing secret in it. A one-time token, a signed state or a link must not stay in memory, so
 * the callback inputs are never marked.
 */
export function RememberedQuery(): ClassDecorator {
  return (target) => {
    REMEMBERED.add(target);
  };
}

function isRemembered(type: unknown): boolean {
  for (let t = type; typeof t === 'function'; t = Object.getPrototypeOf(t) as unknown) {
    if (REMEMBERED.has(t)) return true;
  }
  return false;
}

/**
 * Every input of every route: unknown fields refused, types transformed, failures in the error envelope.
 * A query that passed once is not checked again: class-validator's work depends only on the input class
 * and the query's fields (never on the request, nor the clock), so for a class marked `@RememberedQuery()`
 * its result is remembered per query (at most QUERY_MEMO_SIZE, oldest dropped) and each request gets its
 * own copy. It was a fifth of a hot read's CPU (commit 2f24a1c). A refused query is not remembered:
 * it runs every time, as do bodies (large and various).
 */
export class InputValidationPipe extends ValidationPipe {
  private readonly queries = new Map<unknown, Map<string, object>>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && this.toValidate(metadata)) return this.body(value, metadata);
    const type = metadata.metatype;
    // The whole query into an input class (`@Query() input: SomeInput`), not one named field of it.
    const whole = metadata.type === 'query' && metadata.data === undefined && isRemembered(type);
    if (!whole || typeof value !== 'object' || value === null || Array.isArray(value)) {
      return super.transform(value, metadata);
    }
    let memo = this.queries.get(type!);
    if (!memo) this.queries.set(type, (memo = new Map<string, object>()));
    const key = JSON.stringify(value);
    const known = memo.get(key);
    if (known) return copyOf(known);
    const parsed = (await super.transform(value, metadata)) as object;
    if (memo.size >= QUERY_MEMO_SIZE) memo.delete(memo.keys().next().value as string);
    memo.set(key, parsed);
    return copyOf(parsed);
  }

  /**
   * A body of an input class, which the document declares required and an object: Nest's pipe would read
   * a `null` (or absent) body as `{}`, and `@IsOptional()` lets a `null` field through as if omitted.
   * Neither is what the document says, so both are refused here, for every route: an optional field may
   * be `null` only where its class declares it `nullable` (the document's own word). A required field's
   * `null` is left to its own checks. (`Omittable()` fields never meet it at the top level any more.)
   */
  private async body(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw invalidRequest([{ field: 'body', issue: 'must be a JSON object' }]);
    }
    // The body's own fields first, against its class: their other checks would otherwise speak first.
    const declaredBy = (metadata.metatype as { prototype?: object } | undefined)?.prototype;
    const own = nullFields(value, '', declaredBy);
    if (own.length > 0) throw invalidRequest(own);
    const input: unknown = await super.transform(value, metadata);
    // Then nested inputs, which exist as classes only once transformed.
    const nested = nullFields(input, '');
    if (nested.length > 0) throw invalidRequest(nested);
    return input;
  }
}

/** Where @nestjs/swagger keeps a property's `@ApiProperty` options (its DECORATORS.API_MODEL_PROPERTIES). */
const API_MODEL_PROPERTIES = 'swagger/apiModelProperties';

/**
 * The optional fields of a transformed input that are `null` without being declared nullable, nested
 * inputs included (free-form objects, which no class declares, are the handler's to read).
 */
function nullFields(input: unknown, parent: string, declaredBy?: object): ErrorDetail[] {
  if (typeof input !== 'object' || input === null) return [];
  if (Array.isArray(input)) return input.flatMap((item, i) => nullFields(item, `${parent}[${i}]`));
  const prototype = declaredBy ?? (Object.getPrototypeOf(input) as object | null);
  if (prototype === Object.prototype || prototype === null) return [];
  return Object.entries(input).flatMap(([name, field]) => {
    const path = parent ? `${parent}.${name}` : name;
    if (field !== null) return declaredBy ? [] : nullFields(field, path);
    const declared = Reflect.getMetadata(API_MODEL_PROPERTIES, prototype, name) as
      { nullable?: boolean; required?: boolean } | undefined;
    // A required field's own checks say what it must be; only an optional one is "omitted" instead.
    if (declared?.required !== false || declared.nullable) return [];
    return [{ field: path, issue: `${path} must be omitted rather than null` }];
  });
}

/** A copy a handler may change without touching the remembered one (query fields are flat). */
function copyOf(input: object): object {
  const copy = Object.create(Object.getPrototypeOf(input) as object | null) as Record<string, unknown>;
  for (const [name, field] of Object.entries(input) as [string, unknown][]) {
    copy[name] = Array.isArray(field)
      ? [...(field as unknown[])]
      : field instanceof Date
        ? new Date(field)
        : field;
  }
  return copy;
}

export function createValidationPipe(): ValidationPipe {
  return new InputValidationPipe({
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
