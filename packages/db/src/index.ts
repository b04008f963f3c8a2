export * as control from "./control";
export * as regional from "./regional";
export { newId } from "./ids";
