import { describe, expect, it } from 'vitest';
import { JSON_SCHEMA_DIALECT, selfContainedJsonSchema } from './openapi-json-schema.js';

describe('selfContainedJsonSchema', () => {
  const components = {
    Event: {
      type: 'object',
      description: 'An event',
      required: ['id', 'data', 'owner'],
      properties: {
        id: { type: 'string', format: 'uuid', example: 'e1' },
        // A field named like an annotation is a field, not an annotation.
        example: { type: 'string', nullable: true },
        data: { $ref: '#/components/schemas/Data' },
        owner: {
          anyOf: [{ $ref: '#/components/schemas/Data' }, { type: 'object', nullable: true, enum: [null] }],
        },
      },
      discriminator: { propertyName: 'id' },
    },
    Data: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    Loop: { type: 'object', properties: { next: { $ref: '#/components/schemas/Loop' } } },
  };

  it('inlines references, makes nullable a null type, and keeps only what JSON Schema knows', () => {
    const data = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    expect(selfContainedJsonSchema(components, 'Event')).toEqual({
      $schema: JSON_SCHEMA_DIALECT,
      type: 'object',
      description: 'An event',
      required: ['id', 'data', 'owner'],
      properties: {
        id: { type: 'string', format: 'uuid', examples: ['e1'] },
        example: { type: ['string', 'null'] },
        data,
        owner: { anyOf: [data, { type: ['object', 'null'], enum: [null] }] },
      },
    });
  });

  it('refuses a component that refers to itself, and one that does not exist', () => {
    expect(() => selfContainedJsonSchema(components, 'Loop')).toThrow(/refers to itself/);
    expect(() => selfContainedJsonSchema(components, 'Nothing')).toThrow(/no such component/);
  });
});
