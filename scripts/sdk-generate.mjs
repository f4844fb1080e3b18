#!/usr/bin/env node
// `npm run sdk:generate`: reads the api's OpenAPI document (scripts/served-openapi.mjs) and writes the
// merchant SDK's types, libs/merchant-sdk/src/generated/openapi.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { renderSdkTypes } from './sdk-types.mjs';
import { ROOT, servedOpenApiDocument } from './served-openapi.mjs';

const file = join(ROOT, 'libs', 'merchant-sdk', 'src', 'generated', 'openapi.ts');
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, await renderSdkTypes(await servedOpenApiDocument('sdk')));
console.log(`wrote ${file}`);
