/** Routes under /v1 that merchants do not call, each with why. */
export declare const NOT_MERCHANT_PATHS: Record<string, string>;
/** Schemas the SDK names although no merchant route refers to them. */
export declare const SDK_SCHEMAS: string[];
export declare function isMerchantPath(path: string): boolean;
/** The document with the merchant's paths and the schemas they reach. */
export declare function merchantDocument<T extends { paths: Record<string, unknown> }>(document: T): T;
/** The text of libs/merchant-sdk/src/generated/openapi.ts for the api's whole document. */
export declare function renderSdkTypes(document: object): Promise<string>;
/** The routes the console's operator screens call: /admin, and the console's sign-in. */
export declare function isOperatorPath(path: string): boolean;
/** The text of apps/api/console/generated/operator-api.d.ts for the api's whole document. */
export declare function renderOperatorTypes(document: object): Promise<string>;
