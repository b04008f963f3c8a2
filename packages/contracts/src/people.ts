import { z } from "@hono/zod-openapi";
import { idSchema } from "./ids";
import { outputText } from "./strings";

/**
 * A person shown inside a resource (conversation and task assignees): who it is, in the words the
 * workspace's members directory (`GET /workspaces/{workspaceId}/members`) uses, read from the same
 * place when the resource is read, so a changed name shows everywhere at once.
 */
export const personSchema = z
  .object({
    id: idSchema("usr"),
    name: outputText(),
    email: z.string().max(254).openapi({ format: "email", example: "bob@acme.example" }),
  })
  .openapi("Person", { example: { id: "usr_01jd5q0m4x8r2w3y6z7a9b", name: "Bob Baker", email: "bob@acme.example" } });

export type Person = z.infer<typeof personSchema>;
