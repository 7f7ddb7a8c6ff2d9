import { fetchRobotsFile, hostOf, RobotsRules, type HostThrottle, type RobotsFile } from '@gleaner/site-crawl';
import { FetchError, type TransferOptions } from '@gleaner/safe-fetch';
import type { CrawlState } from '@gleaner/store';

const ALLOW_ALL: RobotsFile = { kind: 'allow-all', note: 'robots.txt is not consulted for a batch' };

/**
 * What a crawl knows of each host it visits: the robots.txt of each origin (fetched once per
 * crawl, kept in its state so that later slices and a worker taking over read it from there) and
 * the adaptive delay its throttle learnt (saved at the end of each slice).
 */
export class SiteHosts {
  private readonly robots = new Map<string, Promise<RobotsRules>>();

  private constructor(
    private readonly crawlId: string,
    private readonly crawls: CrawlState,
    private readonly saved: Record<string, string>,
    private readonly fetchOptions: TransferOptions,
    readonly throttle: HostThrottle,
    private readonly ttlSeconds: number,
    private readonly obeyRobots: boolean,
  ) {}

  /** Hosts as the crawl's earlier slices left them; `makeThrottle` gets the delays they learnt. */
  static async load(
    crawlId: string,
    crawls: CrawlState,
    fetchOptions: TransferOptions,
    makeThrottle: (learnt: Record<string, number>) => HostThrottle,
    ttlSeconds: number,
    obeyRobots: boolean,
  ): Promise<SiteHosts> {
    const saved = await crawls.hosts(crawlId);
    const learnt = Object.fromEntries(Object.entries(saved).filter(([f]) => f.startsWith('delay:')).map(([f, v]) => [f.slice(6), Number(v)]));
    return new SiteHosts(crawlId, crawls, saved, fetchOptions, makeThrottle(learnt), ttlSeconds, obeyRobots);
  }

  /** The rules of `origin`'s robots.txt; its Crawl-delay set on the throttle. */
  rules(origin: string): Promise<RobotsRules> {
    let rules = this.robots.get(origin);
    if (!rules) {
      rules = this.loadRules(origin);
      this.robots.set(origin, rules);
    }
    return rules;
  }

  private async loadRules(origin: string): Promise<RobotsRules> {
    let file: RobotsFile;
    if (!this.obeyRobots) {
      file = ALLOW_ALL;
    } else if (this.saved[`robots:${origin}`]) {
      file = JSON.parse(this.saved[`robots:${origin}`]) as RobotsFile;
    } else {
      try {
        file = await fetchRobotsFile(origin, this.fetchOptions);
      } catch (err) {
        // A host whose address is refused: its pages fail with E003 when fetched, which says so.
        if (!(err instanceof FetchError)) throw err;
        file = { kind: 'allow-all', note: err.message };
      }
      await this.crawls.saveHosts(this.crawlId, { [`robots:${origin}`]: JSON.stringify(file) }, this.ttlSeconds);
    }
    const rules = new RobotsRules(origin, file);
    this.throttle.setCrawlDelay(hostOf(origin), rules.crawlDelayMs);
    return rules;
  }

  /** Saves the delays learnt in this slice for the next. */
  async save(): Promise<void> {
    const delays = Object.fromEntries(Object.entries(this.throttle.delays()).map(([host, ms]) => [`delay:${host}`, String(Math.round(ms))]));
    await this.crawls.saveHosts(this.crawlId, delays, this.ttlSeconds);
  }
}
