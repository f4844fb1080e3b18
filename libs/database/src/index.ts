export * from './database-health.repository.js';
export * from './database.module.js';
export * from './database.pool.js';
export * from './migrator.js';
export * from './prisma.service.js';
export * from './read-cache.js';
export * from './transaction-conflict.js';
export { Prisma } from './generated/client.js';
export type * from './generated/client.js';
