// The search console: search with mode and filters, results with highlights, clusters and people beside
// them, a result's full content, its related graph, find-similar; the admin view lives in admin.js.
import { query, settings } from './api.js';
import { startAdmin } from './admin.js';
import { $, clear, date, h, highlighted, link } from './dom.js';
import { colourOf, drawGraph } from './graph.js';

const PAGE = 10;
let lastRequest = null;

function setStatus(text, isError = false) {
  const el = $('#status');
  el.textContent = text;
  el.classList.toggle('error', isError);
}

function filtersFromForm() {
  const checked = (name) => [...document.querySelectorAll(`input[name=${name}]:checked`)].map((i) => i.value);
  const filters = {};
  const sources = checked('source');
  const types = checked('type');
  const actors = $('#filter-actors').value.split(',').map((s) => s.trim()).filter(Boolean);
  if (sources.length) filters.sourceTypes = sources;
  if (types.length) filters.observationTypes = types;
  if (actors.length) filters.actorNames = actors;
  const start = $('#filter-start').value;
  const end = $('#filter-end').value;
  if (start || end) {
    filters.dateRange = {};
    if (start) filters.dateRange.start = `${start}T00:00:00.000Z`;
    if (end) filters.dateRange.end = `${end}T23:59:59.999Z`;
  }
  return Object.keys(filters).length ? filters : undefined;
}

/** Actions every listed item carries: read it, see its graph, find items like it. */
function itemActions(item) {
  return h('div', { class: 'actions' },
    h('button', { type: 'button', class: 'open', onclick: () => openContent(item.id) }, 'Open'),
    h('button', { type: 'button', class: 'graph', onclick: () => openGraph(item.id, item.title) }, 'Graph'),
    h('button', { type: 'button', class: 'similar', onclick: () => openSimilar(item.id, item.title) }, 'Similar'));
}

function meta(item, extra = []) {
  return h('div', { class: 'meta' },
    h('span', { class: 'badge', style: `--c:${colourOf(item.type)}` }, item.type),
    ` ${item.source}`, item.occurredAt ? ` · ${date(item.occurredAt)}` : '', ...extra);
}

/** What `meta.scoreKind` says the score is, for the score's tooltip. */
const SCORE_MEANING = {
  fused: 'fast: the first-stage blend of the retrieval paths',
  probability: "balanced: the reranker's calibrated probability that this is the item asked about; small for broad questions even when the order is right",
  'llm-blend': "thorough: 0.6 x the LLM's judgement + 0.4 x the reranker's probability",
};
let topScore = null;

/**
 * The score as a person reads it: a `fused` score stands on its own; a probability (balanced, thorough)
 * is shown against the first result's (100% for it), with the raw number beside it.
 */
function scoreText(score, kind) {
  if (kind === 'fused' || !kind || !(topScore > 0)) return ` · score ${score.toFixed(3)}`;
  const relative = Math.min(100, Math.round((score / topScore) * 100));
  return ` · match ${relative}% of the top (p ${score < 0.01 ? score.toPrecision(2) : score.toFixed(3)})`;
}

function renderResult(r, kind) {
  const title = r.highlights?.title ? highlighted(r.highlights.title) : [r.title];
  const snippet = r.highlights?.snippet ? highlighted(r.highlights.snippet) : [r.snippet];
  return h('li', { class: 'result', dataset: { id: r.id } },
    h('h3', {}, link(r.url, ''), h('span', { class: 'title' }, ...title)),
    meta(r, [h('span', { class: 'score', title: SCORE_MEANING[kind] ?? 'score' }, scoreText(r.score, kind))]),
    h('p', { class: 'snippet' }, ...snippet),
    r.entities?.length ? h('div', { class: 'entities' }, r.entities.slice(0, 8).map((e) => h('span', { class: 'entity', title: e.category }, e.key))) : null,
    itemActions(r));
}

function renderContext(context) {
  const clusters = context?.clusters ?? [];
  const people = context?.relevantActors ?? [];
  clear($('#clusters'), clusters.length ? clusters.map((c) =>
    h('li', {}, h('strong', {}, c.topic ?? 'untitled topic'), c.summary ? h('p', {}, c.summary) : null,
      h('div', { class: 'entities' }, c.keywords.slice(0, 8).map((k) => h('span', { class: 'entity' }, k))))) : h('li', { class: 'muted' }, 'none'));
  clear($('#people'), people.length ? people.map((a) =>
    h('li', {}, h('strong', {}, a.displayName), a.expertiseDomains.length ? h('div', { class: 'muted' }, a.expertiseDomains.slice(0, 5).join(', ')) : null)) : h('li', { class: 'muted' }, 'none'));
}

