import { regional } from "@crm/db";
import { and, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type ErrorBody, errorOf, expectStatus, unique } from "./crm";
import { countRows, outboxCount } from "./fixtures";
import { crmWorkspace } from "./inbox";
import { rawToolCall, resultText, structured } from "./mcp";
import { call, eventually } from "./stack";

interface CrmRecord {
  id: string;
  objectTypeId: string;
  fields: Record<string, unknown>;
}

interface BatchResult {
  index: number;
  status: number;
  record?: CrmRecord;
  error?: ErrorBody["error"] & { requestId: string; details?: unknown };
}

type Workspace = Awaited<ReturnType<typeof crmWorkspace>>;

const batch = (workspace: Workspace, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call("/records/batch", { method: "POST", key: workspace.key, json: body, headers });

async function results(response: Response): Promise<BatchResult[]> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { results: BatchResult[] }).results;
}

describe("POST /records/batch", () => {
  it("writes the valid items, answers each invalid one with the error it gets alone, and emits one event per record written", async () => {
    const workspace = await crmWorkspace();
    const taken = `taken-${unique()}@example.com`;
    const existing = await expectStatus<{ record: CrmRecord }>(201, "/records", {
      method: "POST",
      key: workspace.key,
      json: { objectTypeId: workspace.peopleId, fields: { name: "Taken", email: taken } },
    });
    const alone = await expectStatus<ErrorBody>(400, "/records", {
      method: "POST",
      key: workspace.key,
      json: { objectTypeId: workspace.peopleId, fields: { name: "Bad", email: "not an address" } },
    });
    const response = await batch(workspace, {
      objectTypeId: workspace.peopleId,
      operation: "create",
      records: [
        { fields: { name: "Ada Lovelace", email: `ada-${unique()}@example.com` } },
        { fields: { name: "Bad", email: "not an address" } },
        { fields: { name: "Nobody", shoe_size: 42 } },
        { fields: { name: "Copy", email: ` ${taken.toUpperCase()} ` } },
        { fields: { email: `nameless-${unique()}@example.com` } },
        { fields: { name: "Grace Hopper" } },
      ],
    });
    // Two records written: 0.4 each.
    expect(response.headers.get("x-token-cost")).toBe("0.8");
    // The region's report of the units is the gateway's alone.
    expect(response.headers.get("x-charged-cost-units")).toBeNull();
    const answered = await results(response);
    expect(answered.map((result) => [result.index, result.status])).toEqual([
      [0, 201],
      [1, 400],
      [2, 400],
      [3, 409],
      [4, 400],
      [5, 201],
    ]);
    const { requestId: _alone, ...aloneError } = alone.error as ErrorBody["error"] & { requestId: string };
    const { requestId, ...itemError } = (answered[1] as BatchResult).error as NonNullable<BatchResult["error"]>;
    expect(itemError).toEqual(aloneError);
    expect(requestId).toBe(response.headers.get("x-request-id"));
    expect(answered[2]?.error).toMatchObject({
      code: "invalid_request",
      details: [{ path: "body.fields.shoe_size", message: "Not a field of this object type" }],
    });
    expect(answered[3]?.error).toMatchObject({
      code: "identity_conflict",
      details: { matches: [{ recordId: existing.record.id, field: "email", value: taken }] },
    });
    expect(answered[4]?.error).toMatchObject({
      code: "invalid_request",
      details: [{ path: "body.fields.name", message: "Required" }],
    });
    for (const result of answered.filter((result) => result.status === 201)) {
      const { record } = await expectStatus<{ record: CrmRecord }>(200, `/records/${result.record?.id}`, { key: workspace.key });
      expect(record).toEqual(result.record);
      expect(await outboxCount("record.created", record.id)).toBe(1);
    }
    const live = await countRows(
      "us",
      regional.records,
      and(eq(regional.records.workspaceId, workspace.workspaceId), isNull(regional.records.deletedAt)),
    );
    expect(live).toBe(3);
  });

  it("takes 100 items in one request, refuses 101 whole, and charges the sum in the usage ledger", async () => {
    const workspace = await crmWorkspace();
    const hundred = Array.from({ length: 100 }, (_, i) => ({
      fields: { name: `Person ${i}`, email: `p${i}-${unique()}@example.com` },
    }));
    const response = await batch(workspace, { objectTypeId: workspace.peopleId, operation: "create", records: hundred });
    expect(response.headers.get("x-token-cost")).toBe("40");
    const answered = await results(response);
    expect(answered.map((result) => result.status)).toEqual(Array(100).fill(201));
    expect(answered.map((result) => result.record?.fields.name)).toEqual(hundred.map((item) => item.fields.name));

    const tooMany = await batch(workspace, {
      objectTypeId: workspace.peopleId,
      operation: "create",
      records: [...hundred, { fields: { name: "One more" } }],
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.headers.get("x-token-cost")).toBe("0");
    expect((await errorOf(tooMany)).details).toEqual([expect.objectContaining({ path: "body.records" })]);
    const report = await eventually(
      async () =>
        (await (await call("/usage", { key: workspace.key })).json()) as {
          data: { route: string; requests: number; costUnits: number }[];
        },
      (report) => report.data.some((row) => row.route === "POST /records/batch"),
    );
    expect(report.data.find((row) => row.route === "POST /records/batch")).toMatchObject({ requests: 1, costUnits: 4000 });
  });

  it("refuses a body of another shape whole", async () => {
    const workspace = await crmWorkspace();
    const record = { fields: { name: "Ada" } };
    for (const [body, path] of [
      [{ objectTypeId: workspace.peopleId, operation: "create", records: [] }, "body.records"],
      [{ objectTypeId: workspace.peopleId, operation: "update", records: [record] }, "body.records.0.id"],
      [
        { objectTypeId: workspace.peopleId, operation: "create", records: [{ ...record, id: "rec_0000000000000000000000000" }] },
        "body.records.0.id",
      ],
      [{ objectTypeId: workspace.peopleId, operation: "upsert", records: [record] }, "body.matchingField"],
      [
        { objectTypeId: workspace.peopleId, operation: "create", matchingField: "email", records: [record] },
        "body.matchingField",
      ],
      [{ objectTypeId: workspace.peopleId, operation: "delete", records: [record] }, "body.operation"],
      [{ objectTypeId: workspace.peopleId, operation: "create", records: [{ fields: {} }] }, "body.records.0.fields"],
      [{ objectTypeId: workspace.peopleId, operation: "create", records: [{ ...record, extra: 1 }] }, "body.records.0.extra"],
      [{ objectTypeId: workspace.peopleId, operation: "create", records: "Ada" }, "body.records"],
      [
        { objectTypeId: workspace.peopleId, operation: "upsert", matchingField: "name", records: [record] },
        // The batch carries matchingField in its body (PUT /records takes it in the query).
        "body.matchingField",
      ],
    ] as const) {
      const response = await batch(workspace, body as Record<string, unknown>);
      const error = await errorOf(response);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(error.details?.map((detail) => detail.path)).toContain(path);
    }
    expect(await countRows("us", regional.records, eq(regional.records.workspaceId, workspace.workspaceId))).toBe(0);
  });

  it("answers the second of two items with one identity 409, naming the first", async () => {
    const workspace = await crmWorkspace();
    const email = `twice-${unique()}@example.com`;
    const answered = await results(
      await batch(workspace, {
        objectTypeId: workspace.peopleId,
        operation: "create",
        records: [{ fields: { name: "First", email } }, { fields: { name: "Second", email: email.toUpperCase() } }],
      }),
    );
    expect(answered[0]?.status).toBe(201);
    expect(answered[1]).toMatchObject({
      status: 409,
      error: {
        code: "identity_conflict",
        details: { matches: [{ recordId: answered[0]?.record?.id, field: "email", index: 0 }] },
      },
    });
  });

  it("updates by id: unknown ids 404 alone, a record named twice 409, changedFields in each event", async () => {
    const workspace = await crmWorkspace();
    const created = await results(
      await batch(workspace, {
        objectTypeId: workspace.peopleId,
        operation: "create",
        records: [{ fields: { name: "Ada" } }, { fields: { name: "Grace" } }],
      }),
    );
    const [ada, grace] = created.map((result) => result.record as CrmRecord);
    const answered = await results(
      await batch(workspace, {
        objectTypeId: workspace.peopleId,
        operation: "update",
        records: [
          { id: ada?.id, fields: { job_title: "Analyst" } },
          { id: "rec_00000000000000000000000000", fields: { name: "Ghost" } },
          { id: grace?.id, fields: { name: "Grace Hopper" } },
          { id: ada?.id, fields: { name: "Ada again" } },
        ],
      }),
    );
    expect(answered.map((result) => result.status)).toEqual([200, 404, 200, 409]);
    expect(answered[0]?.record?.fields).toMatchObject({ name: "Ada", job_title: "Analyst" });
    expect(answered[2]?.record?.fields.name).toBe("Grace Hopper");
    expect(answered[3]?.error).toMatchObject({ code: "conflict", details: { index: 0 } });
    expect(await outboxCount("record.updated", ada?.id as string)).toBe(1);
    expect(await outboxCount("record.updated", grace?.id as string)).toBe(1);
  });

  it("upserts by a unique field: the holder is updated, a new value created, a missing value refused alone", async () => {
    const workspace = await crmWorkspace();
    const known = `known-${unique()}@example.com`;
    const { record } = await expectStatus<{ record: CrmRecord }>(201, "/records", {
      method: "POST",
      key: workspace.key,
      json: { objectTypeId: workspace.peopleId, fields: { name: "Known", email: known } },
    });
    const fresh = `fresh-${unique()}@example.com`;
    const answered = await results(
      await batch(workspace, {
        objectTypeId: workspace.peopleId,
        operation: "upsert",
        matchingField: "email",
        records: [
          { fields: { email: ` ${known.toUpperCase()}`, job_title: "Engineer" } },
          { fields: { name: "Fresh", email: fresh } },
          { fields: { name: "No e-mail" } },
          { fields: { name: "Known twice", email: known } },
        ],
      }),
    );
    expect(answered.map((result) => result.status)).toEqual([200, 201, 400, 409]);
    expect(answered[0]?.record).toMatchObject({ id: record.id, fields: { name: "Known", job_title: "Engineer" } });
    expect(answered[2]?.error).toMatchObject({ details: [{ path: "body.fields.email", message: "Expected an e-mail address" }] });
    expect(answered[3]?.error).toMatchObject({
      code: "identity_conflict",
      details: { matches: [{ recordId: record.id, index: 0 }] },
    });
  });

  it("replays the whole batch for the same Idempotency-Key: the same answer and cost, no second event", async () => {
    const workspace = await crmWorkspace();
    const body = {
      objectTypeId: workspace.peopleId,
      operation: "create",
      records: [{ fields: { name: "Once" } }, { fields: { name: "Bad", email: "nope" } }],
    };
    const headers = { "idempotency-key": `batch-${unique()}` };
    const first = await batch(workspace, body, headers);
    const firstBody = await first.text();
    const replay = await batch(workspace, body, headers);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.headers.get("x-token-cost")).toBe(first.headers.get("x-token-cost"));
    expect(replay.headers.get("x-token-cost")).toBe("0.4");
    expect(await replay.text()).toBe(firstBody);
    const [created] = (JSON.parse(firstBody) as { results: BatchResult[] }).results;
    expect(await outboxCount("record.created", created?.record?.id as string)).toBe(1);
    expect(await countRows("us", regional.records, eq(regional.records.workspaceId, workspace.workspaceId))).toBe(1);
    const reused = await batch(workspace, { ...body, records: [{ fields: { name: "Other" } }] }, headers);
    expect(reused.status).toBe(422);
  });

  it("never makes two live records of one identity, however many batches race for it", async () => {
    const workspace = await crmWorkspace();
    const emails = Array.from({ length: 10 }, (_, i) => `race${i}-${unique()}@example.com`);
    const racing = (operation: "create" | "upsert", name: string) =>
      batch(workspace, {
        objectTypeId: workspace.peopleId,
        operation,
        ...(operation === "upsert" ? { matchingField: "email" } : {}),
        records: emails.map((email) => ({ fields: { name, email } })),
      });
    const answers = await Promise.all([
      racing("create", "A"),
      racing("create", "B"),
      racing("upsert", "C"),
      racing("upsert", "D"),
    ]);
    const all = (await Promise.all(answers.map(results))).flat();
    expect(all.every((result) => [200, 201, 409].includes(result.status))).toBe(true);
    for (const [i, email] of emails.entries()) {
      const ofEmail = all.filter((result) => result.index === i);
      expect(ofEmail.filter((result) => result.status === 201)).toHaveLength(1);
      const holders = await countRows("us", regional.recordValues, eq(regional.recordValues.identityKey, email.toLowerCase()));
      expect(holders).toBe(1);
    }
    const live = await countRows(
      "us",
      regional.records,
      and(eq(regional.records.workspaceId, workspace.workspaceId), isNull(regional.records.deletedAt)),
    );
    expect(live).toBe(emails.length);
  });

  it("is the MCP tool records_batch, which requires an idempotencyKey as records_create does", async () => {
    const workspace = await crmWorkspace();
    const args = { objectTypeId: workspace.peopleId, operation: "create", records: [{ fields: { name: "By agent" } }] };
    const keyless = await rawToolCall(workspace.key, "records_batch", args);
    expect(keyless.isError).toBe(true);
    expect(resultText(keyless)).toContain("idempotencyKey");
    const idempotencyKey = crypto.randomUUID();
    const first = structured<{ results: BatchResult[] }>(
      await rawToolCall(workspace.key, "records_batch", { ...args, idempotencyKey }),
    );
    const retry = structured<{ results: BatchResult[] }>(
      await rawToolCall(workspace.key, "records_batch", { ...args, idempotencyKey }),
    );
    expect(retry).toEqual(first);
    expect(first.results.map((result) => result.status)).toEqual([201]);
    expect(await countRows("us", regional.records, eq(regional.records.workspaceId, workspace.workspaceId))).toBe(1);
  });
});
