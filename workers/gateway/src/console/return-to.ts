/** Where the console goes after sign-in when no (acceptable) `return_to` was given. */
export const consoleHome = "/console/api-keys";
const base = "https://console.invalid";
/**
 * Room for the longest authorization request the OAuth server accepts (a 1024-character state, a
 * 2000-character redirect URI, each percent-encoded), so signing in on the way never loses it.
 */
export const maxReturnToLength = 8192;

/**
 * The `return_to` of a sign-in, reduced to a path of this origin: the OAuth consent flow sends users
 * here and gets them back, and nothing else may. Absolute URLs, protocol-relative `//host`, backslash
 * tricks (`/\host`, which browsers read as `//host`), spaces and control characters fall back to the console.
 */
export function safeReturnTo(value: string | null | undefined): string {
  if (!value || value.length > maxReturnToLength || !value.startsWith("/") || value.startsWith("//")) return consoleHome;
  if (value.includes("\\") || [...value].some((character) => character <= " " || character === "\u007f")) return consoleHome;
  try {
    const url = new URL(value, base);
    // Dot segments can collapse to a path of `//host` (`/.//evil.example`), which a browser reads as another site.
    if (url.origin !== base || url.pathname.startsWith("//")) return consoleHome;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return consoleHome;
  }
}
