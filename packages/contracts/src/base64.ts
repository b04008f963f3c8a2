// Every request runs both directions (the gateway signs an actor context, the region verifies it):
// chunked `fromCharCode` and an indexed loop are several times faster than a string concatenation a
// byte or `Uint8Array.from` with a callback a character (issue 30's profile of the region).
const chunkBytes = 8192;

/** Base64 (RFC 4648 section 4) of bytes, padded: what MIME, MCP blobs and Standard Webhooks signatures carry. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let start = 0; start < bytes.length; start += chunkBytes)
    binary += String.fromCharCode(...bytes.subarray(start, start + chunkBytes));
  return btoa(binary);
}

/** The bytes of base64 text; throws a `DOMException` when it is not base64. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/**
 * The runtime's own base64url (`Uint8Array.prototype.toBase64`, `Uint8Array.fromBase64`), where it
 * has them: the Workers runtime does, Node 24 does not yet. Every request of the pipeline encodes
 * and decodes its actor context, and the native codec takes none of the string passes below.
 */
interface NativeBase64 {
  toBase64?: (this: Uint8Array, options: { alphabet: "base64url"; omitPadding: boolean }) => string;
}
const nativeFromBase64 = (
  Uint8Array as unknown as { fromBase64?: (text: string, options: { alphabet: "base64url" }) => Uint8Array<ArrayBuffer> }
).fromBase64;
const nativeToBase64 = (Uint8Array.prototype as NativeBase64).toBase64;

/** Base64url (RFC 4648 section 5) without padding: tokens, hashes and sealed values that travel in URLs and headers. */
export const toBase64Url = (bytes: Uint8Array): string =>
  nativeToBase64
    ? nativeToBase64.call(bytes, { alphabet: "base64url", omitPadding: true })
    : toBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

/** The bytes of base64url text (padded or not); throws when it is not base64url. */
export const fromBase64Url = (text: string): Uint8Array<ArrayBuffer> =>
  nativeFromBase64
    ? nativeFromBase64(text, { alphabet: "base64url" })
    : fromBase64(text.replaceAll("-", "+").replaceAll("_", "/"));
