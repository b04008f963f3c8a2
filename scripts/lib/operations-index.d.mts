/** docs/operations.md as the route catalogue and the source tree make it now. */
export function operationsIndexMarkdown(): Promise<string>;
