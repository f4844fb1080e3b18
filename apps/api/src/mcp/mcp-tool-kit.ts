import { applyDecorators, type Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import type { TenantCaller } from '#libs/context';
import { createValidationPipe } from '#libs/http';

/**
 * One of our ids as a tool's argument, where the route has it in its path: any string a path segment
 * could be, judged by `checkedId`, so a malformed one answers the route's 404, not a validation error.
 */
export const ToolId = (description: string, { optional = false } = {}) =>
  applyDecorators(
    (optional ? ApiPropertyOptional : ApiProperty)({ description, minLength: 1, maxLength: 100 }),
    ...(optional ? [IsOptional()] : []),
    IsString(),
    MinLength(1),
    MaxLength(100),
  );

/**
 * One read-only tool: its input class and the REST route's read it answers with, for one caller. The
 * input class is the route's own query input (extended with the ids of its path): its arguments are
 * validated and transformed by the api's validation pipe, so a bad one is refused with the route's code,
 * message and details, and `read` takes them typed.
 */
export interface Tool<I extends object = object> {
  name: string;
  description: string;
  input: Type<I>;
  /** The REST route whose documented answer is the tool's output schema, as `GET /v1/syncs/{syncId}`. */
  route: string;
  read(caller: TenantCaller, args: I): Promise<object>;
}

/** A tool, its `read` typed by its input class. */
export const tool = <I extends object>(definition: Tool<I>): Tool<I> => definition;

const pipe = createValidationPipe();

/** A call's arguments as the tool's input class, checked as its route checks a query, or the route's 400. */
export function argumentsOf<I extends object>(tool: Tool<I>, args: Record<string, unknown>): Promise<I> {
  return pipe.transform(args, { type: 'query', metatype: tool.input }) as Promise<I>;
}

/** Where @nestjs/swagger keeps an input class's properties and each one's `@ApiProperty` options. */
const PROPERTIES = 'swagger/apiModelPropertiesArray';
const PROPERTY = 'swagger/apiModelProperties';

interface PropertyOptions {
  type?: unknown;
  required?: boolean;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
}

const JSON_TYPES = new Map<unknown, string>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
]);

/**
 * What tools/list declares of a tool's input (draft-07): its input class's properties, from the same
 * `@ApiProperty` metadata the OpenAPI document describes the route's query with; unknown arguments are
 * refused, as the pipe refuses unknown query fields.
 */
export function inputSchemaOf(input: Type<unknown>): Record<string, unknown> {
  const prototype = input.prototype as object;
  const names = ((Reflect.getMetadata(PROPERTIES, prototype) as string[] | undefined) ?? []).map((key) =>
    key.replace(/^:/, ''),
  );
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const name of names) {
    const {
      type,
      required: isRequired,
      ...rest
    } = Reflect.getMetadata(PROPERTY, prototype, name) as PropertyOptions;
    const jsonType = typeof type === 'string' ? type : JSON_TYPES.get(type);
    if (!jsonType) throw new Error(`${input.name}.${name}: no JSON type for a tool's argument`);
    const { description, minimum, maximum, minLength, maxLength, pattern, format, enum: values } = rest;
    properties[name] = Object.fromEntries(
      Object.entries({
        type: jsonType,
        description,
        default: rest.default,
        minimum,
        maximum,
        minLength,
        maxLength,
        pattern,
        format,
        enum: values,
      }).filter(([, value]) => value !== undefined),
    );
    if (isRequired !== false) required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}
