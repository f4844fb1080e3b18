// Types of user-present.mjs for the TypeScript tests.
export declare const USER_PRESENT: Readonly<{ 'psu-ip-address': string }>;
