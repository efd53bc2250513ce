// The related graph as SVG: a small force layout (repulsion between every pair, springs along edges, a
// pull to the centre) run for a fixed number of steps from a deterministic start, so the same graph is
// drawn the same way every time. Fine for the 1-200 nodes `related` returns.

const SVG = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs = {}, text) => {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
};

const TYPE_COLOURS = {
  pull_request: '#6f42c1', issue: '#1a7f37', commit: '#57606a', discussion: '#bf8700',
  document: '#0969da', deployment: '#cf222e', ref: '#8c959f',
};
export const colourOf = (type) => TYPE_COLOURS[type] ?? '#8c959f';

/** Positions for `nodes` (ids) linked by `edges` ({source, target}) inside width x height; the root centred. */
export function layout(nodes, edges, { width, height, rootId, steps = 300 }) {
  const n = nodes.length;
  const index = new Map(nodes.map((id, i) => [id, i]));
  const cx = width / 2;
  const cy = height / 2;
  const radius = Math.min(width, height) / 3;
  // Start on a circle (root at the centre): deterministic, and no two nodes on the same spot.
  const pos = nodes.map((id, i) => (id === rootId ? { x: cx, y: cy } : { x: cx + radius * Math.cos((2 * Math.PI * i) / n), y: cy + radius * Math.sin((2 * Math.PI * i) / n) }));
  const links = edges.map((e) => [index.get(e.source), index.get(e.target)]).filter(([a, b]) => a !== undefined && b !== undefined && a !== b);
  const ideal = Math.max(60, Math.min(160, Math.sqrt((width * height) / Math.max(n, 1)) * 0.8));
  for (let step = 0; step < steps; step++) {
    const cooling = 1 - step / steps;
    const force = pos.map(() => ({ x: 0, y: 0 }));
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        let dx = pos[i].x - pos[j].x;
        let dy = pos[i].y - pos[j].y;
        let d2 = dx * dx + dy * dy;
        if (d2 < 0.01) { dx = 0.1 * (i - j); dy = 0.1; d2 = dx * dx + dy * dy; }
        const d = Math.sqrt(d2);
        const f = (ideal * ideal) / d;
        force[i].x += (dx / d) * f; force[i].y += (dy / d) * f;
        force[j].x -= (dx / d) * f; force[j].y -= (dy / d) * f;
      }
    }
    for (const [a, b] of links) {
      const dx = pos[a].x - pos[b].x;
      const dy = pos[a].y - pos[b].y;
      const d = Math.max(Math.sqrt(dx * dx + dy * dy), 0.01);
      const f = (d * d) / ideal;
      force[a].x -= (dx / d) * f; force[a].y -= (dy / d) * f;
      force[b].x += (dx / d) * f; force[b].y += (dy / d) * f;
    }
    for (let i = 0; i < n; i++) {
      force[i].x += (cx - pos[i].x) * 0.05 * ideal / 10;
      force[i].y += (cy - pos[i].y) * 0.05 * ideal / 10;
      const len = Math.sqrt(force[i].x ** 2 + force[i].y ** 2) || 1;
      const move = Math.min(len, 20 * cooling + 0.5);
      if (nodes[i] === rootId) continue;
      pos[i].x = Math.min(width - 30, Math.max(30, pos[i].x + (force[i].x / len) * move));
      pos[i].y = Math.min(height - 20, Math.max(20, pos[i].y + (force[i].y / len) * move));
    }
  }
  return new Map(nodes.map((id, i) => [id, pos[i]]));
}

const shorten = (s, max) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/**
 * An <svg> of a `related` answer. `onSelect(node)` runs when a node is clicked (or Enter on it).
 */
export function drawGraph(data, { width = 760, height = 480, onSelect } = {}) {
  const rootId = data.root.id;
  const nodes = data.nodes.some((n) => n.id === rootId) ? data.nodes : [{ ...data.root, isRoot: true }, ...data.nodes];
  const positions = layout(nodes.map((n) => n.id), data.edges, { width, height, rootId });
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', class: 'graph', 'aria-label': `related graph of ${data.root.title}` });
  const defs = svg('defs');
  const marker = svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 20, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' });
  marker.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#8c959f' }));
  defs.append(marker);
  root.append(defs);
  const edgeLayer = svg('g', { class: 'edges' });
  for (const e of data.edges) {
    const a = positions.get(e.source);
    const b = positions.get(e.target);
    if (!a || !b) continue;
    const g = svg('g', { class: 'edge', 'data-type': e.type });
    g.append(svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, 'marker-end': 'url(#arrow)', 'stroke-width': 1 + 2 * Math.max(0, Math.min(1, e.confidence ?? 0.5)) }));
    g.append(svg('text', { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, class: 'edge-label' }, e.type));
    g.append(svg('title', {}, `${e.type} (${e.linkingKey}, confidence ${Number(e.confidence).toFixed(2)})`));
    edgeLayer.append(g);
  }
  root.append(edgeLayer);
  const nodeLayer = svg('g', { class: 'nodes' });
  for (const n of nodes) {
    const p = positions.get(n.id);
    const isRoot = n.id === rootId;
    const g = svg('g', { class: `node${isRoot ? ' root' : ''}`, 'data-id': n.id, tabindex: 0, role: 'button', transform: `translate(${p.x},${p.y})` });
    g.append(svg('circle', { r: isRoot ? 14 : 9, fill: colourOf(n.type) }));
    g.append(svg('text', { x: 0, y: isRoot ? 30 : 24, 'text-anchor': 'middle' }, shorten(n.title || n.id, 36)));
    g.append(svg('title', {}, `${n.title} (${n.type}, ${n.source})`));
    if (onSelect) {
      g.addEventListener('click', () => onSelect(n));
      g.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') onSelect(n); });
    }
    nodeLayer.append(g);
  }
  root.append(nodeLayer);
  return root;
}
