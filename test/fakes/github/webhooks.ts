/** Signed webhook deliveries, as GitHub sends them. */
import { createHmac, randomUUID } from 'node:crypto';

/** The `x-hub-signature-256` header value for a raw body. */
export function signWebhook(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export interface WebhookDelivery {
  /** `x-github-event`, e.g. `pull_request`, `push`. */
  event: string;
  deliveryId?: string;
  payload: unknown;
  secret: string;
}

/** POSTs a signed delivery to `targetUrl` and returns the receiver's answer. */
export async function deliverWebhook(targetUrl: string, delivery: WebhookDelivery): Promise<{ status: number; body: string }> {
  const body = JSON.stringify(delivery.payload);
  const res = await fetch(targetUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/fake',
      'x-github-event': delivery.event,
      'x-github-delivery': delivery.deliveryId ?? randomUUID(),
      'x-github-hook-id': '1',
      'x-hub-signature-256': signWebhook(delivery.secret, body),
    },
    body,
  });
  return { status: res.status, body: await res.text() };
}
