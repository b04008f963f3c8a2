import type { operations } from "@crm/contracts";
import { assertRecordIn } from "../../domain/records/service";
import type { OperationHandler } from "../../handler";

export const assertRecord: OperationHandler<typeof operations.assertRecord> = async (c) => {
  const { matchingField } = c.req.valid("query");
  const { record, created } = await assertRecordIn(c.var, matchingField, c.req.valid("json"));
  return created ? c.json({ record }, 201) : c.json({ record }, 200);
};
