/** The OpenAPI document's template as JSON (`openApiTemplate()`), written at build time by scripts/write-bundled-catalogue.mjs. */
export declare const openApiTemplateJson: string;
