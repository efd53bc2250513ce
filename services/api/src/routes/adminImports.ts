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

export function adminImportRoutes(runtime: Runtime): Router {
  const router = Router();
  const { db, queue } = runtime;

  router.post(
    '/imports',
    route(async (req, res) => {
      const body = parseBody(CreateImport, req.body);
      if (!(await getWorkspace(db, body.workspaceId))) throw notFound('workspace');
      try {
        const result = await importGitHubExport({ db, queue }, { workspaceId: body.workspaceId, repo: body.repo, content: body.content });
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
      const progress = await getImportProgress(db, String(req.params.id));
      if (!progress) throw notFound('import');
      res.json(progress);
    }),
  );
  return router;
}
