// Files the server reads at run time, found from the project root whether the server runs from its
// TypeScript sources (server/) or from the build (dist/server/).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'openapi.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('openapi.yaml not found above the server');
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = projectRoot();
export const SPEC_PATH = join(PROJECT_ROOT, 'openapi.yaml');
export const DOCS_PATH = join(PROJECT_ROOT, 'generated', 'docs.html');
/** openapi.yaml already parsed, written by `npm run generate` beside the docs; used only while its hash matches. */
export const PARSED_SPEC_PATH = join(PROJECT_ROOT, 'generated', 'openapi.json');
/** The merchant console's build (`console/`, built by `npm ci`), served at /console. */
export const CONSOLE_DIST_PATH = join(PROJECT_ROOT, 'console', 'dist');
