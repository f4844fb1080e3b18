// The types of /console/merchant-sdk.js, which the api serves from the SDK's bundle: the SDK's own, so
// the console's calls are checked against the SDK it runs with.
export * from '../../../libs/merchant-sdk/src/index.js';
