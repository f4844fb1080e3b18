export * from './account-placement.js';
export * from './account-placement.repository.js';
export * from './account-sync-state.repository.js';
export * from './account-sync-stats.repository.js';
export * from './account.repository.js';
export * from './accounts.module.js';
export * from './accounts.service.js';
export * from './money.js';
