// Types of event-enum.mjs for the TypeScript tests.

export const CATALOGUE: string;
export function catalogueNames(): Promise<string[]>;
export function withEventEnum(schema: string, names: readonly string[]): string;
export function schemaWithCatalogue(schemaPath: string): Promise<string>;
