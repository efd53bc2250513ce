export type * from './types.js';
export * from './github/index.js';
export * from './linear/index.js';
export * from './vercel/index.js';
export { connectorFor, CONNECTION_CONFIG_KEYS, type ConnectorFactory, type ConnectorSource } from './registry.js';
export * from './sync/index.js';
export * from './import/index.js';
export {
  callProxyAction,
  cappedFetch,
  fetchByUrlThroughConnections,
  listProxyConnections,
  paramNames,
  ProxyLimitError,
  scrubResult,
  withDeadline,
  workspaceConnectors,
  type ProxyCallOutcome,
  type ProxyDeps,
  type WorkspaceConnector,
} from './proxy/index.js';
