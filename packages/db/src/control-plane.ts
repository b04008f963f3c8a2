// Every table of the control D1, as one namespace (`control` in index.ts). The files it gathers import
// `control.ts` for the organizations and users they refer to, never this file.
export * from "./control";
export * from "./control-console";
export * from "./control-identity";
export * from "./control-sso";
