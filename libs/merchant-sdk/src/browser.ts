// The SDK for a page without a bundler: the client and `<bff-connect>` in one module, which the BFF's api
// serves at /sdk/merchant-sdk@<version>.js (docs/sdk.md, "A plain page"). Not a package entry: a
// bundler takes the package's own entries, and with them only what a page uses.
export * from './connect/index.js';
export * from './index.js';
