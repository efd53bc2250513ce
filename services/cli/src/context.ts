import type { AdminClient } from './client.js';
import type { Output } from './output.js';

export interface Context {
  client: AdminClient;
  out: Output;
}
