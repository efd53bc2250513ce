/**
 * What the MCP tools need from Engram: the four read operations, with the contract's request and
 * response types (Shape A). `@engram/sdk`'s client satisfies it over HTTP (`engram mcp` on stdio); the
 * api implements it in-process for `/mcp`.
 */
import type { z } from 'zod';
import type { ContentsResponseA, FindSimilarRequest, FindSimilarResponseA, RelatedRequest, RelatedResponse, SearchRequest, SearchResponseA } from '@engram/contracts';

export interface EngramPort {
  search(request: z.input<typeof SearchRequest>): Promise<z.infer<typeof SearchResponseA>>;
  contents(ids: string[]): Promise<z.infer<typeof ContentsResponseA>>;
  findSimilar(request: z.input<typeof FindSimilarRequest>): Promise<z.infer<typeof FindSimilarResponseA>>;
  related(request: z.input<typeof RelatedRequest>): Promise<z.infer<typeof RelatedResponse>>;
}

/** The documented error of an operation, as the SDK's `EngramError` (or any port) raises it. */
export interface PortError {
  code?: string;
  status?: number;
  message: string;
  requestId?: string;
}
