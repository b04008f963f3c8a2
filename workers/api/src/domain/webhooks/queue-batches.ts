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

/**
 * What a value weighs as a Queue message: messages go as JSON (`contentType: "json"`), so this is
 * exact, escapes included. (The default, V8 serialization, stores a string with a single character
 * above U+00FF in two bytes a character: a payload's size could double unseen.)
 */
export const jsonBytes = (value: unknown) => utf8Bytes(JSON.stringify(value));

/** A message to send, its weight (`jsonBytes` of the body) known; with its own delay, if any. */
export interface SizedMessage<Body> {
  body: Body;
  bytes: number;
  delaySeconds?: number;
}

/** Sends messages as JSON in as few batches as the Queue's limits allow. */
export async function sendInBatches<Body>(queue: Queue<Body>, messages: SizedMessage<Body>[]): Promise<void> {
  let batch: MessageSendRequest<Body>[] = [];
  let bytes = 0;
  for (const { body, bytes: size, delaySeconds } of messages) {
    if (batch.length === maxMessages || (batch.length > 0 && bytes + size > maxBytes)) {
      await queue.sendBatch(batch);
      batch = [];
      bytes = 0;
    }
    batch.push({ body, contentType: "json", ...(delaySeconds === undefined ? {} : { delaySeconds }) });
    bytes += size;
  }
  if (batch.length > 0) await queue.sendBatch(batch);
}
