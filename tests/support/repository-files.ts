import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every file below `dir` whose name `kind` matches, node_modules left out. */
export function filesUnder(dir: string, kind: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path, kind);
    return kind.test(entry.name) ? [path] : [];
  });
}

/** README.md and every Markdown file under docs/: the pages a reader of the repository reads. */
export const markdownFiles = (): string[] => ['README.md', ...filesUnder('docs', /\.md$/)];
