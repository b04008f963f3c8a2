import { openApiDocument } from "@crm/contracts";

const documents = new Map<string, ReturnType<typeof openApiDocument>>();

/** The document is generated once per isolate and origin; the catalogue does not change at run time. */
export function openApiDocumentFor(origin: string) {
  let document = documents.get(origin);
  if (!document) {
    document = openApiDocument(origin);
    documents.set(origin, document);
  }
  return document;
}
