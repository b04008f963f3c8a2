/** A Queue takes at most 100 messages and 256 KB per `sendBatch`; this stays under both. */
const maxMessages = 100;
const maxBytes = 200_000;

/** The UTF-8 size of a string, as `TextEncoder` writes it, without encoding it. */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4; // a surrogate pair: one character outside the BMP
      i++;
    } else bytes += 3; // the rest of the BMP, and a lone surrogate, written as U+FFFD
  }
  return bytes;
}

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
