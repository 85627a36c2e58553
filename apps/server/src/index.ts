export { CATALOG, PROVIDER_IDS, PROVIDERS, type ProviderId } from './catalog.js';
export {
  type CompositionOptions,
  compose,
  composeSandbox,
  defaultPrefix,
  selectProviders,
} from './compose.js';
export { ConfigSchema, loadConfig, parseConfig, type ServerConfig } from './config.js';
