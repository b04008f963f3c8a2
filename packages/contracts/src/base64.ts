/** Base64 (RFC 4648 section 4) of bytes, padded: what MIME, MCP blobs and Standard Webhooks signatures carry. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The bytes of base64 text; throws a `DOMException` when it is not base64. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** Base64url (RFC 4648 section 5) without padding: tokens, hashes and sealed values that travel in URLs and headers. */
export const toBase64Url = (bytes: Uint8Array): string =>
  toBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

export const fromBase64Url = (text: string): Uint8Array<ArrayBuffer> =>
  fromBase64(text.replaceAll("-", "+").replaceAll("_", "/"));
