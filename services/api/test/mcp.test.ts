/**
 * `/mcp` (streamable HTTP) driven by the MCP SDK's own client against the real api: the tools an agent
 * sees, a search over indexed fixture items, reading and following a result, and the API key guard.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, story } from './support/events.js';
import { startApi, type Api, type Tenant } from './support/server.js';

const textOf = (result: unknown): string => ((result as { content: { type: string; text: string }[] }).content ?? []).map((c) => c.text).join('\n');

describe('MCP over streamable HTTP at /mcp', () => {
  let api: Api;
  let tenant: Tenant;
  let client: Client;

  beforeAll(async () => {
    api = await startApi({ name: 'mcp', env: { DATABASE_URL: 'pglite://memory' } });
    tenant = await api.tenant();
    await api.index(tenant.workspaceId, allEvents());
    client = new Client({ name: 'mcp-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tenant.key}` } } }));
  });
  afterAll(async () => {
    await client?.close();
    await api?.close();
  });

  it('lists the four tools, each with a description saying when to use it and an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['contents', 'findsimilar', 'related', 'search']);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(100);
      expect(t.inputSchema.type).toBe('object');
      expect(t.annotations?.readOnlyHint).toBe(true);
    }
    const search = tools.find((t) => t.name === 'search')!;
    expect(search.inputSchema.required).toEqual(['query']);
    expect(search.description).toMatch(/Use it first/);
  });

  it('search returns the indexed fix as compact text: title, url, id, snippet', async () => {
    const result = await client.callTool({ name: 'search', arguments: { query: story.fixPr.title, limit: 3 } });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    const first = text.split('\n')[1]!;
    expect(first).toContain(story.fixPr.title!);
    expect(first).toMatch(/id=obs_/);
    expect(text).toContain(story.fixPr.url);
    expect(text).not.toContain('<mark>');
    expect(text.length).toBeLessThan(3_000);
  });

  it('reads a result in full with contents and follows its links with related', async () => {
    const found = textOf(await client.callTool({ name: 'search', arguments: { query: story.fixPr.title, limit: 1, mode: 'fast' } }));
    const id = /id=(obs_[A-Za-z0-9_-]+)/.exec(found)![1]!;
    const contents = textOf(await client.callTool({ name: 'contents', arguments: { ids: [id, 'obs_missing'] } }));
    expect(contents).toContain('Treat an empty config file as the default configuration.');
    expect(contents).toContain('Not found in this workspace: obs_missing');
    const related = textOf(await client.callTool({ name: 'related', arguments: { id } }));
    expect(related).toMatch(/--fixes-->/);
    expect(related).toContain(story.crashIssue.title!);
  });

  it('answers a bad argument or an unknown id as a tool error the model can read, not a crash', async () => {
    const missing = await client.callTool({ name: 'related', arguments: { id: 'obs_does_not_exist' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^NOT_FOUND: .*Check the id/);
    const both = await client.callTool({ name: 'findsimilar', arguments: {} });
    expect(both.isError).toBe(true);
    expect(textOf(both)).toContain('exactly one of id and url');
  });

  it('rejects a request without a key, or with a wrong one, before any MCP work (401)', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    for (const authorization of [undefined, 'Bearer egk_wrong']) {
      const res = await fetch(`${api.base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify(init),
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    const anonymous = new Client({ name: 'anon', version: '1' });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(`${api.base}/mcp`)))).rejects.toThrow();
  });

  it('answers tool calls from the in-process query service: one request line, one tool line, the workspace id once in each', async () => {
    const before = api.rawLogs.length;
    await client.callTool({ name: 'search', arguments: { query: 'parser', mode: 'fast' } });
    const lines = api.rawLogs.slice(before);
    const toolLines = lines.filter((l) => l.includes('"msg":"mcp tool call"'));
    expect(toolLines).toHaveLength(1);
    expect(toolLines[0]).toContain('"operation":"search"');
    // No loopback: the tool call made no second HTTP request to /v1/search.
    expect(lines.filter((l) => l.includes('"msg":"request"') && l.includes('"path":"/search"'))).toEqual([]);
    for (const line of [...toolLines, ...lines.filter((l) => l.includes('"msg":"request"'))]) expect(line.match(/"workspaceId":/g)).toEqual(['"workspaceId":']);
  });
});
