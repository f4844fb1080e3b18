export * from './uuid.js';
export * from './bigint-key.js';
