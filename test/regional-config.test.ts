import { regionShards, shardDatabaseName } from "@crm/contracts";
import { describe, expect, it } from "vitest";
import { devSwitches, regionalWorkerConfig } from "../workers/api/wrangler-template";

/** The regional Workers' wrangler configuration, made from one template for every region and shard. */

const productionIds = Object.fromEntries(
  (["us", "eu"] as const).flatMap((region) =>
    Array.from({ length: regionShards[region] }, (_, index) => [
      shardDatabaseName(region, index + 1),
      `id-${region}-${index + 1}`,
    ]),
  ),
);

describe("the regional Worker's wrangler template", () => {
  it("binds every shard of the region, with the region's own queues and bucket", () => {
    const us = regionalWorkerConfig("us", { environment: "local" });
    expect(us.d1_databases.map((database) => [database.binding, database.database_name])).toEqual([
      ["DB_1", "crm-us-1"],
      ["DB_2", "crm-us-2"],
    ]);
    expect(us.queues.producers.map((queue) => queue.queue)).toEqual([
      "crm-events-us",
      "crm-deliveries-us",
      "crm-deliveries-dead-us",
    ]);
    const eu = regionalWorkerConfig("eu", { environment: "local" });
    expect(eu.d1_databases.map((database) => database.binding)).toEqual(["DB_1"]);
    expect(eu.r2_buckets).toEqual([{ binding: "ATTACHMENTS", bucket_name: "crm-attachments-eu", jurisdiction: "eu" }]);
  });

  it("takes the real database ids in production and refuses to build without one", () => {
    const us = regionalWorkerConfig("us", { environment: "production", databaseIds: productionIds });
    expect(us.d1_databases.map((database) => database.database_id)).toEqual(["id-us-1", "id-us-2"]);
    expect(() => regionalWorkerConfig("us", { environment: "production", databaseIds: { "crm-us-1": "id" } })).toThrow(
      /no database id for crm-us-2/,
    );
  });

  it.each(devSwitches)("fails a production build that sets the development switch %s", (name) => {
    const build = () =>
      regionalWorkerConfig("eu", { environment: "production", databaseIds: productionIds, vars: { [name]: "true" } });
    expect(build).toThrow(new RegExp(`${name} is a development switch`));
    // The same variables are what local development and tests run with.
    expect(regionalWorkerConfig("eu", { environment: "local", vars: { [name]: "true" } }).vars).toMatchObject({ [name]: "true" });
  });
});
