type Schema = Record<string, unknown>;

const COMPONENTS = '#/components/schemas/';
/** OpenAPI 3.0's own annotations, which JSON Schema does not know (`example` becomes `examples`). */
const OPENAPI_ONLY = new Set(['discriminator', 'xml', 'externalDocs', 'nullable', 'example']);
/** More references deep than any of our components go: a component that refers back to itself. */
const MAX_DEPTH = 32;

/** The dialect of every schema `selfContainedJsonSchema` answers. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * One component of an OpenAPI 3.0 document as a self-contained JSON Schema (2020-12): every `$ref` into
 * the components replaced by the component it names, `nullable: true` turned into `null` among the
 * types, `example` into `examples`, and the annotations JSON Schema has no word for dropped. What
 * constrains (types, formats, enums, required, additionalProperties where declared) is kept as it is,
 * so the schema accepts exactly what the document's component does, without the document beside it.
 */
export function selfContainedJsonSchema(components: Record<string, unknown>, name: string): Schema {
  const component = components[name];
  if (!component) throw new Error(`${name}: no such component`);
  return { $schema: JSON_SCHEMA_DIALECT, ...inlinedSchema(components, component) };
}

/**
 * Any schema of the document (a response's, say) the same way, without `$schema`: for a reader that
 * names the dialect itself, or takes the draft-07 subset this conversion stays within.
 */
export function inlinedSchema(components: Record<string, unknown>, schema: unknown): Schema {
  return convert(schema, components, 0) as Schema;
}

function convert(schema: unknown, components: Record<string, unknown>, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new Error('a component refers to itself: it cannot be inlined');
  if (Array.isArray(schema)) return schema.map((s) => convert(s, components, depth));
  if (schema === null || typeof schema !== 'object') return schema;
  const source = schema as Schema;
  if (typeof source.$ref === 'string' && source.$ref.startsWith(COMPONENTS)) {
    const { $ref, ...siblings } = source;
    const target = components[$ref.slice(COMPONENTS.length)];
    if (!target) throw new Error(`${$ref}: no such component`);
    return {
      ...(convert(target, components, depth + 1) as Schema),
      ...(convert(siblings, components, depth) as Schema),
    };
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'example') out.examples = [value];
    else if (OPENAPI_ONLY.has(key)) continue;
    else if (key === 'properties' && value && typeof value === 'object') {
      // Property names are not keywords: a field may well be called `example`.
      out.properties = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, convert(v, components, depth)]),
      );
    } else out[key] = convert(value, components, depth);
  }
  // As OpenAPI 3.0.3 has it: `nullable` adds null to the type named beside it and does nothing else.
  if (source.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}
