export * from './uuid.js';
