import { chargedUnitsHeader, operations } from "@crm/contracts";
import { describe, expect, it } from "vitest";
import { costOfResponse } from "./charge";

/** What a response costs: the operation's own units, or (for `costPer` operations) what the region reported, bounded. */
describe("costOfResponse", () => {
  const reported = (units: string) => new Response("{}", { headers: { [chargedUnitsHeader]: units } });

  it("charges a fixed-cost operation its units, whatever a response says", () => {
    const response = reported("4000");
    expect(costOfResponse(operations.createRecord, response)).toBe(40);
  });

  it("charges what the region reported for a batch, and takes the report off the response", () => {
    const response = reported("1200");
    expect(costOfResponse(operations.batchRecords, response)).toBe(1200);
    expect(response.headers.get(chargedUnitsHeader)).toBeNull();
    expect(costOfResponse(operations.batchRecords, reported("0"))).toBe(0);
  });

  it("falls back to one unit when the report is missing or not a whole number within 100 units", () => {
    for (const units of ["", "-40", "1.5", "4001", "forty", "1e3"])
      expect(costOfResponse(operations.batchRecords, reported(units)), units).toBe(40);
    expect(costOfResponse(operations.batchRecords, new Response("{}"))).toBe(40);
  });
});
