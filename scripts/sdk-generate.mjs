#!/usr/bin/env node
// `npm run sdk:generate`: reads the api's OpenAPI document (scripts/served-openapi.mjs) and writes the
// merchant SDK's types, libs/merchant-sdk/src/generated/openapi.ts, and the console's operator routes,
// apps/api/console/generated/operator-api.d.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { renderOperatorTypes, renderSdkTypes } from './sdk-types.mjs';
import { ROOT, servedOpenApiDocument } from './served-openapi.mjs';

const document = await servedOpenApiDocument('sdk');
const files = [
  [join(ROOT, 'libs', 'merchant-sdk', 'src', 'generated', 'openapi.ts'), renderSdkTypes],
  [join(ROOT, 'apps', 'api', 'console', 'generated', 'operator-api.d.ts'), renderOperatorTypes],
];
for (const [file, render] of files) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, await render(document));
  console.log(`wrote ${file}`);
}
