import SwaggerParser from '@apidevtools/swagger-parser';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Stack, useStack } from './kit/index.js';

type Class = abstract new (...args: never[]) => unknown;

const PROPERTIES = 'swagger/apiModelPropertiesArray';
const PROPERTY = 'swagger/apiModelProperties';
const RESPONSES = 'swagger/apiResponse';

/** A class, or the class a lazy `type: () => X` or `type: [X]` names; anything else (String, 'object') is not a model. */
function modelsIn(type: unknown, lazy = false): Class[] {
  if (Array.isArray(type)) return type.flatMap((t) => modelsIn(t, lazy));
  if (typeof type !== 'function') return [];
  if (!type.prototype) return lazy ? modelsIn((type as () => unknown)()) : [];
  return [String, Number, Boolean, Date, Object, Array].includes(type as never) ? [] : [type as Class];
}

/**
 * Every model class the document is built from, by name: those the routes' responses and parameters name,
 * and every class their properties reach. Swagger keys schemas by class name, so two classes with one
 * name silently become one schema and one route documents the other's shape.
 */
function modelClassesByName(api: Stack['api']): Map<string, Set<Class>> {
  const byName = new Map<string, Set<Class>>();
  const seen = new Set<Class>();
  const visit = (cls: Class) => {
    if (seen.has(cls)) return;
    seen.add(cls);
    const names = (Reflect.getMetadata(PROPERTIES, cls.prototype as object) as string[] | undefined) ?? [];
    if (names.length === 0) return;
    byName.set(cls.name, (byName.get(cls.name) ?? new Set()).add(cls));
    for (const name of names) {
      const meta = Reflect.getMetadata(PROPERTY, cls.prototype as object, name.replace(/^:/, '')) as
        { type?: unknown; items?: { type?: unknown } } | undefined;
      for (const model of [...modelsIn(meta?.type, true), ...modelsIn(meta?.items?.type, true)]) visit(model);
    }
  };
  const scanner = api.app.get(MetadataScanner);
  for (const wrapper of api.app.get(DiscoveryService).getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance) continue;
    const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
    for (const method of scanner.getAllMethodNames(prototype)) {
      const responses = (Reflect.getMetadata(RESPONSES, prototype[method] as object) ?? {}) as Record<
        string,
        { type?: unknown }
      >;
      for (const response of Object.values(responses)) modelsIn(response.type).forEach(visit);
      const params = (Reflect.getMetadata('design:paramtypes', prototype, method) ?? []) as unknown[];
      for (const param of params) modelsIn(param).forEach(visit);
    }
  }
  return byName;
}

describe('api: the OpenAPI document is valid OpenAPI 3', () => {
  const stack = useStack();
  let api: Stack['api'];
  let document: Record<string, any>;

  beforeAll(async () => {
    api = stack.api;
    document = (await stack.anonymous.get<Record<string, any>>('/docs-json')).body;
  });

  it('passes @apidevtools/swagger-parser validation (schema and references)', async () => {
    expect(document.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it('has no Swagger 2 `schema` beside `content` in any response', () => {
    const offenders = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(
      ([path, operations]) =>
        Object.entries(operations).flatMap(([method, operation]) =>
          Object.entries((operation.responses ?? {}) as Record<string, object>)
            .filter(([, response]) => 'schema' in response)
            .map(([status]) => `${method.toUpperCase()} ${path} ${status}`),
        ),
    );
    expect(offenders).toEqual([]);
  });

  it('defines no schema name twice: each name is one class', () => {
    const byName = modelClassesByName(api);
    expect(byName.size).toBeGreaterThan(20);
    const twice = [...byName].filter(([, classes]) => classes.size > 1).map(([name]) => name);
    expect(twice).toEqual([]);
  });

  it('names every operation with a clean, unique id: generated clients’ method names', () => {
    const ids = Object.values(document.paths as Record<string, Record<string, any>>).flatMap((operations) =>
      Object.values(operations).map((operation) => operation.operationId as string),
    );
    expect(ids.length).toBeGreaterThan(90);
    // `Controller_method` is Swagger's default: a route apps/api/src/system/operation-ids.ts does not name.
    expect(ids.filter((id) => !/^[a-z][A-Za-z]*$/.test(id))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('types every object of every success answer: none is a bare `{ type: object }`', () => {
    const components = document.components.schemas as Record<string, any>;
    const untyped: string[] = [];
    const walk = (schema: any, where: string, seen: Set<string>): void => {
      if (!schema || typeof schema !== 'object') return;
      if (Array.isArray(schema)) return schema.forEach((s) => walk(s, where, seen));
      if (typeof schema.$ref === 'string') {
        const name = schema.$ref.split('/').pop() as string;
        if (!seen.has(name)) walk(components[name], `${where}>${name}`, new Set(seen).add(name));
        return;
      }
      const composed = schema.oneOf ?? schema.anyOf ?? schema.allOf;
      const nullOnly = schema.enum?.length === 1 && schema.enum[0] === null;
      if (schema.type === 'object' && !schema.properties && !('additionalProperties' in schema))
        if (!composed && !nullOnly) untyped.push(where);
      for (const [key, value] of Object.entries(schema)) {
        if (key !== 'properties') walk(value, where, seen);
        else for (const [name, p] of Object.entries(value as object)) walk(p, `${where}.${name}`, seen);
      }
    };
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>))
      for (const [method, operation] of Object.entries(operations))
        for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, any>))
          if (status.startsWith('2'))
            walk(response.content?.['application/json']?.schema, `${method} ${path} ${status}`, new Set());
    expect(untyped).toEqual([]);
  });

  it('claims no JWT bearer format: none of our tokens is a JWT', () => {
    const schemes = Object.values(document.components.securitySchemes as Record<string, any>);
    expect(schemes.length).toBe(3);
    for (const scheme of schemes) {
      expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(scheme.bearerFormat).toBeUndefined();
    }
  });
});
