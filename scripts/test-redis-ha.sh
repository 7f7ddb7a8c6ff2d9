#!/bin/sh
# `pnpm test:redis-ha` (by hand; not part of `pnpm test`): the test files that use the suite's
# Redis, run twice more: against a Redis Cluster (3 masters, 3 replicas) and against a Sentinel
# group (a master, a replica, 3 sentinels), both started by jest's globalSetup
# (GLEANER_TEST_REDIS_MODE, tests/support/redis-ha.mjs). Extra arguments go to jest.
# Left out: files that start Redis servers of their own or check the suite's own Redis (outage,
# chaos, failover, the start commands', the test setup's), and the chart's (no Redis).
cd "$(dirname "$0")/.." || exit 1
files=$(grep -lE "support/(redis|env|gateway|test-stores|scripted-processors)\.js" packages/*/test/*.test.ts services/*/test/*.test.ts tests/*.test.ts 2>/dev/null \
  | grep -vE "tests/(chaos|redis-outage|redis-failover|start-redis|cli-start|e2e-start|test-setup|helm-chart)\.test\.ts")
status=0
for mode in cluster sentinel; do
  echo "== Redis $mode: $(echo "$files" | wc -l) test files"
  GLEANER_TEST_REDIS_MODE=$mode NODE_OPTIONS='--experimental-vm-modules --no-warnings=ExperimentalWarning' npx jest $files "$@" || status=1
done
exit $status
