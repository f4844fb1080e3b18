import {
  ComponentChecker,
  COMPONENTS,
  type DocumentedOperation,
  type OpenApiDocument,
  type Schema,
} from './openapi-kit.js';

/**
 * Which optional properties answers leave out. A property the document calls optional is a promise to
 * the reader that it may be absent, and a generated client makes every reader guard it; one present in
 * every answer of a walk that reaches all operations is always sent (and must be required: `null` is a
 * value, so a field sent as null is required and nullable) unless it is omitted by design in a case the
 * walk does not make, which the caller names with its reason. `observe` each success body with its
 * declared schema; `alwaysPresent` lists the optional properties seen only present, as
 * `Component.property` (`Component.property.inner` inside an object the component declares inline, and
 * `GET /v1/events 200.property` in a schema declared inline on the operation).
 */
export class OptionalPresence {
  private readonly seen = new Map<string, { present: number; absent: number }>();
  private readonly components: ComponentChecker;

  constructor(private readonly document: OpenApiDocument) {
    this.components = new ComponentChecker(document, { closed: false });
  }

  observe(schema: Schema | undefined, value: unknown, where: string, depth = 0): void {
    if (!schema || depth > 40 || value === null || value === undefined) return;
    const ref = schema.$ref;
    if (typeof ref === 'string' && ref.startsWith(COMPONENTS)) {
      const name = ref.slice(COMPONENTS.length);
      this.observe(this.document.components?.schemas?.[name], value, name, depth + 1);
      return;
    }
    for (const parts of [schema.oneOf, schema.anyOf] as (Schema[] | undefined)[]) {
      // A union's members are told apart by what they hold: only the members a value is are observed, so
      // a property of one member is not counted absent from the values of another.
      for (const part of parts ?? []) if (this.is(part, value)) this.observe(part, value, where, depth + 1);
    }
    for (const part of (schema.allOf as Schema[] | undefined) ?? [])
      this.observe(part, value, where, depth + 1);
    if (Array.isArray(value)) {
      for (const item of value)
        this.observe(schema.items as Schema | undefined, item, `${where}[]`, depth + 1);
      return;
    }
    const properties = schema.properties as Record<string, Schema> | undefined;
    if (!properties || typeof value !== 'object') return;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries(properties)) {
      const present = name in value;
      if (!required.has(name)) {
        const entry = this.seen.get(`${where}.${name}`) ?? { present: 0, absent: 0 };
        entry[present ? 'present' : 'absent'] += 1;
        this.seen.set(`${where}.${name}`, entry);
      }
      if (present)
        this.observe(property, (value as Record<string, unknown>)[name], `${where}.${name}`, depth + 1);
    }
  }

  /** Whether `value` is the union member `part`: a component it matches, or an inline schema of its type. */
  private is(part: Schema, value: unknown): boolean {
    const ref = part.$ref;
    if (typeof ref === 'string' && ref.startsWith(COMPONENTS))
      return this.components.problems(ref.slice(COMPONENTS.length), value).length === 0;
    const type = part.type === 'integer' ? 'number' : part.type;
    if (type === 'object') return typeof value === 'object' && !Array.isArray(value);
    if (type === 'array') return Array.isArray(value);
    return type === undefined || typeof value === type;
  }

  /** Optional properties seen in answers, never absent. */
  alwaysPresent(): string[] {
    return [...this.seen]
      .filter(([, s]) => s.absent === 0)
      .map(([key]) => key)
      .sort();
  }

  /** Optional properties seen absent from an answer at least once. */
  seenAbsent(): string[] {
    return [...this.seen]
      .filter(([, s]) => s.absent > 0)
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
