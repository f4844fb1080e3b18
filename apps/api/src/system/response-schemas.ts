import type { FastifyInstance } from 'fastify';

type Schema = Record<string, unknown>;
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, OpenApiResponse> }>>;
  components?: { schemas?: Record<string, Schema> };
}

interface OpenApiResponse {
  content?: Record<string, { schema?: Schema }>;
}

const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * An OpenAPI response schema as a serialisation schema: references inlined, nothing required, and what
 * fast-json-stringify would have to guess at (oneOf/anyOf, untyped values) left to JSON.stringify. An
 * object the document declares property by property is written with exactly those (that is where the
 * speed comes from); one it leaves open, or declares no properties of, keeps every field. So the
 * document must declare everything our views hold.
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
 * Every route's JSON success answers, keyed as Fastify names a route: `GET /v1/users/:userId` → its
 * schemas by status. Routes that answer text, a stream or no body have none.
 */
export function responseSchemas(document: OpenApiDocument): Map<string, Record<string, Schema>> {
  const components = document.components?.schemas ?? {};
  const routes = new Map<string, Record<string, Schema>>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const byStatus: Record<string, Schema> = {};
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const schema = response.content?.['application/json']?.schema;
        if (/^2\d\d$/.test(status) && schema) byStatus[status] = serialisationSchema(schema, components);
      }
      if (Object.keys(byStatus).length > 0) routes.set(`${method.toUpperCase()} ${routeUrl(path)}`, byStatus);
    }
  }
  return routes;
}

/**
 * Every route's success bodies are written by fast-json-stringify from the schema the OpenAPI document
 * declares for them, so what is served is what is documented (and what the SDK types). Called before the
 * app initialises, so the hook sees every route as Nest registers it. The test kit holds each body to
 * the one JSON.stringify would write (`checkResponseSchemas`): a field the document forgot fails there,
 * not silently here.
 */
export function registerResponseSchemas(fastify: FastifyInstance, document: OpenApiDocument): void {
  const schemas = responseSchemas(document);
  fastify.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    const response = schemas.get(`${methods.includes('GET') ? 'GET' : methods[0]} ${route.url}`);
    if (!response) return;
    route.schema = { ...route.schema, response };
  });
}
