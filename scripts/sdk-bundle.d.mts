/** scripts/sdk-bundle.mjs, for the tests that import it. */
export function sdkBundleFile(root?: string): { file: string; name: string };
export function integrityOf(bytes: Buffer | Uint8Array): string;
export function bundleSdk(): Promise<{ file: string; integrity: string }>;
