/** Calls of the crawl, batch and map endpoints as a client makes them, for the crawl tests. */
export interface CrawlAnswer {
  request_id: string;
  status: 'processing' | 'completed' | 'cancelled' | 'failed';
  counts: { discovered: number; queued: number; processing: number; completed: number; failed: number; skipped: number; skipped_by: Record<string, number> };
  pages: CrawlPage[];
  next: string | null;
  reason?: string;
  error?: string;
}

export interface CrawlPage {
  url: string;
  status: 'completed' | 'failed' | 'skipped';
  depth?: number;
  content?: { text: string; markdown?: string; meta: Record<string, unknown>; links: Array<{ url: string; type: string }> };
  error?: string;
  reason?: string;
}

export class CrawlApi {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': this.apiKey, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  async start(kind: 'crawl' | 'batch', body: Record<string, unknown>): Promise<string> {
    const answer = await this.call('POST', `/web-scrapper/${kind}`, body);
    if (answer.status !== 202) throw new Error(`${kind} refused: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.request_id as string;
  }

  status(kind: 'crawl' | 'batch', id: string, cursor?: string): Promise<CrawlAnswer> {
    return this.call('GET', `/web-scrapper/${kind}/${id}${cursor ? `?cursor=${cursor}` : ''}`).then((a) => {
      if (a.status !== 200) throw new Error(`status ${a.status}: ${JSON.stringify(a.body)}`);
      return a.body as CrawlAnswer;
    });
  }

  /** Polls until the crawl ends (or `timeoutMs` passes), then reads every listed result through the cursor. */
  async finish(kind: 'crawl' | 'batch', id: string, timeoutMs = 60_000): Promise<{ final: CrawlAnswer; pages: CrawlPage[]; reads: number }> {
    const deadline = Date.now() + timeoutMs;
    let answer = await this.status(kind, id);
    while (answer.status === 'processing' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      answer = await this.status(kind, id);
    }
    const pages: CrawlPage[] = [];
    let cursor: string | null = '0';
    let reads = 0;
    let last = answer;
    while (cursor !== null && reads < 1_000) {
      last = await this.status(kind, id, cursor);
      reads++;
      pages.push(...last.pages);
      if (last.status === 'processing' && last.pages.length === 0) break;
      cursor = last.next;
    }
    return { final: last, pages, reads };
  }
}
