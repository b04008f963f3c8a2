/** A parsed JSON-RPC message's members are read only once they are known to be an object's. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
