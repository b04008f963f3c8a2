/**
 * Where the region's bucket keeps inbox bytes. Attachments are keyed by their own id, so the
 * object can be written before the message row that names it; the raw MIME of a sent message is
 * kept per recipient (each copy carries that recipient's unsubscribe link), under the message's id.
 */
export const attachmentKey = (attachmentId: string) => `attachments/${attachmentId}`;

export const sentMimeKey = (messageId: string, recipient: string) => `sent/${messageId}/${recipient}.eml`;
