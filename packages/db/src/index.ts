export * as control from "./control";
export { newId } from "./ids";
export * as regional from "./regional/index";
