/** Provider -> connector: builds the production connector of a stored connection from its config and secrets. */
import type { ConnectionWithSecrets } from '@engram/stores';
import { createGitHubConnector } from './github/index.js';
import { createLinearConnector } from './linear/index.js';
import type { Connector, SyncObserver } from './types.js';
import { createVercelConnector } from './vercel/index.js';

/** What a connection needs to be built; a stored `ConnectionWithSecrets` satisfies it. */
export type ConnectorSource = Pick<ConnectionWithSecrets, 'provider' | 'config' | 'token'>;

export interface ConnectorOptions {
  observer?: SyncObserver;
  /** Deadline of one HTTP attempt to the provider (GitHub; default 30 s). */
  requestTimeoutMs?: number;
}

export type ConnectorFactory = (connection: ConnectorSource, options?: ConnectorOptions) => Connector;

const optional = (key: string, value: string | undefined): Record<string, string> => (value ? { [key]: value } : {});

/** Non-secret settings each provider accepts in `connection.config`. */
export const CONNECTION_CONFIG_KEYS = {
  github: ['repo', 'baseUrl'],
  linear: ['teamKey', 'apiUrl'],
  vercel: ['projectId', 'teamId', 'baseUrl'],
} as const;

/** Throws (with a message naming the setting) when a connection's config cannot make a connector. */
export const connectorFor: ConnectorFactory = (connection, options = {}) => {
  const c = connection.config;
  const observer = options.observer ? { observer: options.observer } : {};
  switch (connection.provider) {
    case 'github':
      if (!c.repo) throw new Error('a GitHub connection needs config.repo ("owner/name")');
      return createGitHubConnector({
        repo: c.repo, token: connection.token, ...optional('baseUrl', c.baseUrl), ...observer,
        ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      });
    case 'linear':
      return createLinearConnector({ apiKey: connection.token, ...optional('apiUrl', c.apiUrl), ...optional('teamKey', c.teamKey), ...observer });
    case 'vercel':
      if (!c.projectId) throw new Error('a Vercel connection needs config.projectId');
      return createVercelConnector({ token: connection.token, projectId: c.projectId, ...optional('teamId', c.teamId), ...optional('baseUrl', c.baseUrl), ...observer });
  }
};