async function search(offset = 0) {
  const q = $('#query').value.trim();
  if (!q) return;
  const request = { query: q, mode: $('#mode').value, limit: PAGE, offset, filters: filtersFromForm() };
  lastRequest = request;
  setStatus('Searching…');
  try {
    const res = await query('search', request);
    if (lastRequest !== request) return;
    // The first result of the whole list is the yardstick: kept from page 1 while paging.
    if (offset === 0) topScore = res.data[0]?.score ?? null;
    clear($('#results'), res.data.map((r) => renderResult(r, res.meta.scoreKind)));
    renderContext(res.context);
    const fallback = res.meta.requestedMode ? ` (asked ${res.meta.requestedMode}: ${res.meta.fallbackReason})` : '';
    setStatus(res.data.length
      ? `${offset + 1}-${offset + res.data.length} of ${res.meta.total} · ${res.meta.mode}${fallback} · ${Math.round(res.meta.took)} ms`
      : `No results · ${res.meta.mode}${fallback} · ${Math.round(res.meta.took)} ms`);
    const pager = clear($('#pager'));
    if (offset > 0) pager.append(h('button', { type: 'button', onclick: () => search(Math.max(0, offset - PAGE)) }, 'Previous'));
    if (offset + PAGE < res.meta.total) pager.append(h('button', { type: 'button', onclick: () => search(offset + PAGE) }, 'Next'));
  } catch (err) {
    setStatus(err.message, true);
  }
}

function showPanel(title, ...body) {
  $('#panel').hidden = false;
  clear($('#panel-title'), title);
  clear($('#panel-body'), ...body);
  $('#panel').scrollIntoView({ block: 'start' });
}

async function openContent(id) {
  showPanel('Loading…');
  try {
    const res = await query('contents', { ids: [id] });
    const item = res.items[0];
    if (!item) return showPanel('Not found', h('p', {}, `${id} is not in this workspace.`));
    $('#panel').dataset.kind = 'content';
    showPanel(item.title ?? item.id,
      meta(item, [' · ', link(item.url, 'open at the source')]),
      itemActions(item),
      h('pre', { class: 'content' }, item.content ?? item.snippet),
      item.metadata && Object.keys(item.metadata).length ? h('details', {}, h('summary', {}, 'metadata'), h('pre', {}, JSON.stringify(item.metadata, null, 2))) : null);
  } catch (err) {
    showPanel('Error', h('p', { class: 'error' }, err.message));
  }
}

async function openGraph(id, title) {
  showPanel(`Related: ${title}`, h('p', { class: 'muted' }, 'Loading…'));
  try {
    const depth = 2;
    const res = await query('related', { id, depth, limit: 60 });
    $('#panel').dataset.kind = 'graph';
    const legend = [...new Set(res.data.nodes.map((n) => n.type))].map((t) => h('span', { class: 'badge', style: `--c:${colourOf(t)}` }, t));
    showPanel(`Related: ${res.data.root.title}`,
      h('p', { class: 'muted' }, `${res.meta.nodeCount} nodes, ${res.meta.edgeCount} edges within ${depth} hops · click a node to read it `, ...legend),
      res.meta.edgeCount ? drawGraph(res.data, { onSelect: (n) => (n.id.startsWith('ref:') ? null : openContent(n.id)) }) : h('p', {}, 'No links to other items yet.'),
      h('ul', { class: 'plain edges-list' }, res.data.edges.map((e) => {
        const name = (nid) => res.data.nodes.find((n) => n.id === nid)?.title ?? nid;
        return h('li', {}, `${name(e.source)} `, h('strong', {}, `—${e.type}→`), ` ${name(e.target)}`);
      })));
  } catch (err) {
    showPanel('Error', h('p', { class: 'error' }, err.message));
  }
}

async function openSimilar(id, title) {
  showPanel(`Similar to: ${title}`, h('p', { class: 'muted' }, 'Loading…'));
  try {
    const res = await query('findsimilar', { id, limit: 10, threshold: 0 });
    $('#panel').dataset.kind = 'similar';
    showPanel(`Similar to: ${res.source.title}`,
      res.similar.length ? h('ol', { class: 'results' }, res.similar.map((s) =>
        h('li', { class: 'result similar-item', dataset: { id: s.id } },
          h('h3', {}, h('span', { class: 'title' }, s.title)),
          meta(s, [` · score ${s.score.toFixed(2)}`, s.sameCluster ? ' · same topic' : '']),
          s.snippet ? h('p', { class: 'snippet' }, s.snippet) : null,
          itemActions(s)))) : h('p', {}, 'Nothing similar found.'));
  } catch (err) {
    showPanel('Error', h('p', { class: 'error' }, err.message));
  }
}

function showView(name) {
  for (const tab of document.querySelectorAll('.tab')) tab.setAttribute('aria-pressed', String(tab.dataset.view === name));
  $('#view-search').hidden = name !== 'search';
  $('#view-admin').hidden = name !== 'admin';
  if (name === 'admin') startAdmin();
}

function init() {
  $('#api-key').value = settings.apiKey;
  $('#workspace-id').value = settings.workspaceId;
  const credentialState = () => { $('#credentials-state').textContent = settings.apiKey ? 'key saved in this browser' : 'no key yet'; };
  credentialState();
  $('#credentials').addEventListener('submit', (ev) => {
    ev.preventDefault();
    settings.apiKey = $('#api-key').value.trim();
    settings.workspaceId = $('#workspace-id').value.trim();
    credentialState();
  });
  $('#search-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    void search(0);
  });
  $('#panel-close').addEventListener('click', () => { $('#panel').hidden = true; });
  for (const tab of document.querySelectorAll('.tab')) tab.addEventListener('click', () => showView(tab.dataset.view));
}

init();
