export { rowsPerStatement, runBatch } from "./batch";
export * as control from "./control-plane";
export { databaseOf } from "./database-of";
export { newId } from "./ids";
export { inJsonList, insertRowsAsJson, rowJson, rowsFromJson } from "./json-rows";
export * as regional from "./regional/index";
