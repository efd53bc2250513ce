/** System of record. Runs unchanged on PGlite and server Postgres; needs no extension. */
export const m001Core = `
CREATE TABLE workspaces (
  id text PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  key_hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

CREATE TABLE connections (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  provider text NOT NULL,
  config jsonb NOT NULL DEFAULT '{}',
  credentials_enc text NOT NULL,
  webhook_secret_enc text,
  status text NOT NULL DEFAULT 'active',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX connections_workspace ON connections (workspace_id);

CREATE TABLE sync_cursors (
  connection_id text NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
  stream text NOT NULL,
  mode text NOT NULL,
  cursor jsonb,
  since timestamptz,
  high_water timestamptz,
  state text NOT NULL DEFAULT 'idle',
  pages integer NOT NULL DEFAULT 0,
  items integer NOT NULL DEFAULT 0,
  total_hint integer,
  rate_limit_waits integer NOT NULL DEFAULT 0,
  rate_limit_wait_ms bigint NOT NULL DEFAULT 0,
  error text,
  started_at timestamptz,
  completed_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, stream, mode)
);

-- Normalised events staged before indexing: queue payloads carry their id, never their content.
CREATE TABLE source_events (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  connection_id text,
  import_id text,
  source text NOT NULL,
  external_id text NOT NULL,
  content_hash text NOT NULL,
  event jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz
);
CREATE INDEX source_events_pending ON source_events (workspace_id, status);

CREATE TABLE imports (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  provider text NOT NULL,
  container text,
  file_hash text NOT NULL,
  received integer NOT NULL DEFAULT 0,
  staged integer NOT NULL DEFAULT 0,
  invalid integer NOT NULL DEFAULT 0,
  errors jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE import_events (
  import_id text NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
  event_id text NOT NULL REFERENCES source_events(id) ON DELETE CASCADE,
  PRIMARY KEY (import_id, event_id)
);

CREATE TABLE items (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  connection_id text,
  source text NOT NULL,
  type text NOT NULL,
  external_id text NOT NULL,
  url text NOT NULL,
  title text,
  content text NOT NULL DEFAULT '',
  snippet text NOT NULL DEFAULT '',
  container text,
  state text,
  labels text[] NOT NULL DEFAULT '{}',
  files text[] NOT NULL DEFAULT '{}',
  actor_names text[] NOT NULL DEFAULT '{}',
  metadata jsonb NOT NULL DEFAULT '{}',
  occurred_at timestamptz NOT NULL,
  source_updated_at timestamptz NOT NULL,
  content_hash text NOT NULL,
  embedding_hash text,
  search_vector tsvector,
  lexical_length integer NOT NULL DEFAULT 0,
  indexed_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, source, external_id)
);
CREATE INDEX items_search ON items USING gin (search_vector);
CREATE INDEX items_workspace_type ON items (workspace_id, type);
CREATE INDEX items_workspace_time ON items (workspace_id, occurred_at DESC);
CREATE INDEX items_actor_names ON items USING gin (actor_names);

-- Linking keys: identity keys of an item and references it makes to others. Edges join on key.
CREATE TABLE item_refs (
  workspace_id text NOT NULL,
  item_id text NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  key text NOT NULL,
  relation text NOT NULL,
  confidence real NOT NULL DEFAULT 1,
  PRIMARY KEY (item_id, key, relation)
);
CREATE INDEX item_refs_key ON item_refs (workspace_id, key);

CREATE TABLE entities (
  id bigserial PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  category text NOT NULL,
  key text NOT NULL,
  item_count integer NOT NULL DEFAULT 0,
  UNIQUE (workspace_id, category, key)
);
CREATE INDEX entities_key ON entities (workspace_id, key);

CREATE TABLE entity_mentions (
  entity_id bigint NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  item_id text NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  workspace_id text NOT NULL,
  confidence real NOT NULL,
  PRIMARY KEY (entity_id, item_id)
);
CREATE INDEX entity_mentions_item ON entity_mentions (item_id);

CREATE TABLE actors (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  display_name text NOT NULL,
  expertise jsonb NOT NULL DEFAULT '[]',
  expertise_domains text[] NOT NULL DEFAULT '{}',
  item_count integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per way a provider names a person (login, e-mail, name); all map to one actor.
CREATE TABLE actor_identities (
  workspace_id text NOT NULL,
  kind text NOT NULL,
  value text NOT NULL,
  actor_id text NOT NULL REFERENCES actors(id) ON DELETE CASCADE,
  PRIMARY KEY (workspace_id, kind, value)
);
CREATE INDEX actor_identities_actor ON actor_identities (actor_id);

CREATE TABLE item_actors (
  item_id text NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  actor_id text NOT NULL REFERENCES actors(id) ON DELETE CASCADE,
  workspace_id text NOT NULL,
  role text NOT NULL,
  PRIMARY KEY (item_id, actor_id, role)
);
CREATE INDEX item_actors_actor ON item_actors (actor_id);

CREATE TABLE clusters (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  topic text,
  summary text,
  keywords text[] NOT NULL DEFAULT '{}',
  member_count integer NOT NULL DEFAULT 0,
  centroid jsonb,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX clusters_workspace ON clusters (workspace_id);

CREATE TABLE cluster_members (
  item_id text PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
  cluster_id text NOT NULL REFERENCES clusters(id) ON DELETE CASCADE,
  workspace_id text NOT NULL,
  similarity real NOT NULL
);
CREATE INDEX cluster_members_cluster ON cluster_members (cluster_id);

CREATE TABLE edges (
  workspace_id text NOT NULL,
  source_id text NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  target_id text NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  type text NOT NULL,
  linking_key text NOT NULL,
  confidence real NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_id, target_id, type)
);
CREATE INDEX edges_target ON edges (target_id);

CREATE TABLE webhook_deliveries (
  provider text NOT NULL,
  delivery_id text NOT NULL,
  connection_id text,
  event text,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, delivery_id)
);

CREATE TABLE embedding_cache (
  model text NOT NULL,
  content_hash text NOT NULL,
  vector jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (model, content_hash)
);

-- Lexical statistics for BM25: document frequency per term, per workspace.
CREATE TABLE lexicon (
  workspace_id text NOT NULL,
  term text NOT NULL,
  df integer NOT NULL,
  PRIMARY KEY (workspace_id, term)
);

CREATE TABLE settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL
);
`;
