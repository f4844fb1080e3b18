import type { FastifyInstance } from 'fastify';
import { isNullOnly } from '../common/openapi-nullable.js';

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
 * speed comes from); one it leaves open (an upstream record passed on, `@ApiOpenSchema`), or declares no
 * properties of, keeps every field, and so does every object inside it. So the document must declare
 * everything our views hold. Every value may be null whatever the document says: the serialiser would
 * otherwise write a null as `""`, `0` or `{}`, changing the data rather than refusing it.
 */
export function serialisationSchema(
  schema: Schema,
  components: Record<string, Schema>,
  depth = 0,
  insideOpen = false,
): Schema {
  if (depth > 32) return {};
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const target = components[ref.replace('#/components/schemas/', '')];
    return target ? serialisationSchema(target, components, depth + 1, insideOpen) : {};
  }
  const allOf = schema.allOf as Schema[] | undefined;
  if (allOf?.length === 1) return serialisationSchema(allOf[0], components, depth + 1, insideOpen);
  // "A component, or null" (openapi-nullable.ts): every value here may be null anyway.
  const anyOf = schema.anyOf as Schema[] | undefined;
  if (anyOf?.length === 2 && isNullOnly(anyOf[1]))
    return serialisationSchema(anyOf[0], components, depth + 1, insideOpen);
  if (allOf || schema.oneOf || anyOf) return {};
  if (schema.type === 'array') {
    const items = schema.items as Schema | undefined;
    return {
      type: 'array',
      items: items ? serialisationSchema(items, components, depth + 1, insideOpen) : {},
      nullable: true,
    };
  }
  if (schema.type === 'object') {
    const properties = schema.properties as Record<string, Schema> | undefined;
    const extra = schema.additionalProperties;
    const open = insideOpen || !properties || extra === true || (typeof extra === 'object' && extra !== null);
    return {
      type: 'object',
      additionalProperties: open,
      ...(properties
        ? {
            properties: Object.fromEntries(
              Object.entries(properties).map(([k, v]) => [
                k,
                serialisationSchema(v, components, depth + 1, open),
              ]),
            ),
          }
        : {}),
      nullable: true,
    };
  }
  if (typeof schema.type === 'string' && SCALARS.has(schema.type))
    return { type: schema.type, nullable: true };
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
  const unmatched = new Set(schemas.keys());
  fastify.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    const key = `${methods.includes('GET') ? 'GET' : methods[0]} ${route.url}`;
    const response = schemas.get(key);
    if (!response) return;
    unmatched.delete(key);
    route.schema = { ...route.schema, response };
  });
  // A documented route Fastify knows by another name would be served without its schema, silently.
  fastify.addHook('onReady', (done) => {
    done(
      unmatched.size > 0 ? new Error(`Documented routes not found: ${[...unmatched].join(', ')}`) : undefined,
    );
  });
}
