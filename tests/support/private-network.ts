import { execFileSync } from 'node:child_process';

/**
 * A command run in a network namespace of its own (util-linux `unshare`, as root or in a user
 * namespace): only its own loopback, so nothing answers on 127.0.0.1:6379 unless it starts it, and
 * nothing it starts there can reach or be reached from the machine's network. For checks of what
 * happens on a machine with no Redis (or with a Redis the tests must leave alone) on a machine
 * that has one. `ip` (iproute2) brings the namespace's loopback up.
 */
export function inPrivateNetwork(command: string, args: string[]): { command: string; args: string[] } {
  return { command: 'unshare', args: ['-rn', 'sh', '-c', 'ip link set lo up && exec "$@"', 'private-network', command, ...args] };
}

/** Why inPrivateNetwork cannot work here, or null when it can. */
export function privateNetworkProblem(): string | null {
  return wrapperProblem(inPrivateNetwork, 'in a network namespace of their own and need unshare (util-linux) with user namespaces or root, and ip (iproute2)');
}

/**
 * A command on a machine without Chromium: in a mount namespace of its own (`unshare -rm`, as
 * root or in a user namespace), /dev/null is mounted over /usr/bin/chromium, the default
 * CHROMIUM_PATH, so there is nothing there to run, while the rest of the machine stays as it is.
 */
export function withoutChromium(command: string, args: string[]): { command: string; args: string[] } {
  return { command: 'unshare', args: ['-rm', 'sh', '-c', '{ [ ! -e /usr/bin/chromium ] || mount --bind /dev/null /usr/bin/chromium; } && exec "$@"', 'without-chromium', command, ...args] };
}

/** Why withoutChromium cannot work here, or null when it can. */
export function withoutChromiumProblem(): string | null {
  return wrapperProblem((command, args) => withoutChromium('sh', ['-c', 'test ! -x /usr/bin/chromium', command, ...args]), 'in a mount namespace of their own and need unshare (util-linux) with user namespaces or root');
}

function wrapperProblem(wrap: (command: string, args: string[]) => { command: string; args: string[] }, needs: string): string | null {
  try {
    const { command, args } = wrap('true', []);
    execFileSync(command, args, { stdio: 'pipe' });
    return null;
  } catch (err) {
    return `these checks run commands ${needs}: ${String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()}`;
  }
}

/** The environment of a shell started afresh: no GLEANER_* or REDIS_URL, nothing of jest's. */
export function cleanEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const keep = ['PATH', 'HOME', 'LANG', 'TMPDIR', 'USER'];
  const env: Record<string, string> = {};
  for (const name of keep) if (process.env[name] !== undefined) env[name] = process.env[name]!;
  return { ...env, ...extra };
}
