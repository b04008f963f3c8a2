import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { productionTargets, secretSpecs, standInIds } from "../../scripts/lib/deploy.ts";
import {
  type AccountState,
  type DeployTarget,
  deployOrder,
  overBudget,
  parseD1List,
  parseQueuesList,
  parseR2BucketList,
  parseSecretList,
  planDeployment,
} from "../../scripts/lib/deploy-plan.ts";

/** wrangler's outputs as it prints them (JSON where it has a JSON mode, its tables otherwise). */
const fixture = (name: string) => readFileSync(new URL(`fixtures/wrangler/${name}`, import.meta.url), "utf8");

/** The real production configurations (committed gateway file, regional template), with stand-in ids. */
const targets = productionTargets(standInIds(), "https://api.example.com");
const specs = secretSpecs("crm-gateway");

/** An account half provisioned by an earlier run that stopped: what the fixtures list. */
const halfway: AccountState = {
  databases: parseD1List(fixture("d1-list.json")),
  queues: [...parseQueuesList(fixture("queues-list-page-1.txt")), ...parseQueuesList(fixture("queues-list-page-2.txt"))],
  buckets: [
    ...parseR2BucketList(fixture("r2-bucket-list.txt"), null),
    ...parseR2BucketList(fixture("r2-bucket-list-eu.txt"), "eu"),
  ],
  workers: ["crm-gateway", "crm-api-us"],
  secrets: {
    "crm-gateway": parseSecretList(fixture("secret-list-gateway.json")),
    "crm-api-us": parseSecretList(fixture("secret-list-api-us.json")),
  },
};

describe("reading wrangler's outputs", () => {
  it("d1 list --json, the queues table, the bucket list and the secret list", () => {
    expect(halfway.databases).toEqual([
      { name: "crm-control", uuid: "5f0c2a9e-1b7d-4c3e-9a41-2d8e6f0b7c13" },
      { name: "crm-us-1", uuid: "a8e41c70-6d2f-4b95-8e3a-0c7f19d25b64" },
      { name: "billing-legacy", uuid: "0b9d7e3f-2c61-4a08-b5d4-8f1e6a7c9d20" },
    ]);
    expect(halfway.queues).toEqual(["crm-events-us", "crm-deliveries-us", "crm-deliveries-dead-us"]);
    expect(halfway.buckets).toEqual([
      { name: "crm-attachments-us", jurisdiction: null },
      { name: "crm-attachments-eu", jurisdiction: null },
    ]);
    expect(halfway.secrets["crm-gateway"]).toEqual(["GATEWAY_CONTEXT_SECRET_US", "IDENTITY_SECRET"]);
  });

  it("colours at a terminal do not change what is read", () => {
    const coloured = fixture("queues-list-page-1.txt").replaceAll("crm-events-us", "\u001b[37mcrm-events-us\u001b[39m");
    expect(parseQueuesList(coloured)[0]).toBe("crm-events-us");
    expect(parseR2BucketList("\u001b[37mname:\u001b[39m  \u001b[90mcrm-attachments-us\u001b[39m\n", null)).toEqual([
      { name: "crm-attachments-us", jurisdiction: null },
    ]);
  });

  it("refuses output that is not what it expects rather than planning from nothing", () => {
    expect(() => parseD1List('{"error":"Authentication error"}')).toThrow(/array/);
    expect(() => parseD1List('[{"name":"crm-us-1"}]')).toThrow(/uuid/);
    // A notice wrangler prints first is not part of the answer.
    expect(parseD1List(`▲ [WARNING] A newer version of wrangler is available\n${fixture("d1-list.json")}`)).toHaveLength(3);
  });
});

