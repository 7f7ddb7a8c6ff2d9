/**
 * CPU time of this process (all its threads) in ms. Complexity checks in unit tests time with it:
 * unlike wall-clock time, it is not stretched when other processes load the machine.
 */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
