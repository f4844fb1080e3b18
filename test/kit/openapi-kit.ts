import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';

// A CommonJS module whose `module.exports` is the plugin and also carries it as `default`.
const addFormats = ajvFormats.default;

/**
 * Our own OpenAPI document (`/docs-json`) as tests read it: its operations, a check of an answer
 * against what the document declares for that operation (status, content type, body schema), and a
 * check of any value against a component by name.
 */

export type Schema = Record<string, unknown>;

export interface DocumentedParameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema?: Schema;
}

interface DocumentedResponse {
  description?: string;
  content?: Record<string, { schema?: Schema }>;
}

export interface DocumentedOperation {
  parameters?: DocumentedParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses: Record<string, DocumentedResponse>;
  security?: Record<string, string[]>[];
  /** The audit log's action for the operation's success (`@Audited`), if it records one. */
  'x-audit-action'?: string;
  /** Set on an operation the merchant SDK does not call, saying which client does (`@ApiExtension`). */
  'x-sdk'?: string;
  /** `ignored` on an operation that drops a query parameter it does not declare (`IgnoresUndeclaredQuery`). */
  'x-undeclared-query-parameters'?: string;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, DocumentedOperation>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, Schema> };
}

/** One operation of the document: `key` is how tests name it, `GET /v1/users/{userId}`. */
export interface Operation {
  key: string;
  method: string;
  path: string;
  /** Query parameters by name. */
  query: string[];
  /** Path parameters by name, in the order they appear in the path. */
  pathParams: string[];
  /** Header parameters by name (Idempotency-Key, Last-Event-ID, …). */
  headers: string[];
  hasBody: boolean;
  /** The bearer schemes any of which the route takes; empty for a public route. */
  security: string[];
  operation: DocumentedOperation;
}

export async function readOpenApiDocument(apiUrl: string): Promise<OpenApiDocument> {
  const response = await fetch(`${apiUrl}/docs-json`);
  if (response.status !== 200) throw new Error(`/docs-json: ${response.status}`);
  return (await response.json()) as OpenApiDocument;
}

export function documentedOperations(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const parameters = operation.parameters ?? [];
      const named = (where: DocumentedParameter['in']) =>
        parameters.filter((p) => p.in === where).map((p) => p.name);
      return {
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        query: named('query'),
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
        headers: named('header'),
        hasBody: operation.requestBody !== undefined,
        security: (operation.security ?? []).flatMap((s) => Object.keys(s)),
        operation,
      };
    }),
  );
}

export const COMPONENTS = '#/components/schemas/';
const DOCUMENT_ID = 'openapi';
/** Annotations of OpenAPI 3.0 that JSON Schema does not know; they constrain nothing. */
const ANNOTATIONS = new Set(['example', 'xml', 'externalDocs', 'discriminator']);

/**
 * An OpenAPI 3.0 schema as JSON Schema: `nullable: true` adds null to `type`, references point into the
 * document's components (held by Ajv under `openapi#/$defs/…`), annotations are dropped. Everything that
 * constrains (required, types, formats, enums, additionalProperties where declared) is kept as it is.
 * `closed`: an object whose properties the document lists and whose other members it leaves unsaid
 * holds no other member (`additionalProperties: false`), so an undocumented member is a mismatch too.
 */
export function jsonSchemaOf(schema: unknown, closed = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => jsonSchemaOf(s, closed));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (ANNOTATIONS.has(key) || key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENTS)) {
      out.$ref = `${DOCUMENT_ID}#/$defs/${value.slice(COMPONENTS.length)}`;
    } else if (key === 'properties' && value && typeof value === 'object') {
      // Property names are not keywords: `example` may well be a field of ours.
      out.properties = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, jsonSchemaOf(v, closed)]),
      );
    } else {
      out[key] = jsonSchemaOf(value, closed);
    }
  }
  if (closed && out.properties && !('additionalProperties' in out)) out.additionalProperties = false;
  // OpenAPI 3.0.3, as strict readers take it: `nullable` adds null to the type `type` names in the same
  // schema and does nothing else; the schema's other keywords (an `allOf` of a reference, an `enum`
  // without null) still apply to a null, and refuse it.
  if ((schema as Schema).nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/** Ajv holding the document's components, as JSON Schema (closed or not), for references into them. */
function documentAjv(document: OpenApiDocument, closed: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
  addFormats(ajv);
  const defs = Object.fromEntries(
    Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => [
      name,
      jsonSchemaOf(schema, closed),
    ]),
  );
  ajv.addSchema({ $id: DOCUMENT_ID, $defs: defs });
  return ajv;
}

