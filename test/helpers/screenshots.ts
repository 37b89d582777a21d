import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where browser tests keep screenshots: docs/screenshots/ when UPDATE_SCREENSHOTS=1 (to refresh the
 * README's pictures on purpose), else .data/screenshots/, so a test run never dirties tracked files.
 */
export function screenshotPath(name: string): string {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? '../../docs/screenshots/' : '../../.data/screenshots/';
  const folder = fileURLToPath(new URL(dir, import.meta.url));
  mkdirSync(folder, { recursive: true });
  return `${folder}${name}`;
}
