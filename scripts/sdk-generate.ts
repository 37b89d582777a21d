// `npm run sdk:generate`: writes sdk/openapi.json and sdk/src/schema.d.ts from the app's own OpenAPI document.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildLiveDocument, renderSdkFiles } from './sdk/document.js';

const sdkDir = fileURLToPath(new URL('../sdk/', import.meta.url));
const files = await renderSdkFiles(await buildLiveDocument());
writeFileSync(`${sdkDir}openapi.json`, files.openapiJson);
writeFileSync(`${sdkDir}src/schema.d.ts`, files.schemaTs);
console.log('[sdk:generate] wrote sdk/openapi.json and sdk/src/schema.d.ts');
