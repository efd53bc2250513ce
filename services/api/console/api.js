// Calls to the api from the page: the query operations with the pasted key, the admin API with the
// admin token. Every failure becomes an Error whose message is the server's documented one.

const store = window.localStorage;
export const settings = {
  get apiKey() { return store.getItem('engram.apiKey') ?? ''; },
  set apiKey(v) { store.setItem('engram.apiKey', v); },
  get workspaceId() { return store.getItem('engram.workspaceId') ?? ''; },
  set workspaceId(v) { store.setItem('engram.workspaceId', v); },
  get adminToken() { return store.getItem('engram.adminToken') ?? ''; },
  set adminToken(v) { store.setItem('engram.adminToken', v); },
  get imports() {
    try { return JSON.parse(store.getItem('engram.imports') ?? '[]'); } catch { return []; }
  },
  set imports(list) { store.setItem('engram.imports', JSON.stringify(list)); },
};

export class ApiError extends Error {
  constructor(message, status, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function send(path, init) {
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    throw new ApiError(`the server cannot be reached (${err.message})`, 0, 'NETWORK');
  }
  const text = await res.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch { body = null; }
  if (!res.ok) {
    const message = body?.message ?? `HTTP ${res.status}`;
    throw new ApiError(`${body?.code ?? res.status}: ${message}`, res.status, body?.code);
  }
  return body;
}

/** POST /v1/<operation> with the key and workspace the person saved. */
export function query(operation, body) {
  if (!settings.apiKey) return Promise.reject(new ApiError('paste an API key first (engram key create)', 0, 'NO_KEY'));
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${settings.apiKey}` };
  if (settings.workspaceId) headers['x-workspace-id'] = settings.workspaceId;
  return send(`/v1/${operation}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** GET /admin/<path> with the admin token. */
export function admin(path) {
  if (!settings.adminToken) return Promise.reject(new ApiError('paste the admin token first', 0, 'NO_TOKEN'));
  return send(`/admin/${path}`, { headers: { authorization: `Bearer ${settings.adminToken}` } });
}
