/**
 * The four Engram tools, defined once over an `EngramPort`. Descriptions tell an agent when to reach for
 * each; input schemas reuse the contract's filters and bound what one call returns.
 */
import { z } from 'zod';
import { Filters, SearchMode } from '@engram/contracts';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CAPS, formatContents, formatRelated, formatSearch, formatSimilar } from './format.js';
import type { EngramPort, PortError } from './port.js';

export const TOOL_LIMITS = { searchResults: 25, contentsIds: 10, similar: 25, relatedNodes: 100 } as const;

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

/** A documented API error becomes a tool error the model can read and act on; anything else rethrows. */
function failure(err: unknown): CallToolResult {
  const e = err as Partial<PortError>;
  if (typeof e?.message !== 'string' || (typeof e.code !== 'string' && typeof e.status !== 'number')) throw err;
  const hint =
    e.code === 'NOT_FOUND' ? ' Check the id: use one returned by search.'
    : e.code === 'VALIDATION_ERROR' || e.code === 'BAD_REQUEST' ? ' Fix the arguments and call again.'
    : e.code === 'RATE_LIMITED' || e.code === 'UNAVAILABLE' ? ' Wait a little and call again.'
    : '';
  return { isError: true, content: [{ type: 'text', text: `${e.code ?? `HTTP ${e.status}`}: ${e.message}.${hint}${e.requestId ? ` (request ${e.requestId})` : ''}` }] };
}

const guard = async (fn: () => Promise<CallToolResult>): Promise<CallToolResult> => {
  try {
    return await fn();
  } catch (err) {
    return failure(err);
  }
};

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export function registerEngramTools(server: McpServer, port: EngramPort): void {
  server.registerTool(
    'search',
    {
      title: 'Search team memory',
      description:
        "Search the team's engineering history: GitHub pull requests, issues, commits, discussions and Markdown docs, Linear issues and projects, Vercel deployments and build logs. " +
        'Use it first for any question about why, when, how or by whom something in the code or product changed, what broke, or what was decided. ' +
        'Ask in natural language (e.g. "why did the deploy fail on Friday", "support for decorators in the parser"). ' +
        'Returns ranked results (title, url, id, a short snippet) plus related topics and people. Then read a result in full with `contents`, follow its links with `related`, or find look-alikes with `findsimilar`.',
      inputSchema: {
        query: z.string().trim().min(1).max(2000).describe('What to look for, in natural language or keywords.'),
        limit: z.number().int().min(1).max(TOOL_LIMITS.searchResults).default(8).describe(`Results to return, 1-${TOOL_LIMITS.searchResults} (default 8).`),
        offset: z.number().int().min(0).max(10_000).default(0).describe('Results to skip: the next page starts at offset + limit.'),
        mode: SearchMode.default('balanced').describe('balanced (default, reranked, best quality); fast (first stage only, quickest); thorough (LLM reranking when the server has an LLM).'),
        filters: Filters.optional(),
      },
      annotations: { title: 'Search team memory', ...readOnly },
    },
    ({ query, limit, offset, mode, filters }) =>
      guard(async () => text(formatSearch(query, await port.search({ query, limit, offset, mode, ...(filters ? { filters } : {}), includeHighlights: false })))),
  );

  server.registerTool(
    'contents',
    {
      title: 'Read items in full',
      description:
        'Read the full text of items by id (ids come from search, findsimilar or related: obs_... or doc_...): a pull request or issue body, a commit message, a document, a deployment log. ' +
        `Use it when a snippet is not enough to answer. Up to ${TOOL_LIMITS.contentsIds} ids per call; long texts are cut at maxChars each.`,
      inputSchema: {
        ids: z.array(z.string().min(1).max(200)).min(1).max(TOOL_LIMITS.contentsIds).describe(`1-${TOOL_LIMITS.contentsIds} item ids.`),
        maxChars: z.number().int().min(200).max(20_000).default(CAPS.contentChars).describe(`Most characters of text per item (default ${CAPS.contentChars}).`),
      },
      annotations: { title: 'Read items in full', ...readOnly },
    },
    ({ ids, maxChars }) => guard(async () => text(formatContents(await port.contents(ids), maxChars))),
  );

  server.registerTool(
    'findsimilar',
    {
      title: 'Find similar items',
      description:
        'Find items most like one given item, by its id or by a GitHub/Linear URL (indexed, or fetched through a connection): duplicates of a bug report, earlier fixes of the same problem, prior discussion of a proposal. ' +
        'Use it when you already hold one relevant item and want its look-alikes, not for a fresh question (use search for that).',
      inputSchema: {
        id: z.string().min(1).optional().describe('Item id (obs_... or doc_...). Give exactly one of id and url.'),
        url: z.url().optional().describe('Provider URL of the item, e.g. https://github.com/owner/repo/issues/123.'),
        limit: z.number().int().min(1).max(TOOL_LIMITS.similar).default(8).describe(`Items to return, 1-${TOOL_LIMITS.similar} (default 8).`),
        threshold: z.number().min(0).max(1).default(0.5).describe('Lowest similarity kept, 0-1 (default 0.5; 0.9+ near duplicates, 0.75+ highly related).'),
        sameSourceOnly: z.boolean().default(false).describe('Only items from the same source system (github, linear, vercel).'),
      },
      annotations: { title: 'Find similar items', ...readOnly },
    },
    ({ id, url, limit, threshold, sameSourceOnly }) =>
      guard(async () => {
        if ((id === undefined) === (url === undefined)) return { isError: true, content: [{ type: 'text', text: 'Give exactly one of id and url.' }] };
        return text(formatSimilar(await port.findSimilar({ ...(id !== undefined ? { id } : { url: url! }), limit, threshold, sameSourceOnly })));
      }),
  );

  server.registerTool(
    'related',
    {
      title: 'Follow links',
      description:
        "Walk the explicit links around one item: the pull request that fixes an issue, a pull request's commits, the deployment that shipped a commit, Linear issues and documents that reference it. " +
        'Use it to trace cause and effect (what fixed this, what shipped with it, what it broke) once search or contents gave you an id.',
      inputSchema: {
        id: z.string().min(1).describe('Item id (obs_... or doc_...).'),
        depth: z.number().int().min(1).max(3).default(1).describe('Hops from the item, 1-3 (default 1).'),
        types: z.array(z.string().min(1)).max(20).optional().describe('Only these link types, e.g. fixes, references, contains, merged_as, deployed.'),
        limit: z.number().int().min(1).max(TOOL_LIMITS.relatedNodes).default(30).describe(`Most items returned, the item included (default 30, max ${TOOL_LIMITS.relatedNodes}).`),
      },
      annotations: { title: 'Follow links', ...readOnly },
    },
    ({ id, depth, types, limit }) => guard(async () => text(formatRelated(await port.related({ id, depth, limit, ...(types ? { types } : {}) })))),
  );
}

/** An MCP server exposing the Engram tools over `port`. Connect it to any transport. */
export function createEngramMcpServer(port: EngramPort, info: { version: string } = { version: '0.1.0' }): McpServer {
  const server = new McpServer(
    { name: 'engram', title: 'Engram team memory', version: info.version },
    { instructions: "Engram is this team's memory of its engineering work (GitHub, Linear, Vercel). Start with search; read results with contents; follow links with related; find look-alikes with findsimilar. Cite urls." },
  );
  registerEngramTools(server, port);
  return server;
}
