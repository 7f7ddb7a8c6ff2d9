/** Unix epoch seconds: every timestamp in the API and in records uses it. */
export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}
