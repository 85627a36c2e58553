import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file only its owner may read (login tokens, credentials), atomically: a temp file
 * beside it created with mode 0600 and fsynced, then renamed over the target. A reader never
 * sees half a file and a crash leaves the old one. A missing directory is created with mode 0700.
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const directory = dirname(path);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const temp = join(directory, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    // The mode given to open() is reduced by the umask; make it exact.
    if (process.platform !== 'win32') await chmod(temp, 0o600);
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}
