export * from './public-routes.js';
