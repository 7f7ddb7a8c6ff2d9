import { teardown } from './suite-redis.mjs';

export default teardown;
