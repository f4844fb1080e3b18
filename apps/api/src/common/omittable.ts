import { ValidateIf } from 'class-validator';

/**
 * Optional, but not nullable: an absent field is skipped, a `null` one is checked like any other value
 * (and refused by the field's type check). `@IsOptional()` lets `null` through to code that reads it as a
 * value, and the document declares these fields as their type, never as nullable.
 */
export const Omittable = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
