/** Operator endpoints for export-file imports: stage a file, then watch its indexing. */
import { Router } from 'express';
import { z } from 'zod';
import { ExportFormatError, importGitHubExport } from '@engram/connectors';
import type { Runtime } from '@engram/runtime';
import { getImportProgress, getWorkspace } from '@engram/stores';
import { badRequest, notFound, parseBody } from '../http/errors.js';
import { route } from '../http/context.js';

/**
 * `content` is the export file's text, verbatim (a JSON array or JSON Lines): the server parses it and
 * hashes exactly those bytes, so the same file twice is one import.
 */
export const CreateImport = z
  .object({
    workspaceId: z.string().min(1),
    provider: z.literal('github'),
    repo: z.string().regex(/^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/, 'expected "owner/name"'),
    content: z.string().min(1),
  })
  .strict();

/**
 * A process parses and stages one file at a time; the others wait holding only their request bodies. A
 * file's text is a string of two bytes a character once it holds any non-Latin-1 character, and staging it
 * holds its parsed objects and its events as well: for a 14.7 MB file of 12.6k items, 28 MB of text, 20 MB
 * of objects and 16 MB of events. Eight such files posted at once (a 100k-item backfill, one
 * `engram import` a repository) held all of it together, 1.2-1.3 GB of heap at the end of their staging;
 * one at a time, the heap stayed under 830 MB. Staging is a stream of writes to one database, so running
 * files together made none of them faster.
 */
function oneAtATime(): <T>(run: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (run) => {
    const next = tail.then(run, run);
    tail = next.catch(() => undefined);
    return next;
  };
}

export function adminImportRoutes(runtime: Runtime): Router {
  const router = Router();
  const { db, queue } = runtime;
  const staging = oneAtATime();

  router.post(
    '/imports',
    route(async (req, res) => {
      const body = parseBody(CreateImport, req.body);
      if (!(await getWorkspace(db, body.workspaceId))) throw notFound('workspace');
      try {
        const result = await staging(() => importGitHubExport({ db, queue }, { workspaceId: body.workspaceId, repo: body.repo, content: body.content }));
        res.status(202).json(result);
      } catch (err) {
        if (err instanceof ExportFormatError) throw badRequest('content', err.message, `invalid export file: ${err.message}`);
        throw err;
      }
    }),
  );

  router.get(
    '/imports/:id',
    route(async (req, res) => {
      // Counts kept on the import's row as its events are linked and marked: one row read, however large the import.
      const progress = await getImportProgress(db, String(req.params.id));
      if (!progress) throw notFound('import');
      res.json(progress);
    }),
  );
  return router;
}
