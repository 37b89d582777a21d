import { z } from 'zod';
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';

// Once, here: every schema module imports z from this file so `.openapi()` exists everywhere.
extendZodWithOpenApi(z);
export { z };
