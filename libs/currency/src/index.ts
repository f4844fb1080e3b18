export * from './currency-decimals.js';
