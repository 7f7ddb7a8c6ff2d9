import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkKey, ObjectMissingError, type DocumentStore, type StoredObject } from './document-store.js';

/** Unfinished writes carry this suffix until they are renamed into place. */
const PART_SUFFIX = '.part';

/**
 * Objects as files under one folder: for every process on one machine (`pnpm start`, or services
 * started separately from one checkout). A write goes to `<key>.<random>.part` and is renamed to
 * `<key>` once complete, so a reader never sees half a file; a failed write removes its part.
 */
export class LocalFolderStore implements DocumentStore {
  readonly kind = 'local';

  constructor(readonly folder: string) {}

  async put(key: string, body: Readable): Promise<{ bytes: number }> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const part = `${target}.${randomBytes(6).toString('hex')}${PART_SUFFIX}`;
    let bytes = 0;
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    try {
      await pipeline(body, createWriteStream(part, { mode: 0o600 }));
      await rename(part, target);
    } catch (err) {
      await rm(part, { force: true });
      throw err;
    }
    return { bytes };
  }

  async read(key: string): Promise<Buffer> {
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ObjectMissingError(key);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    // A prefix names a folder here (`uploads/`): keys are paths.
    const folder = path.join(this.folder, prefix);
    let names: string[];
    try {
      names = await readdir(folder, { recursive: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const name of names) {
      const info = await stat(path.join(folder, name)).catch(() => null);
      if (!info?.isFile()) continue;
      yield { key: path.posix.join(prefix, name.split(path.sep).join('/')), size: info.size, lastModified: info.mtime };
    }
  }

  async close(): Promise<void> {}

  private pathOf(key: string): string {
    return path.join(this.folder, checkKey(key));
  }
}
