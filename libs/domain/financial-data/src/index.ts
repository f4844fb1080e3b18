export * from './consent-access.service.js';
export * from './financial-data.module.js';
export * from './financial-data.repository.js';
export * from './financial-data.service.js';
export * from './paging-cursor.signer.js';
export * from './money.js';
export * from './served-transaction.js';
