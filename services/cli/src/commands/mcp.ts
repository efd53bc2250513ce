/**
 * `engram mcp`: Engram's tools for an MCP client (Claude Desktop, Cursor, an agent SDK) over stdio. It is a
 * client of a running Engram server's `/v1` API (an API key, not the admin token); stdout carries only the
 * protocol, so notes and errors go to stderr.
 */
import type { Command } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createEngramMcpServer } from '@engram/mcp';
import { createEngramClient } from '@engram/sdk';
import { CliError, type GlobalOptions } from '../client.js';
import { reportError } from '../output.js';

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description("serve Engram's search, contents, findsimilar and related tools to an MCP client over stdio (a client of the server at --url)")
    .option('--key <key>', 'API key (default: $ENGRAM_API_KEY)')
    .option('--workspace <id>', "workspace id (default: $ENGRAM_WORKSPACE_ID, else the key's own workspace)")
    .addHelpText('after', '\nMCP client config: { "command": "engram", "args": ["mcp"], "env": { "ENGRAM_URL": "http://localhost:3000", "ENGRAM_API_KEY": "egk_..." } }')
    .action(async (o: { key?: string; workspace?: string }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      try {
        const apiKey = o.key ?? process.env.ENGRAM_API_KEY;
        if (!apiKey) throw new CliError('no API key: pass --key or set ENGRAM_API_KEY (create one with: engram key create --workspace <id>)', 'USAGE');
        const workspaceId = o.workspace ?? process.env.ENGRAM_WORKSPACE_ID;
        const client = createEngramClient({ baseUrl: g.url, apiKey, ...(workspaceId ? { workspaceId } : {}), retry: { maxRetries: 2 } });
        const server = createEngramMcpServer(client);
        await server.connect(new StdioServerTransport());
        process.stderr.write(`engram mcp: serving tools over stdio for ${g.url}\n`);
        await new Promise<void>((resolve) => process.stdin.once('close', resolve));
        await server.close();
      } catch (err) {
        reportError(err, false);
      }
    });
}
