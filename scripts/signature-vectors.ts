// `npm run signature-vectors`: writes plugin-kit/signature-vectors.json from the service's own signer.
import { writeFileSync } from 'node:fs';
import { signatureVectorsText } from './sdk/signature-vectors.js';

writeFileSync(new URL('../plugin-kit/signature-vectors.json', import.meta.url), signatureVectorsText());
console.log('[signature-vectors] wrote plugin-kit/signature-vectors.json');
