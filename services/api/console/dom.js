// Small DOM helpers. Text always goes in as text (never as HTML); highlights are rebuilt from their
// <mark> tags into elements, so nothing a document says can become markup on this page.

/** h('div', {class: 'x', onclick}, child, 'text', ...) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    else if (k === 'style') el.style.cssText = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

const decoder = new DOMParser();
/** The text an HTML-escaped fragment stands for (entities decoded; parsing runs no script). */
const unescape = (s) => decoder.parseFromString(`<!doctype html><body>${s}`, 'text/html').body.textContent ?? '';

/**
 * A highlight (HTML-escaped text with matched terms in <mark>) as nodes: text, and <mark> elements
 * around the matches.
 */
export function highlighted(html) {
  const parts = String(html).split(/(<mark>|<\/mark>)/);
  const out = [];
  let inMark = false;
  for (const part of parts) {
    if (part === '<mark>') inMark = true;
    else if (part === '</mark>') inMark = false;
    else if (part) {
      const text = unescape(part);
      out.push(inMark ? h('mark', {}, text) : document.createTextNode(text));
    }
  }
  return out;
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export const $ = (sel) => document.querySelector(sel);

export function date(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 10);
}

/** `YYYY-MM-DD HH:MM` in UTC. */
export function dateTime(iso) {
  const d = new Date(iso ?? '');
  return Number.isNaN(d.getTime()) ? (iso ?? '') : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** An http(s) link; anything else is shown as text. */
export function link(url, text) {
  return /^https?:\/\//i.test(url ?? '') ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, text ?? url) : h('span', {}, text ?? url ?? '');
}
