import { setup } from './suite-redis.mjs';

export default setup;
