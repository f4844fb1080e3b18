import type { FastifyInstance } from 'fastify';

/**
 * The routes every page view calls: their 200 bodies are written by fast-json-stringify. Not
 * `/transactions/live`: its records carry every field the upstream gives (see `servedTransaction`), and
 * are joined as text with their envelope.
 */
export const HOT_ROUTES = [
  'GET /v1/users',
  'GET /v1/users/{userId}',
  'GET /v1/users/{userId}/accounts',
  'GET /v1/accounts/{accountId}',
] as const;

type Schema = Record<string, unknown>;
interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>
  >;
  components?: { schemas?: Record<string, Schema> };
}

const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * An OpenAPI response schema as a serialisation schema: references inlined, nothing required, and what
 * fast-json-stringify would have to guess at (oneOf/anyOf, untyped values) left to JSON.stringify. An
 * object the document declares property by property is written with exactly those (that is where the
 * speed comes from); one it leaves open, or declares no properties of, keeps every field. So the
 * document must declare everything our views hold: a test holds each hot route's body to the one
 * JSON.stringify writes, field for field.
 */
export function serialisationSchema(schema: Schema, components: Record<string, Schema>, depth = 0): Schema {
  if (depth > 32) return {};
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const target = components[ref.replace('#/components/schemas/', '')];
    return target ? serialisationSchema({ ...target, nullable: schema.nullable }, components, depth + 1) : {};
  }
  const allOf = schema.allOf as Schema[] | undefined;
  if (allOf?.length === 1) {
    return serialisationSchema({ ...allOf[0], nullable: schema.nullable }, components, depth + 1);
  }
  if (allOf || schema.oneOf || schema.anyOf) return {};
  const nullable = schema.nullable === true ? { nullable: true } : {};
  if (schema.type === 'array') {
    const items = schema.items as Schema | undefined;
    return {
      type: 'array',
      items: items ? serialisationSchema(items, components, depth + 1) : {},
      ...nullable,
    };
  }
  if (schema.type === 'object') {
    const properties = schema.properties as Record<string, Schema> | undefined;
    return {
      type: 'object',
      additionalProperties: !properties || schema.additionalProperties !== undefined,
      ...(properties
        ? {
            properties: Object.fromEntries(
              Object.entries(properties).map(([k, v]) => [k, serialisationSchema(v, components, depth + 1)]),
            ),
          }
        : {}),
      ...nullable,
    };
  }
  if (typeof schema.type === 'string' && SCALARS.has(schema.type)) return { type: schema.type, ...nullable };
  return {};
}

/** Fastify's route url for an OpenAPI path: `/v1/users/{userId}` → `/v1/users/:userId`. */
const routeUrl = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

/**
 * Attaches the hot routes' 200 schemas as Fastify response schemas. Called before the app initialises,
 * so the hook sees every route as Nest registers it.
 */
export function registerResponseSchemas(fastify: FastifyInstance, document: OpenApiDocument): void {
  const components = document.components?.schemas ?? {};
  const schemas = new Map<string, Schema>();
  for (const route of HOT_ROUTES) {
    const [method, path] = route.split(' ');
    const schema =
      document.paths[path]?.[method.toLowerCase()]?.responses?.['200']?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`OpenAPI document has no 200 JSON schema for ${route}`);
    schemas.set(`${method} ${routeUrl(path)}`, serialisationSchema(schema, components));
  }
  fastify.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    const schema = schemas.get(`${methods.includes('GET') ? 'GET' : methods[0]} ${route.url}`);
    if (!schema) return;
    route.schema = { ...route.schema, response: { 200: schema } };
  });
}
