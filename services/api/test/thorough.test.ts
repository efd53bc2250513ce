/** Spec 4.1 modes: `thorough` asks the configured LLM (an OpenAI-compatible server) and says when it could not. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../../test/fakes/openai/index.js';
import { allEvents } from './support/events.js';
import { startApi, type Api, type Tenant } from './support/server.js';

describe('thorough search with an LLM', () => {
  let llm: FakeOpenAI;
  let broken: FakeOpenAI;
  let api: Api;
  let down: Api;
  let tenant: Tenant;
  let downTenant: Tenant;

  beforeAll(async () => {
    llm = await startFakeOpenAI({ apiKey: 'sk-llm' });
    broken = await startFakeOpenAI({ apiKey: 'sk-llm', failFirst: 1_000_000 });
    api = await startApi({ name: 'llm', env: { DATABASE_URL: 'pglite://memory', LLM_BASE_URL: llm.url, LLM_API_KEY: 'sk-llm', LLM_MODEL: 'judge' } });
    down = await startApi({ name: 'llm-down', env: { DATABASE_URL: 'pglite://memory', LLM_BASE_URL: broken.url, LLM_API_KEY: 'sk-llm', LLM_TIMEOUT_MS: '2000' } });
    tenant = await api.tenant();
    downTenant = await down.tenant();
    await api.index(tenant.workspaceId, allEvents());
    await down.index(downTenant.workspaceId, allEvents());
  });
  afterAll(async () => {
    await api?.close();
    await down?.close();
    await llm?.close();
    await broken?.close();
  });

  it('scores the top candidates with the LLM and reports mode thorough', async () => {
    const before = llm.state.requests;
    const res = await api.post('/v1/search', { query: 'crash on empty config file', mode: 'thorough' }, tenant);
    expect(res.status).toBe(200);
    expect(res.body.meta.mode).toBe('thorough');
    expect(res.body.meta.scoreKind).toBe('llm-blend');
    expect(res.body.meta).not.toHaveProperty('requestedMode');
    expect(res.body.meta).not.toHaveProperty('fallbackReason');
    expect(llm.state.requests).toBeGreaterThan(before);
    const scores = res.body.data.map((r: { score: number }) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(res.body.data[0].title).toMatch(/crash|config/i);
  });

  it('falls back to balanced, and says so, when the LLM fails', async () => {
    const res = await down.post('/v1/search', { query: 'crash on empty config file', mode: 'thorough' }, downTenant);
    expect(res.status).toBe(200);
    expect([res.body.meta.mode, res.body.meta.requestedMode]).toEqual(['balanced', 'thorough']);
    expect(res.body.meta.fallbackReason).toBe('llm-failed');
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(down.logs.some((l) => l.msg === 'thorough search fell back: the LLM call failed' && l.workspaceId === downTenant.workspaceId)).toBe(true);
  });
});
