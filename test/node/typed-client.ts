import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { openApiDocument } from "@crm/contracts";
import openapiTS, { astToString } from "openapi-typescript";

/** The OpenAPI document as a client downloads it from `/openapi.json`. */
export const publicDocument = openApiDocument("https://api.crm.example");

/**
 * A client module as a new user writes one: `paths` generated from the OpenAPI document with
 * openapi-typescript beside it (`./api`), the module itself calling the API with openapi-fetch.
 * Written under `outDir` (in `.wrangler/`, never committed), so that `typeCheck` checks it the way
 * the user's compiler would and the test imports it.
 */
export async function writeTypedClient(outDir: string, clientModule: string): Promise<string> {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(`${outDir}/api.d.ts`, astToString(await openapiTS(publicDocument as Parameters<typeof openapiTS>[0])));
  writeFileSync(`${outDir}/client.ts`, clientModule);
  writeFileSync(
    `${outDir}/tsconfig.json`,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "Bundler",
        lib: ["ES2024", "DOM"],
        types: [],
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
      },
      include: ["."],
    }),
  );
  return resolve(outDir, "client.ts");
}

/** What `tsc` says of the module and the generated types: "" when they type-check. */
export function typeCheck(outDir: string): string {
  try {
    execFileSync("tsc", ["-p", `${outDir}/tsconfig.json`], { encoding: "utf8", stdio: "pipe" });
    return "";
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}
