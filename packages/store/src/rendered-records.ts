/**
 * Status bodies already rendered, by request id, each valid only while the record it came from is
 * byte for byte what Redis holds: a status endpoint polled again and again (what clients do) sends
 * the stored JSON without parsing the record and serialising the body again. Bounded by entries
 * and bytes, least recently used out first; large records are never kept.
 */
export class RenderedRecords {
  private readonly entries = new Map<string, { raw: string; accountId: string; json: string }>();
  private bytes = 0;

  constructor(
    private readonly maxBytes = 32 * 1024 * 1024,
    private readonly maxRecordBytes = 256 * 1024,
  ) {}

  /** The body rendered from exactly `raw`, with the record's account, or undefined. */
  get(id: string, raw: string): { accountId: string; json: string } | undefined {
    const entry = this.entries.get(id);
    if (!entry || entry.raw !== raw) return undefined;
    this.entries.delete(id); // re-inserted: most recently used last
    this.entries.set(id, entry);
    return entry;
  }

  set(id: string, raw: string, accountId: string, json: string): void {
    this.forget(id);
    const size = 2 * (raw.length + json.length); // UTF-16 in memory
    if (raw.length > this.maxRecordBytes || size > this.maxBytes) return;
    this.entries.set(id, { raw, accountId, json });
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= 2 * (entry.raw.length + entry.json.length);
    }
  }

  private forget(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.bytes -= 2 * (entry.raw.length + entry.json.length);
  }
}
