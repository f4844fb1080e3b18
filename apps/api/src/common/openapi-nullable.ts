import type { OpenAPIObject } from '@nestjs/swagger';

type Schema = Record<string, unknown>;

/** The schema of null alone, as OpenAPI 3.0 can say it: a type made nullable, its only value null. */
export const NULL_ONLY: Schema = Object.freeze({ type: 'object', nullable: true, enum: [null] });

/** `NULL_ONLY` as found in a document (a copy, not the frozen object). */
export const isNullOnly = (schema: unknown): boolean =>
  typeof schema === 'object' &&
  schema !== null &&
  (schema as Schema).nullable === true &&
  Array.isArray((schema as Schema).enum) &&
  ((schema as Schema).enum as unknown[]).length === 1 &&
  ((schema as Schema).enum as unknown[])[0] === null;

/**
 * A nullable property whose type is another component (`@ApiProperty({ type: Model, nullable: true })`)
 * comes out of @nestjs/swagger as `{ nullable, type: object, allOf: [$ref] }`. OpenAPI 3.0.3 gives
 * `nullable` no power over the `allOf`, so a strict reader refuses the null the api sends. Rewritten as
 * "the component, or null": `anyOf: [$ref, NULL_ONLY]`, which every 3.0 reader takes, and which the
 * merchant SDK types as `Model | null`.
 */
export function strictNullableReferences(document: OpenAPIObject): void {
  for (const schema of Object.values(document.components?.schemas ?? {}) as Schema[]) {
    const properties = schema.properties as Record<string, Schema> | undefined;
    for (const [name, property] of Object.entries(properties ?? {})) {
      const allOf = property.allOf as Schema[] | undefined;
      if (property.nullable !== true || allOf?.length !== 1) continue;
      const { nullable: _n, type: _t, allOf: _a, ...rest } = property;
      properties![name] = { ...rest, anyOf: [allOf[0], { ...NULL_ONLY, enum: [null] }] };
    }
  }
}
