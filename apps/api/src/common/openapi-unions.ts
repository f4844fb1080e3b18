import type { Type } from '@nestjs/common';
import { ApiExtraModels, getSchemaPath, type OpenAPIObject, refs, type SchemaObject } from '@nestjs/swagger';

/** A component that is one of several models, told apart by the value of one of their properties. */
export interface UnionSchema {
  /** The component's name (`components.schemas.<name>`). */
  name: string;
  description: string;
  /** The property whose value says which member an instance is. */
  discriminator: string;
  /** Each value of that property and the model it stands for (whose property is that single value). */
  members: Readonly<Record<string, Type<unknown>>>;
}

const unions = new Map<string, SchemaObject>();

/** `oneOf` the members, with a `discriminator` mapping each value to its member. */
function unionSchema(union: UnionSchema): SchemaObject {
  const members = Object.values(union.members);
  return {
    description: union.description,
    oneOf: refs(...members),
    discriminator: {
      propertyName: union.discriminator,
      mapping: Object.fromEntries(
        Object.entries(union.members).map(([value, model]) => [value, getSchemaPath(model)]),
      ),
    },
  };
}

/**
 * Documents a discriminated union as a component of its own. @nestjs/swagger builds a component from a
 * class's properties, so a union has no class to come from: this decorator (on the controller that
 * names the union, in place of `@ApiExtraModels`) registers the members as extra models and records the
 * union, which `addUnionSchemas` adds to the document under its name.
 */
export function ApiUnionSchema(union: UnionSchema): ClassDecorator {
  const schema = unionSchema(union);
  const known = unions.get(union.name);
  if (known && JSON.stringify(known) !== JSON.stringify(schema)) {
    throw new Error(`Two unions are named ${union.name}`);
  }
  unions.set(union.name, schema);
  return ApiExtraModels(...Object.values(union.members));
}

/**
 * Adds every recorded union to the document's components. A union whose name a class took, or one of
 * whose members is no component, is a mistake of the code: it fails here, at boot, not in a client.
 */
export function addUnionSchemas(document: OpenAPIObject): void {
  const schemas = (document.components ??= {}).schemas ?? {};
  for (const [name, schema] of unions) {
    if (schemas[name]) throw new Error(`${name}: a class of that name is a schema too`);
    const missing = (schema.oneOf ?? [])
      .map((member) => ('$ref' in member ? member.$ref.split('/').pop()! : ''))
      .filter((member) => !schemas[member]);
    if (missing.length > 0) throw new Error(`${name}: ${missing.join(', ')} not in the document`);
    schemas[name] = schema;
  }
  document.components.schemas = schemas;
}
