/**
 * `@linear/sdk`, loaded when a Linear connection first sends a request: its generated client is ~3 MB of
 * source and ~12 MB of a process's heap, which a deployment without Linear never needs.
 */
import type * as Sdk from '@linear/sdk';

type LinearSdk = typeof Sdk;

let loaded: LinearSdk | undefined;

export async function linearSdk(): Promise<LinearSdk> {
  return (loaded ??= await import('@linear/sdk'));
}

/**
 * The SDK if it is loaded. An error of the SDK's can only come from a request sent through it, so code that
 * classifies errors finds it loaded whenever the error is one of its own.
 */
export const loadedLinearSdk = (): LinearSdk | undefined => loaded;
