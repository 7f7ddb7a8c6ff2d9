/**
 * `tags`: labels a caller puts on a scrape or parse request, echoed in its status record and its
 * webhook deliveries, so an account-level receiver (the n8n trigger) can tell whose request ended.
 */
export const MAX_TAGS = 10;
const TAG = /^[A-Za-z0-9_.:@\/-]{1,100}$/;

/** The tags, or a problem saying what is wrong; a form sends them as one comma-separated field. */
export function readTags(value: unknown): { tags?: string[] } | { problem: string } {
  if (value === undefined || value === null || value === '') return {};
  const list = typeof value === 'string' ? value.split(',').map((t) => t.trim()).filter(Boolean) : value;
  if (!Array.isArray(list) || list.some((t) => typeof t !== 'string' || !TAG.test(t))) {
    return { problem: `'tags' must be a list of at most ${MAX_TAGS} labels of 1-100 letters, digits and _ . : @ / -` };
  }
  if (list.length > MAX_TAGS) return { problem: `'tags' holds at most ${MAX_TAGS} labels` };
  return list.length ? { tags: [...new Set(list as string[])] } : {};
}