/** Ajv's errors as lines: where in `value`, what is wrong, and the value found there. */
function errorLines(what: string, validate: ValidateFunction, value: unknown): string[] {
  return (validate.errors ?? []).map(
    (e) =>
      `${what}${e.instancePath || ''} ${e.message ?? 'is invalid'}${
        e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''
      }; at ${preview(valueAt(value, e.instancePath))}`,
  );
}

/**
 * Checks values against the document's components by name (`MerchantEventOutput`, …): for what the api
 * sends other than as an answer (webhook bodies, stream messages). `closed` (the default): no member the
 * document does not declare.
 */
export class ComponentChecker {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(
    private readonly document: OpenApiDocument,
    options: { closed?: boolean } = {},
  ) {
    this.ajv = documentAjv(document, options.closed ?? true);
  }

  /** What is wrong with `value` as a `component`, one line each; empty when it is one. */
  problems(component: string, value: unknown, what = component): string[] {
    if (!this.document.components?.schemas?.[component]) return [`${component}: no such component`];
    let validate = this.compiled.get(component);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#/$defs/${component}` });
      this.compiled.set(component, validate);
    }
    return validate(value) ? [] : errorLines(what, validate, value);
  }
}

/** What came back for one request, as the checker needs it. */
export interface Answer {
  status: number;
  contentType: string;
  /** Parsed JSON, or the text, or undefined when there was none (or it was a stream). */
  body: unknown;
}

/**
 * Checks answers against the document. A status must be declared for the operation itself: `default`
 * ("any error, in the error envelope") covers nothing here, since every status a route means to answer
 * is one its decorators declare, and an undeclared one (a 500 above all) is the break to find.
 */
export class AnswerChecker {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly operations: Map<string, Operation>;

  constructor(document: OpenApiDocument) {
    this.ajv = documentAjv(document, false);
    this.operations = new Map(documentedOperations(document).map((o) => [o.key, o]));
  }

  /** What is wrong with `answer` to `operationKey`, one line each; empty when it matches the document. */
  problems(operationKey: string, answer: Answer): string[] {
    const operation = this.operations.get(operationKey);
    if (!operation) return [`${operationKey}: not an operation of the document`];
    const where = `${operationKey} → ${answer.status}`;
    const declared = operation.operation.responses[String(answer.status)];
    if (!declared) {
      const listed = Object.keys(operation.operation.responses).join(', ');
      return [`${where}: status not declared (declared: ${listed}); body ${preview(answer.body)}`];
    }
    const content = declared.content ?? {};
    if (Object.keys(content).length === 0) return [];
    const mediaType = Object.keys(content).find((type) => answer.contentType.startsWith(type));
    if (!mediaType) {
      return [`${where}: content type '${answer.contentType}', declared ${Object.keys(content).join(', ')}`];
    }
    const schema = content[mediaType].schema;
    if (!schema || !mediaType.includes('json')) return [];
    const cacheKey = `${operationKey} ${answer.status} ${mediaType}`;
    let validate = this.compiled.get(cacheKey);
    if (!validate) {
      validate = this.ajv.compile(jsonSchemaOf(schema) as Schema);
      this.compiled.set(cacheKey, validate);
    }
    if (validate(answer.body)) return [];
    return errorLines(`${where}: body`, validate, answer.body);
  }
}

function valueAt(body: unknown, pointer: string): unknown {
  let node = body;
  for (const part of pointer.split('/').slice(1)) {
    node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
