import { homedir } from 'node:os';
import { join, win32 } from 'node:path';
import { SETTINGS } from './environment.js';

/** The app's data file and its companions, as the desktop app names them. */
export const PROJECTS_FILE = 'projects.json';

export interface DataDirEnvironment {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
}

/**
 * The directory the desktop app keeps `projects.json` in: `CONTEXT_FORGE_DATA_DIR`, else the
 * per-OS config directory of the app `context-forge` (the rules of the `env-paths` package the
 * app uses, with an empty suffix).
 */
export function resolveDataDir({
  env = process.env,
  platform = process.platform,
  home = homedir(),
}: DataDirEnvironment = {}): string {
  const configured = env[SETTINGS.dataDir.env];
  if (configured) return configured;
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', 'context-forge');
  if (platform === 'win32') {
    return win32.join(env.APPDATA || win32.join(home, 'AppData', 'Roaming'), 'context-forge', 'Config');
  }
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'context-forge');
}

/**
 * Where older versions of the app (Electron `userData`) kept the file on macOS; the app copies it
 * to the new location once. Other platforms have no legacy location.
 */
export function legacyDataDir({
  platform = process.platform,
  home = homedir(),
}: DataDirEnvironment = {}): string | undefined {
  if (platform !== 'darwin') return undefined;
  return join(home, 'Library', 'Application Support', 'context-forge', 'context-forge');
}

/** Files inside a project (`projectPath`) that context generation reads. */
export const PROMPT_FILE_RELATIVE_PATH =
  'project-documents/ai-project-guide/project-guides/prompt.ai-project.system.md';
export const STATEMENTS_FILE_RELATIVE_PATH = 'default-statements.md';
