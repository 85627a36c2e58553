export {
  findRedisServer,
  REDIS_MISSING,
  type RedisServer,
  redisRequirement,
  type StartRedisServerOptions,
  startRedisServer,
} from './redis-server.js';
