export * from './auth.decorator.js';
export * from './default-deny.guard.js';
export * from '#libs/errors';
export * from './error-mapping.js';
export * from './http-app.js';
export * from './http-error.filter.js';
export * from './validation.pipe.js';
