import type Joi from 'joi';
import type { JobsOptions } from 'bullmq';

/**
 * Everything producer and consumer must agree on for one queue. Queue names are persisted in
 * Redis (jobs in flight survive deploys): never rename one.
 */
export interface QueueContract<Payload, Result> {
  readonly name: string;
  readonly schema: Joi.ObjectSchema<Payload>;
  readonly jobOptions: JobsOptions;
  /** Length the queue's event stream is trimmed to (BullMQ's default is 10,000). */
  readonly eventsMaxLen?: number;
  /** Phantom field carrying the result type; never set at run time. */
  readonly __result?: Result;
}

export function defineQueue<Payload, Result>(contract: Omit<QueueContract<Payload, Result>, '__result'>): QueueContract<Payload, Result> {
  return contract;
}

export class InvalidPayloadError extends Error {
  constructor(queue: string, detail: string) {
    super(`invalid ${queue} job payload: ${detail}`);
    this.name = 'InvalidPayloadError';
  }
}

/** Validates a payload at the worker boundary (jobs from an older deploy may still be queued). */
export function parsePayload<P, R>(contract: QueueContract<P, R>, data: unknown): P {
  const { value, error } = contract.schema.validate(data, { abortEarly: false, stripUnknown: true });
  if (error) throw new InvalidPayloadError(contract.name, error.message);
  return value as P;
}
