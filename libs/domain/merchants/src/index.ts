export * from './merchant.repository.js';
