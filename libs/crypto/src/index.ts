export * from './api-key.js';
export * from './secret-box.js';
export * from './standard-webhooks.js';
export * from './signed-token.js';
