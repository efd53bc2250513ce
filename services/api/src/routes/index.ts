import type { Runtime } from '@engram/runtime';
import type { AppRoutes } from '../app.js';

/** Every router the api mounts. */
export function allRoutes(_runtime: Runtime): AppRoutes {
  return {};
}
