import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where processes on one machine keep the secret they share when GLEANER_SECRET is not set. */
export const DEFAULT_SECRET_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../.gleaner/secret');

/**
 * The master secret for a machine without GLEANER_SECRET: read from `file`, or generated once
 * (32 random bytes, hex) and kept there, readable by the owner only. Every process started from
 * this checkout (`pnpm start`, each service alone, the command line) finds the same file, so LLM
 * keys stored by one can be opened by the others and after restarts. The file is created through
 * a hard link of a complete temporary file, so two processes starting at once never read a half
 * written secret: the loser of the race reads the winner's.
 */
export function localSecret(file = DEFAULT_SECRET_FILE): { secret: string; created: boolean } {
  try {
    return { secret: readSecret(file), created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temporary, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  try {
    linkSync(temporary, file);
    return { secret: readSecret(file), created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { secret: readSecret(file), created: false };
  } finally {
    rmSync(temporary, { force: true });
  }
}

function readSecret(file: string): string {
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 16) throw new Error(`${file} holds no usable secret (at least 16 characters); delete it or set GLEANER_SECRET`);
  return secret;
}
