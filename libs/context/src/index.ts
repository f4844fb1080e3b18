export * from './caller.js';
export * from './request-context.js';
export * from './tenant-scope.js';