describe("the plan", () => {
  it("on an empty account creates every shard of every region, the eu ones in the EU jurisdiction", () => {
    const plan = planDeployment(targets, specs, { databases: [], queues: [], buckets: [], workers: [], secrets: {} });
    expect(plan.create.databases).toEqual([
      { name: "crm-control", jurisdiction: null },
      { name: "crm-eu-1", jurisdiction: "eu" },
      { name: "crm-us-1", jurisdiction: null },
      { name: "crm-us-2", jurisdiction: null },
    ]);
    expect(plan.create.queues).toEqual([
      "crm-deliveries-dead-eu",
      "crm-deliveries-dead-us",
      "crm-deliveries-eu",
      "crm-deliveries-us",
      "crm-events-eu",
      "crm-events-us",
    ]);
    expect(plan.create.buckets).toEqual([
      { name: "crm-attachments-eu", jurisdiction: "eu" },
      { name: "crm-attachments-us", jurisdiction: null },
    ]);
    expect(plan.secrets.map((step) => [step.spec.label, step.kind])).toEqual([
      ["GATEWAY_CONTEXT_SECRET (us)", "new"],
      ["GATEWAY_CONTEXT_SECRET (eu)", "new"],
      ["CURSOR_SECRET (us)", "new"],
      ["CURSOR_SECRET (eu)", "new"],
      ["IDENTITY_SECRET", "new"],
      ["SSO_STORE_SECRET", "new"],
    ]);
    expect(plan.migrations.map((migration) => migration.databaseName)).toEqual([
      "crm-control",
      "crm-us-1",
      "crm-us-2",
      "crm-eu-1",
    ]);
    // The gateway binds both regions and the docs-assets Worker, so they go first.
    expect(plan.deployOrder).toEqual(["crm-docs-assets", "crm-api-eu", "crm-api-us", "crm-gateway"]);
  });

  it("after a run that stopped halfway, only what is missing: nothing is created twice", () => {
    const plan = planDeployment(targets, specs, halfway);
    expect(plan.create.databases).toEqual([
      { name: "crm-eu-1", jurisdiction: "eu" },
      { name: "crm-us-2", jurisdiction: null },
    ]);
    expect(plan.create.queues).toEqual(["crm-deliveries-dead-eu", "crm-deliveries-eu", "crm-events-eu"]);
    // A bucket of that name outside the EU jurisdiction is not the eu region's bucket.
    expect(plan.create.buckets).toEqual([{ name: "crm-attachments-eu", jurisdiction: "eu" }]);
    const secrets = Object.fromEntries(plan.secrets.map((step) => [step.spec.label, step]));
    // The us region lacks its half of a secret the gateway already holds: it cannot be read back.
    expect(secrets["GATEWAY_CONTEXT_SECRET (us)"]).toMatchObject({
      kind: "partial",
      missing: [{ worker: "crm-api-us", name: "GATEWAY_CONTEXT_SECRET" }],
    });
    expect(secrets["GATEWAY_CONTEXT_SECRET (eu)"]?.kind).toBe("new");
    expect(secrets["CURSOR_SECRET (eu)"]?.kind).toBe("new");
    expect(secrets["CURSOR_SECRET (us)"]).toBeUndefined();
    expect(secrets.IDENTITY_SECRET).toBeUndefined();
    // Agreed with the identity service: typed in, never generated.
    expect(secrets.SSO_STORE_SECRET?.spec.generated).toBe(false);
    // Migrations always run: wrangler applies only those a database has not recorded.
    expect(plan.migrations).toHaveLength(4);
  });

  it("on a complete account has nothing to create and no secret to set", () => {
    const everything: AccountState = {
      databases: Object.entries(standInIds()).map(([name, uuid]) => ({ name, uuid })),
      queues: planDeployment(targets, specs, halfway).create.queues.concat(halfway.queues),
      buckets: [
        { name: "crm-attachments-us", jurisdiction: null },
        { name: "crm-attachments-eu", jurisdiction: "eu" },
      ],
      workers: ["crm-gateway", "crm-api-us", "crm-api-eu", "crm-docs-assets"],
      secrets: Object.fromEntries(
        ["crm-gateway", "crm-api-us", "crm-api-eu"].map((worker) => [
          worker,
          specs.flatMap((spec) => spec.holders.filter((holder) => holder.worker === worker).map((holder) => holder.name)),
        ]),
      ),
    };
    const plan = planDeployment(targets, specs, everything);
    expect(plan.create).toEqual({ databases: [], queues: [], buckets: [] });
    expect(plan.secrets).toEqual([]);
    expect(plan.placeholders).toEqual([]);
  });
});

describe("the deploy order", () => {
  const worker = (name: string, services: string[]): DeployTarget => ({
    config: { name, services: services.map((service) => ({ binding: service.toUpperCase(), service })) },
    configPath: `${name}.jsonc`,
    jurisdiction: null,
  });

  it("puts a Worker after those its service bindings name, ignoring Workers outside the deployment", () => {
    const order = deployOrder(
      [worker("gateway", ["api-us", "api-eu", "billing"]), worker("api-us", []), worker("api-eu", [])],
      [],
    );
    expect(order).toEqual({ order: ["api-eu", "api-us", "gateway"], placeholders: [] });
  });

  it("breaks a cycle at the Worker the others name most, with a placeholder only while it does not exist", () => {
    const cycle = [worker("gateway", ["api-us", "api-eu"]), worker("api-us", ["gateway"]), worker("api-eu", ["gateway"])];
    expect(deployOrder(cycle, [])).toEqual({ order: ["api-eu", "api-us", "gateway"], placeholders: ["gateway"] });
    expect(deployOrder(cycle, ["gateway", "api-us", "api-eu"])).toEqual({
      order: ["api-eu", "api-us", "gateway"],
      placeholders: [],
    });
  });
});

describe("the bundle budget", () => {
  it("names the Workers over 600 KiB gzipped, largest first", () => {
    const sizes = [
      { worker: "crm-gateway", gzipBytes: 600 * 1024 + 1 },
      { worker: "crm-api-us", gzipBytes: 600 * 1024 },
      { worker: "crm-api-eu", gzipBytes: 900 * 1024 },
    ];
    expect(overBudget(sizes).map((size) => size.worker)).toEqual(["crm-api-eu", "crm-gateway"]);
  });
});
