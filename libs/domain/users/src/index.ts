export * from './user.repository.js';
export * from './users.module.js';
export * from './users.service.js';
export * from './session-token.js';
