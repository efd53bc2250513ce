// The admin view: server and stores, queue depths, workspaces, each connection's sync streams, and
// the progress of imports the person watches (ids kept in localStorage), from the admin API.
import { admin, settings } from './api.js';
import { $, clear, date, dateTime, h } from './dom.js';

let timer = null;
let started = false;

const table = (el, head, rows) => clear(el,
  h('thead', {}, h('tr', {}, head.map((c) => h('th', {}, c)))),
  h('tbody', {}, rows.length ? rows.map((r) => h('tr', {}, r.map((c) => h('td', {}, c ?? '')))) : h('tr', {}, h('td', { colspan: head.length, class: 'muted' }, 'none'))));

function progress(done, total) {
  if (!total) return String(done);
  const pct = total > 0 ? Math.min(100, Math.round((100 * done) / total)) : 0;
  return h('span', { class: 'progress' }, h('progress', { max: 100, value: pct }), ` ${done}/${total} (${pct}%)`);
}

function renderStatus(status, workspaces) {
  clear($('#admin-server'),
    h('dt', {}, 'ready'), h('dd', {}, status.ready ? 'yes' : 'no'),
    h('dt', {}, 'database'), h('dd', {}, status.stores.database),
    h('dt', {}, 'vectors'), h('dd', {}, status.stores.vectors),
    h('dt', {}, 'queue'), h('dd', {}, status.stores.queue),
    h('dt', {}, 'embedding'), h('dd', {}, `${status.stores.embedding.model} (${status.stores.embedding.dimensions} dims)`));
  const queues = Object.entries(status.queues ?? {});
  table($('#admin-queues'), ['queue', 'counts'], queues.map(([name, counts]) => [name, typeof counts === 'object' ? Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(' · ') : String(counts)]));
  table($('#admin-workspaces'), ['id', 'name', 'created'], workspaces.map((w) => [w.id, w.name, date(w.createdAt)]));
  const connections = status.connections ?? [];
  clear($('#admin-connections'), connections.length ? connections.map((c) =>
    h('article', { class: 'connection', dataset: { id: c.id } },
      h('h3', {}, `${c.provider} · ${c.config?.repo ?? c.config?.teamKey ?? c.config?.projectId ?? c.id}`),
      h('p', { class: 'muted' }, `${c.id} · workspace ${c.workspaceId} · ${c.status}`),
      streamTable(c.streams ?? []))) : h('p', { class: 'muted' }, 'No connections yet (engram connect github|linear|vercel).'));
}

function streamTable(streams) {
  const el = h('table', {});
  table(el, ['stream', 'mode', 'state', 'pages', 'items', 'rate-limit waits', 'error', 'updated'], streams.map((s) => [
    s.stream, s.mode, s.state, String(s.pages), s.totalHint !== null ? progress(s.items, s.totalHint) : String(s.items), String(s.rateLimitWaits), s.error ?? '', dateTime(s.updatedAt)]));
  return el;
}

async function renderImports() {
  const ids = settings.imports;
  const rows = await Promise.all(ids.map(async (id) => {
    try {
      const p = await admin(`imports/${encodeURIComponent(id)}`);
      const done = p.indexed + p.failed;
      return [id, p.container ?? p.provider, String(p.received), progress(done, p.events), String(p.failed), p.pending > 0 ? `indexing (${p.pending} pending)` : 'done'];
    } catch (err) {
      return [id, '', '', '', '', err.message];
    }
  }));
  const el = h('table', {});
  table(el, ['import', 'repository', 'received', 'indexed', 'failed', 'state'], rows);
  clear($('#admin-imports'), el);
}

async function load() {
  const state = $('#admin-status');
  try {
    const [status, ws] = await Promise.all([admin('status'), admin('workspaces')]);
    renderStatus(status, ws.workspaces ?? []);
    await renderImports();
    state.textContent = `updated ${new Date().toLocaleTimeString()}`;
    state.classList.remove('error');
  } catch (err) {
    state.textContent = err.message;
    state.classList.add('error');
  }
}

function schedule() {
  clearInterval(timer);
  timer = $('#admin-refresh').checked ? setInterval(() => { if (!$('#view-admin').hidden) void load(); }, 5_000) : null;
}

export function startAdmin() {
  if (!started) {
    started = true;
    $('#admin-token').value = settings.adminToken;
    $('#admin-credentials').addEventListener('submit', (ev) => {
      ev.preventDefault();
      settings.adminToken = $('#admin-token').value.trim();
      void load();
    });
    $('#import-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const id = $('#import-id').value.trim();
      if (id && !settings.imports.includes(id)) settings.imports = [id, ...settings.imports].slice(0, 20);
      $('#import-id').value = '';
      void renderImports();
    });
    $('#admin-refresh').addEventListener('change', schedule);
  }
  schedule();
  if (settings.adminToken) void load();
}
