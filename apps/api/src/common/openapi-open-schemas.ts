import type { OpenAPIObject } from '@nestjs/swagger';

const open = new Set<string>();

/**
 * A model whose instances carry fields beyond those it names (an upstream record passed on as the bank
 * gives it): its component says `additionalProperties: true`, so the document, the SDK's types and the
 * response serialiser (which writes exactly the declared fields of a closed object) all keep them.
 * @nestjs/swagger has no class-level option for it; `markOpenSchemas` sets it on the document. The class
 * says so to the compiler too, by an index signature (`[field: string]: unknown`), which is what lets a
 * route serve such records under it (`ApiAnswer` refuses a view with fields its class does not name).
 */
export function ApiOpenSchema(): (target: abstract new () => Record<string, unknown>) => void {
  return (target) => {
    open.add(target.name);
  };
}

/** Sets `additionalProperties: true` on each component declared with `ApiOpenSchema`. */
export function markOpenSchemas(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  for (const name of open) {
    const schema = schemas[name];
    if (!schema || '$ref' in schema) throw new Error(`${name}: declared open, but not a component`);
    schema.additionalProperties = true;
  }
}
