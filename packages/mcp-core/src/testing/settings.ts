import { readFileSync } from 'node:fs';
import { environmentProblems } from '../upstream/settings.js';
import { environmentOf, type SettingRow } from '../upstream/settings-table.js';

/**
 * Where a provider package's README and `server.json` (when it has one) disagree with its settings
 * table: a variable the README does not name, one `server.json` lists differently or not at all.
 * Empty when they agree. `packageDir` is the package's folder, e.g. `new URL('..', import.meta.url)`
 * from a test in its `src/`.
 */
export function documentedSettingsProblems(packageDir: URL, table: readonly SettingRow[]): string[] {
  const read = (name: string) => {
    try {
      return readFileSync(new URL(name, packageDir), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };
  const readme = read('README.md');
  const serverJson = read('server.json');
  return [
    ...(readme === undefined ? ['the package has no README.md'] : []),
    ...environmentProblems(environmentOf(table), {
      ...(readme === undefined ? {} : { readme }),
      ...(serverJson === undefined ? {} : { serverJson: JSON.parse(serverJson) }),
    }),
  ];
}
