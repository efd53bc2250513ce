/**
 * `engram mcp` over stdio, driven by the MCP SDK's own client (`StdioClientTransport` spawning the bin),
 * as a client of a real api with indexed fixture items.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, story } from '../../api/test/support/events.js';
import { startApi, type Api, type Tenant } from '../../api/test/support/server.js';
import { BIN } from './support.js';

const textOf = (result: unknown): string => ((result as { content: { text: string }[] }).content ?? []).map((c) => c.text).join('\n');

describe('engram mcp (stdio)', () => {
  let api: Api;
  let tenant: Tenant;
  let client: Client;

  beforeAll(async () => {
    api = await startApi({ name: 'mcp-stdio', env: { DATABASE_URL: 'pglite://memory' } });
    tenant = await api.tenant();
    await api.index(tenant.workspaceId, allEvents());
    client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        env: { PATH: process.env.PATH ?? '', ENGRAM_URL: api.base, ENGRAM_API_KEY: tenant.key, ENGRAM_WORKSPACE_ID: tenant.workspaceId },
        stderr: 'pipe',
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await api?.close();
  });

  it('lists the four tools and answers a search with the indexed fix', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['contents', 'findsimilar', 'related', 'search']);
    const result = await client.callTool({ name: 'search', arguments: { query: story.fixPr.title, limit: 3, mode: 'fast' } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result).split('\n')[1]).toContain(story.fixPr.title!);
    expect(textOf(result)).toContain(story.fixPr.url);
  });

  it('answers with a readable tool error when the server refuses the key', async () => {
    const bad = new Client({ name: 'stdio-bad-key', version: '1.0.0' });
    await bad.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--key', 'egk_wrong'], env: { PATH: process.env.PATH ?? '', ENGRAM_URL: api.base }, stderr: 'pipe' }));
    try {
      const result = await bad.callTool({ name: 'search', arguments: { query: 'config' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^UNAUTHORIZED: invalid API key/);
    } finally {
      await bad.close();
    }
  });
});
