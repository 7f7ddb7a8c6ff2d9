import type { RedisClient as Redis } from '@gleaner/platform';
import type { DocumentStore } from '@gleaner/object-store';
import type { Logger } from '@gleaner/platform';
import type { BotJob, BotJobResult, CrawlJob, MapJob, ParseJob, QueueProducer, ScrapeJob, ScrapeV1Job } from '@gleaner/queues';
import type { RecordEndings, ReplicaAcks, Stores } from '@gleaner/store';
import type { GatewayConfig } from './config.js';

/** Everything the gateway's routes use, built once in main and injected (tests build their own). */
export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  redis: Redis;
  stores: Stores;
  /** Where uploaded documents wait for a parser worker. */
  documents: DocumentStore;
  /** What the 20 s window waits on: the request's record ending. */
  recordEndings: RecordEndings;
  /** With a Sentinel group or a Cluster: waits for a replica to hold what a submit wrote (null on one server). */
  replicaAcks: ReplicaAcks | null;
  producers: {
    scrape: QueueProducer<ScrapeJob, unknown>;
    scrapeV1: QueueProducer<ScrapeV1Job, unknown>;
    parse: QueueProducer<ParseJob, unknown>;
    bot: QueueProducer<BotJob, BotJobResult>;
    crawl: QueueProducer<CrawlJob, unknown>;
    map: QueueProducer<MapJob, unknown>;
  };
}
