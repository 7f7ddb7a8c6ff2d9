/**
 * Bad input or a setup problem, told in one line with exit code 1. Recognised by its name, not
 * its class: the lazily loaded command modules are bundles of their own, each with its own copy.
 */
export class UsageError extends Error {
  override name = 'UsageError';
}
