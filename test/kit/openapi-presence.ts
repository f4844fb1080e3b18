import { COMPONENTS, type DocumentedOperation, type OpenApiDocument, type Schema } from './openapi-kit.js';

/**
 * Which optional properties of the document's components answers leave out. A property the document
 * calls optional is a promise to the reader that it may be absent; one present in every answer of a
 * walk that reaches all operations is either always set (and should be required, so generated types
 * need no `?`) or absent only in a case the description names ("Absent …"). `observe` each success
 * body with its declared schema; `alwaysPresent` lists `Component.property` seen only present.
 */
export class OptionalPresence {
  private readonly seen = new Map<string, { present: number; absent: number; described: boolean }>();

  constructor(private readonly document: OpenApiDocument) {}

  observe(schema: Schema | undefined, value: unknown, component?: string, depth = 0): void {
    if (!schema || depth > 40 || value === null || value === undefined) return;
    const ref = schema.$ref;
    if (typeof ref === 'string' && ref.startsWith(COMPONENTS)) {
      const name = ref.slice(COMPONENTS.length);
      this.observe(this.document.components?.schemas?.[name], value, name, depth + 1);
      return;
    }
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const parts = schema[key] as Schema[] | undefined;
      // A union's members are told apart by what they hold; only the branch a value matches is observed.
      if (parts) for (const part of parts) this.observe(part, value, component, depth + 1);
    }
    if (Array.isArray(value)) {
      for (const item of value) this.observe(schema.items as Schema | undefined, item, component, depth + 1);
      return;
    }
    const properties = schema.properties as Record<string, Schema> | undefined;
    if (!properties || typeof value !== 'object') return;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries(properties)) {
      const present = name in value;
      if (component && !required.has(name)) {
        const key = `${component}.${name}`;
        const entry = this.seen.get(key) ?? {
          present: 0,
          absent: 0,
          described: typeof property.description === 'string' && /\babsent\b/i.test(property.description),
        };
        entry[present ? 'present' : 'absent'] += 1;
        this.seen.set(key, entry);
      }
      if (present) this.observe(property, (value as Record<string, unknown>)[name], undefined, depth + 1);
    }
  }

  /** Optional properties seen in answers, never absent, whose description says nothing of when they are. */
  alwaysPresent(): string[] {
    return [...this.seen]
      .filter(([, s]) => s.absent === 0 && !s.described)
      .map(([key]) => key)
      .sort();
  }

  /** The declared success schema of `operationKey`'s `status`, JSON content, if any. */
  static schemaOf(operation: DocumentedOperation, status: number): Schema | undefined {
    const content = operation.responses[String(status)]?.content ?? {};
    const type = Object.keys(content).find((t) => t.includes('json'));
    return type ? content[type].schema : undefined;
  }
}
