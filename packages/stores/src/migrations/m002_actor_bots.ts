/** Bots stay actors (filters, item_actors) but are left out of expertise: the indexer flags them. */
export const m002ActorBots = `
ALTER TABLE actors ADD COLUMN is_bot boolean NOT NULL DEFAULT false;
`;
