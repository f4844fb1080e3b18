import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { selfContainedJsonSchema } from '../openapi-json-schema.js';

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
    if (!this.document) throw new Error('The OpenAPI document is not built yet');
    let schema = this.schemas.get(component);
    if (!schema) {
      schema = selfContainedJsonSchema(this.document.components?.schemas ?? {}, component);
      this.schemas.set(component, schema);
    }
    return schema;
  }
}
