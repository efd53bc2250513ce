/**
 * Issue 18, "deadlines everywhere", over HTTP: a request's deadline (API_REQUEST_DEADLINE_MS) or its client
 * going away aborts the provider, embedding, reranker and LLM calls it started (the provider sees its
 * connection closed, long before those calls' own timeouts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SourceEvent } from '@engram/contracts';
import { createIndexer, createOpenAIEmbedder } from '@engram/indexer';
import { stageAndIndex } from '@engram/indexer/testing';
import { createLogger, createRuntime, loadConfig, type Runtime } from '@engram/runtime';
import { createHostedReranker, createLlmScorer } from '@engram/search';
import { createApiKey, createConnection, createWorkspace } from '@engram/stores';
import { startFakeGitHub, syntheticIssues, type FakeGitHub } from '../../../test/fakes/github/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../../test/fakes/openai/index.js';
import { closeAppLimits, createApp } from '../src/app.js';
import { listen } from '../src/http/server.js';
import { queryServiceFor, v1Routes } from '../src/routes/v1/index.js';
import { allEvents } from './support/events.js';

const DEADLINE_MS = 1_500;
/** The calls' own timeouts: far past the deadline, so only the request's abort can end them in time. */
const OWN_TIMEOUT_MS = 600_000;
/** How long the provider may keep a request the deadline abandoned: the deadline plus scheduling slack. */
const CLOSED_WITHIN_MS = DEADLINE_MS + 5_000;
const TOKEN = 'ghp_deadlineToken0123456789';
const KEY = 'sk-deadline';

describe('a request past its deadline, or abandoned by its client, cancels its outbound calls', () => {
  let github: FakeGitHub;
  let openai: FakeOpenAI;
  let runtime: Runtime;
  let server: Server;
  let app: ReturnType<typeof createApp>;
  let dataDir: string;
  let base: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    github = await startFakeGitHub({ repo: 'acme/widgets', items: syntheticIssues(3, { firstNumber: 1 }), token: TOKEN, hangs: { every: 1 } });
    openai = await startFakeOpenAI({ apiKey: KEY, defaultDimensions: 64 });
    dataDir = await mkdtemp(join(tmpdir(), 'engram-deadline-'));
    const sink = new Writable({ write: (_chunk, _enc, done) => done() });
    const config = loadConfig({
      DATABASE_URL: 'pglite://memory',
      ENGRAM_DATA_DIR: dataDir,
      API_REQUEST_DEADLINE_MS: String(DEADLINE_MS),
      PROXY_TIMEOUT_MS: String(OWN_TIMEOUT_MS),
    });
    // The query embedder, the hosted reranker and the LLM scorer all talk to the fake OpenAI-compatible server.
    const embedder = createOpenAIEmbedder({ apiKey: KEY, baseURL: openai.url, model: 'text-embedding-3-small', dimensions: 64, timeoutMs: OWN_TIMEOUT_MS });
    runtime = await createRuntime(config, createLogger({ level: 'info', name: 'engram-deadline-test', destination: sink }), { embedder });
    const rankers = {
      reranker: createHostedReranker({ url: openai.url, apiKey: KEY, model: 'rerank-fake', timeoutMs: OWN_TIMEOUT_MS }),
      llm: createLlmScorer({ baseURL: openai.url, apiKey: KEY, model: 'judge', timeoutMs: OWN_TIMEOUT_MS }),
    };
    app = createApp(runtime, { api: v1Routes(runtime, queryServiceFor({ ...runtime, rankers })) });
    server = await listen(app, config.http, 0, '127.0.0.1');
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

    const ws = await createWorkspace(runtime.db, 'deadlines');
    const key = await createApiKey(runtime.db, ws.id);
    headers = { 'content-type': 'application/json', authorization: `Bearer ${key.key}`, 'x-workspace-id': ws.id };
    await createConnection(runtime.db, runtime.secretBox, { workspaceId: ws.id, provider: 'github', config: { repo: 'acme/widgets', baseUrl: github.url }, token: TOKEN });
    const indexer = createIndexer({ db: runtime.db, vectors: runtime.vectors, embedder: runtime.embedder });
    await stageAndIndex(runtime.db, indexer, ws.id, allEvents().map((e) => SourceEvent.parse(e)));
  }, 120_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (app) await closeAppLimits(app);
    await runtime?.close();
    await github?.close();
    await openai?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const post = async (path: string, body: unknown, signal?: AbortSignal) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
    return { status: res.status, body: (await res.json()) as { code?: string; data?: { reason?: string } } };
  };
  const expectDeadline = (res: Awaited<ReturnType<typeof post>>) => {
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'UNAVAILABLE', data: { reason: 'deadline' } });
  };
  /** Waits until every request the fake held open was closed by its caller. */
  const closedByCaller = (state: { hung: number; abandoned: number }, hung: number) =>
    vi.waitFor(() => expect(state).toMatchObject({ hung, abandoned: hung }), { timeout: CLOSED_WITHIN_MS, interval: 50 });

  it('proxy/call: a provider that never answers gets 503 at the deadline and its connection closed', async () => {
    const before = github.state.hung;
    expectDeadline(await post('/v1/proxy/call', { action: 'github.get-issue', params: { owner: 'acme', repo: 'widgets', issue_number: 1 } }));
    await closedByCaller(github.state, before + 1);
  });

  it('findsimilar by url: the fetch through the connection is cancelled at the deadline', async () => {
    const before = github.state.hung;
    expectDeadline(await post('/v1/findsimilar', { url: `${github.url}/acme/widgets/issues/2` }));
    await closedByCaller(github.state, before + 1);
  });

  it('search: a query embedding that hangs is cancelled at the deadline', async () => {
    openai.hangs.clear();
    openai.hangs.add('embeddings');
    const before = openai.state.hung;
    expectDeadline(await post('/v1/search', { query: 'a question nobody asked before', mode: 'fast' }));
    await closedByCaller(openai.state, before + 1);
  });

  it('balanced search: a hosted reranker that hangs is cancelled at the deadline', async () => {
    openai.hangs.clear();
    openai.hangs.add('rerank');
    const before = openai.state.hung;
    expectDeadline(await post('/v1/search', { query: 'crash on empty config file', mode: 'balanced' }));
    await closedByCaller(openai.state, before + 1);
  });

  it('thorough search: an LLM that hangs is cancelled at the deadline', async () => {
    openai.hangs.clear();
    openai.hangs.add('chat');
    const before = { hung: openai.state.hung, rerank: openai.state.rerankRequests };
    expectDeadline(await post('/v1/search', { query: 'parser fix for empty config', mode: 'thorough' }));
    expect(openai.state.rerankRequests).toBe(before.rerank + 1);
    await vi.waitFor(() => expect(openai.state.hung).toBeGreaterThan(before.hung));
    await closedByCaller(openai.state, openai.state.hung);
  });

  it('a client that goes away cancels the reranker call it was waiting on', async () => {
    openai.hangs.clear();
    openai.hangs.add('rerank');
    const before = openai.state.hung;
    const client = new AbortController();
    const answer = post('/v1/search', { query: 'which change fixed the crash', mode: 'balanced' }, client.signal).catch((e: unknown) => e);
    await vi.waitFor(() => expect(openai.state.hung).toBe(before + 1), { timeout: CLOSED_WITHIN_MS });
    client.abort();
    expect(await answer).toBeInstanceOf(Error);
    await closedByCaller(openai.state, before + 1);
  });
});
