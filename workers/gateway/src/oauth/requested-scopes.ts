import { isScope, type Scope } from "@crm/contracts";

/**
 * The scopes of a `scope` parameter (space-separated, RFC 6749 section 3.3), or the reason they
 * cannot be granted: none at all, or one that is not a public scope of the API.
 */
export function parseScopes(text: string | null): { scopes: Scope[] } | { problem: string } {
  const names = (text ?? "").split(" ").filter((name) => name !== "");
  if (names.length === 0) return { problem: "No scope was requested; ask for at least one scope of the API" };
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) return { problem: `Unsupported scope: ${unknown.slice(0, 5).join(", ")}` };
  return { scopes: [...new Set(names as Scope[])] };
}
