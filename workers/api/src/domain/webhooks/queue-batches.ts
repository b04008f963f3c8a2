/** A Queue takes at most 100 messages and 256 KB per `sendBatch`; this stays under both. */
const maxMessages = 100;
const maxBytes = 200_000;

/** Sends messages (each with its own delay, if any) in as few batches as the Queue's limits allow. */
export async function sendInBatches<Body>(
  queue: Queue<Body>,
  messages: { body: Body; delaySeconds?: number }[],
  sizeOf: (body: Body) => number,
): Promise<void> {
  let batch: typeof messages = [];
  let bytes = 0;
  for (const message of messages) {
    const size = sizeOf(message.body) + 200;
    if (batch.length === maxMessages || (batch.length > 0 && bytes + size > maxBytes)) {
      await queue.sendBatch(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(message);
    bytes += size;
  }
  if (batch.length > 0) await queue.sendBatch(batch);
}
