// `@open-banking-bff/merchant-sdk/connect`: reserved for the `<bff-connect>` web component, which will
// live in this folder. Nothing is exported yet.
export {};
