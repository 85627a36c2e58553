export {
  type BrowserPage,
  OAuthBrowser,
  type OAuthBrowserOptions,
  TestOAuthClient,
} from './oauth-browser.js';
export {
  findRedisServer,
  REDIS_MISSING,
  type RedisServer,
  redisRequirement,
  type StartRedisServerOptions,
  startRedisServer,
} from './redis-server.js';
