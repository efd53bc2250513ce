/**
 * Replaces `entity_mentions`' primary key (entity_id, item_id) with a plain index on `entity_id`. The
 * key's only readers look mentions up by entity (the SQL read model's entity matches, the trigger that
 * drops an entity's mentions); its uniqueness guarded nothing the one writer does not already ensure
 * (`replaceItemsEntities` deletes an item's mentions and inserts each (entity, item) once, under the
 * item's lock). A unique index over all 1.8M distinct pairs held every item id again: 138 MB at 100k
 * items, more than the embedded database's 128 MB buffer cache, and each new item's ~18 mentions landed
 * on leaf pages all over it, so an import read and wrote back pages of it for nearly every mention (42,785
 * block reads for 72,350 mentions in a 4,000-item import). On one column PostgreSQL stores an entity's
 * rows as one posting list of row pointers (B-tree deduplication): 16 MB for the same rows, new rows at
 * the end of their entity's list. In the same import the embedded database's file writes fell from 1,019
 * to 579 MB and its reads from 1,077 to 700 MB (`bench/results/scale-2026-12-02-s51-account.md`).
 */
export const m016EntityMentionsByEntity = `
CREATE INDEX entity_mentions_entity ON entity_mentions (entity_id);
ALTER TABLE entity_mentions DROP CONSTRAINT entity_mentions_pkey;
`;
