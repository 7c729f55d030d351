// The repository's TypeScript compiler run on code outside the repository's own project: generated
// clients and the client package's consumer app.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './child.js';

/** Writes a strict tsconfig.json in `dir` checking `include`; answers its path. */
export function strictProject(dir: string, include: string[]): string {
  const project = join(dir, 'tsconfig.json');
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    skipLibCheck: true,
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
  };
  writeFileSync(project, JSON.stringify({ compilerOptions, include }));
  return project;
}

/** What `tsc -p project` reports: '' when it finds nothing wrong. */
export function typeCheck(project: string): string {
  try {
    return execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], {
      cwd: dirname(project),
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (error) {
    return String((error as { stdout?: string }).stdout) || String(error);
  }
}
