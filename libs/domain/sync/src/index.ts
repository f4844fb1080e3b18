export * from './account-sync.service.js';
export * from './sync-dispatcher.service.js';
export * from './sync.errors.js';
export * from './sync.module.js';
export * from './sync.service.js';
export * from './transaction-records.js';
export * from './transaction.repository.js';
