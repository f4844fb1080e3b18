export type { components, operations } from './generated/upstream-openapi.js';
export * from './upstream-operations.js';
