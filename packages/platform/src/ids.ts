import { v7 as uuidv7, validate, version } from 'uuid';

/** Request ids are UUIDv7: time-ordered, so the creation time can be read back from the id. */
export function newRequestId(): string {
  return uuidv7();
}

export function isRequestId(value: string): boolean {
  return validate(value) && version(value) === 7;
}

/** Creation time (ms since epoch) encoded in a UUIDv7, or null for anything else. */
export function requestIdTime(id: string): number | null {
  if (!isRequestId(id)) return null;
  return parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}
