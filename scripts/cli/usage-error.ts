/**
 * Bad input or a setup problem, told in one line with exit code 1. Recognised by its name, not
 * its class: the lazily loaded command modules are bundles of their own, each with its own copy.
 */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A flag's value, or a UsageError naming the flag when it is missing or given without a value. */
export function requiredFlag(flags: Record<string, string>, name: string): string {
  const v = flags[name];
  if (!v || v === 'true') throw new UsageError(`--${name} is required`);
  return v;
}
