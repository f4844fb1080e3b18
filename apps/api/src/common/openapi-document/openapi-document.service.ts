import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { inlinedSchema, selfContainedJsonSchema } from '../openapi-json-schema.js';

/**
 * The OpenAPI document this api serves at /docs-json, for the routes that answer part of it (the event
 * types' schemas): published once it is built (openapi.ts), so those routes answer from the very
 * document the reference, the SDK and clients are generated from, never from a second description.
 */
@Injectable()
export class OpenApiDocumentService {
  private document: OpenAPIObject | null = null;
  private readonly schemas = new Map<string, Record<string, unknown>>();

  publish(document: OpenAPIObject): void {
    this.document = document;
    this.schemas.clear();
  }

  /** A component as a self-contained JSON Schema, built once. */
  jsonSchema(component: string): Record<string, unknown> {
    return this.cached(component, (document) =>
      selfContainedJsonSchema(document.components?.schemas ?? {}, component),
    );
  }

  /** The JSON body a route answers with `status` (`GET /v1/users/{userId}`), references inlined, built once. */
  responseJsonSchema(route: string, status = '200'): Record<string, unknown> {
    return this.cached(`${route} ${status}`, (document) => {
      const [method, path] = route.split(' ');
      const operation = document.paths[path]?.[method.toLowerCase() as 'get'];
      const response = operation?.responses[status] as
        { content?: Record<string, { schema?: unknown }> } | undefined;
      const schema = response?.content?.['application/json']?.schema;
      if (!schema) throw new Error(`${route} documents no JSON answer ${status}`);
      return inlinedSchema(document.components?.schemas ?? {}, schema);
    });
  }

  private cached(key: string, build: (document: OpenAPIObject) => Record<string, unknown>) {
    if (!this.document) throw new Error('The OpenAPI document is not built yet');
    let schema = this.schemas.get(key);
    if (!schema) {
      schema = build(this.document);
      this.schemas.set(key, schema);
    }
    return schema;
  }
}
