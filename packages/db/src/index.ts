export * as control from "./control";
export { newId } from "./ids";
export { insertRowsAsJson, rowJson, rowsFromJson } from "./json-rows";
export * as regional from "./regional/index";
