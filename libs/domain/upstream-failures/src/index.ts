export * from './upstream-failure.mapper.js';
