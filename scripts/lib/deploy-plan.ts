// What `npm run deploy` does, decided without touching the network: the resources the Workers'
// production configurations name, set against what the account already has (read from wrangler's own
// output), give the steps still to run. Pure functions over plain values, so the plan is unit-tested
// with wrangler's outputs as fixtures (test/node/deploy-plan.test.ts). Node runs this file as it is.
import { stripVTControlCharacters } from "node:util";

/** The parts of a wrangler configuration a deployment provisions, as `wrangler.toml` / the template write them. */
export interface WorkerConfig {
  name: string;
  /** The script; an assets-only Worker has none (its `assets` are all it serves). */
  main?: string;
  assets?: { directory: string };
  compatibility_date?: string;
  vars?: Record<string, unknown>;
  d1_databases?: { binding: string; database_name: string; database_id?: string }[];
  r2_buckets?: { binding: string; bucket_name: string; jurisdiction?: string }[];
  queues?: {
    producers?: { binding: string; queue: string }[];
    consumers?: { queue: string; dead_letter_queue?: string }[];
  };
  services?: { binding: string; service: string }[];
}

/** One Worker to deploy: its configuration and the file wrangler reads it from. */
export interface DeployTarget {
  config: WorkerConfig;
  configPath: string;
  /**
   * The data-residency jurisdiction of the Worker's databases and buckets (`eu` for the eu region):
   * a D1 binding cannot say it, so the Worker's region does.
   */
  jurisdiction: string | null;
}

/** A secret shared by every holder (the same value under each Worker's own name). */
export interface SecretSpec {
  /** How the plan and the prompt name it. */
  label: string;
  holders: { worker: string; name: string }[];
  /** Random bytes serve (a secret only these Workers use); otherwise someone must type it in. */
  generated: boolean;
}

export interface Resource {
  name: string;
  jurisdiction: string | null;
}

/** What the account has, as wrangler lists it. */
export interface AccountState {
  databases: { name: string; uuid: string }[];
  queues: string[];
  buckets: Resource[];
  /** The Workers deployed already. */
  workers: string[];
  /** Secret names per deployed Worker. */
  secrets: Record<string, string[]>;
}

export interface SecretStep {
  spec: SecretSpec;
  /** Holders that lack it. */
  missing: { worker: string; name: string }[];
  /**
   * `new`: no holder has it yet (generated, or typed in); `partial`: some holders have it, and since a
   * secret cannot be read back, its value must be typed in again (or every holder gets a new one).
   */
  kind: "new" | "partial";
}

export interface DeployPlan {
  create: { databases: Resource[]; queues: string[]; buckets: Resource[] };
  secrets: SecretStep[];
  /** Every database, in the order migrations are applied (`wrangler d1 migrations apply --remote`). */
  migrations: { databaseName: string; configPath: string }[];
  /** Workers in dependency order: a Worker after every Worker its service bindings name. */
  deployOrder: string[];
  /** Workers a cycle of bindings needs to exist before their turn: a placeholder of each goes first. */
  placeholders: string[];
}

/** Each Worker must stay within this, gzipped, as it would be uploaded (issue 17; the platform's own cap is larger). */
export const bundleBudgetBytes = 600 * 1024;

const byName = <T extends { name: string }>(items: T[]) => [...items].sort((a, b) => a.name.localeCompare(b.name));
const unique = <T>(items: T[], key: (item: T) => string) => [...new Map(items.map((item) => [key(item), item])).values()];

/** Databases, queues (dead-letter queues included) and buckets the Workers' configurations name. */
export function requiredResources(targets: DeployTarget[]) {
  const databases = targets.flatMap(({ config, jurisdiction }) =>
    (config.d1_databases ?? []).map((database) => ({ name: database.database_name, jurisdiction })),
  );
  const queues = targets.flatMap(({ config }) => [
    ...(config.queues?.producers ?? []).map((producer) => producer.queue),
    ...(config.queues?.consumers ?? []).flatMap((consumer) => [consumer.queue, consumer.dead_letter_queue ?? []].flat()),
  ]);
  const buckets = targets.flatMap(({ config }) =>
    (config.r2_buckets ?? []).map((bucket) => ({ name: bucket.bucket_name, jurisdiction: bucket.jurisdiction ?? null })),
  );
  return {
    databases: byName(unique(databases, (database) => database.name)),
    queues: [...new Set(queues)].sort(),
    buckets: byName(unique(buckets, (bucket) => `${bucket.jurisdiction}/${bucket.name}`)),
  };
}

/**
 * Workers ordered so that each comes after the Workers its service bindings name: the platform refuses
 * a binding to a Worker that does not exist. Bindings to Workers outside the deployment are ignored. A
 * cycle (the gateway binds each region, each region binds the gateway for its MCP paths) is broken at
 * the Worker the others name most: the Workers that bind it may go first, and if it does not exist yet,
 * a placeholder of it is deployed before them (then replaced by the real one in its turn).
 */
export function deployOrder(targets: DeployTarget[], existingWorkers: string[]): { order: string[]; placeholders: string[] } {
  const names = new Set(targets.map((target) => target.config.name));
  const dependencies = new Map(
    targets.map((target) => [
      target.config.name,
      (target.config.services ?? []).map((service) => service.service).filter((name) => names.has(name)),
    ]),
  );
  const order: string[] = [];
  const bindable = new Set<string>();
  const placeholders: string[] = [];
  while (order.length < names.size) {
    const pending = [...names].filter((name) => !order.includes(name)).sort();
    const ready = pending.filter((name) =>
      (dependencies.get(name) ?? []).every((need) => order.includes(need) || bindable.has(need)),
    );
    if (ready.length > 0) {
      order.push(...ready);
      continue;
    }
    const namedBy = (name: string) => pending.filter((other) => (dependencies.get(other) ?? []).includes(name)).length;
    const breaker = [...pending].sort((a, b) => namedBy(b) - namedBy(a))[0] as string;
    bindable.add(breaker);
    if (!existingWorkers.includes(breaker)) placeholders.push(breaker);
  }
  return { order, placeholders };
}

function secretSteps(specs: SecretSpec[], existing: AccountState["secrets"]): SecretStep[] {
  return specs.flatMap((spec) => {
    const missing = spec.holders.filter((holder) => !(existing[holder.worker] ?? []).includes(holder.name));
    if (missing.length === 0) return [];
    return [{ spec, missing, kind: missing.length === spec.holders.length ? ("new" as const) : ("partial" as const) }];
  });
}

/** The steps that bring the account to what the configurations need; nothing is created twice. */
export function planDeployment(targets: DeployTarget[], specs: SecretSpec[], existing: AccountState): DeployPlan {
  const required = requiredResources(targets);
  const databaseNames = new Set(existing.databases.map((database) => database.name));
  const queueNames = new Set(existing.queues);
  const bucketKeys = new Set(existing.buckets.map((bucket) => `${bucket.jurisdiction}/${bucket.name}`));
  const { order, placeholders } = deployOrder(targets, existing.workers);
  return {
    create: {
      databases: required.databases.filter((database) => !databaseNames.has(database.name)),
      queues: required.queues.filter((queue) => !queueNames.has(queue)),
      buckets: required.buckets.filter((bucket) => !bucketKeys.has(`${bucket.jurisdiction}/${bucket.name}`)),
    },
    secrets: secretSteps(specs, existing.secrets),
    migrations: targets.flatMap(({ config, configPath }) =>
      (config.d1_databases ?? []).map((database) => ({ databaseName: database.database_name, configPath })),
    ),
    deployOrder: order,
    placeholders,
  };
}

/** The plan in words, one step a line, as the deploy prints it before doing anything. */
export function describePlan(plan: DeployPlan): string {
  const jurisdiction = (resource: Resource) => (resource.jurisdiction ? ` --jurisdiction ${resource.jurisdiction}` : "");
  const lines = [
    ...plan.create.databases.map((database) => `create D1 database ${database.name}${jurisdiction(database)}`),
    ...plan.create.queues.map((queue) => `create queue ${queue}`),
    ...plan.create.buckets.map((bucket) => `create R2 bucket ${bucket.name}${jurisdiction(bucket)}`),
    ...plan.secrets.map(
      (step) =>
        `set secret ${step.spec.label} on ${step.missing.map((holder) => `${holder.worker} (${holder.name})`).join(", ")}: ${
          step.kind === "partial"
            ? "other holders have it: type its value, or give every holder a new one"
            : step.spec.generated
              ? "generated unless typed in"
              : "typed in"
        }`,
    ),
    ...plan.migrations.map((migration) => `apply pending migrations to ${migration.databaseName} (remote)`),
    ...plan.placeholders.map(
      (worker) => `deploy a placeholder ${worker} (answers 503) so that the Workers binding it can go first`,
    ),
    ...plan.deployOrder.map((worker, index) => `deploy ${worker} (${index + 1} of ${plan.deployOrder.length})`),
  ];
  return lines.map((line) => `  - ${line}`).join("\n");
}

/** The JSON array a command printed, after any line wrangler writes before it (an update notice, a warning). */
function jsonArray(output: string, command: string): unknown[] {
  const start = output.search(/^\[/m);
  const value: unknown = start < 0 ? null : JSON.parse(output.slice(start));
  if (!Array.isArray(value)) throw new Error(`${command} did not answer an array`);
  return value;
}

/** `wrangler d1 list --json`: an array of `{ uuid, name, created_at, version, num_tables, file_size, … }`. */
export function parseD1List(output: string): AccountState["databases"] {
  const databases = jsonArray(output, "wrangler d1 list --json") as { uuid?: unknown; name?: unknown }[];
  return databases.map((database) => {
    if (typeof database.uuid !== "string" || typeof database.name !== "string")
      throw new Error("wrangler d1 list --json: a database without uuid or name");
    return { uuid: database.uuid, name: database.name };
  });
}

/** Wrangler colours its output at a terminal; the parsers read the text. */
const plain = (output: string) => stripVTControlCharacters(output);

/** The cells of a table wrangler prints (cli-table3: `│ id │ name │ … │` rows between box-drawing rules). */
function tableRows(output: string): Record<string, string>[] {
  const rows = plain(output)
    .split("\n")
    .filter((line) => line.trimStart().startsWith("│"))
    .map((line) =>
      line
        .trim()
        .slice(1, -1)
        .split("│")
        .map((cell) => cell.trim()),
    );
  const [head, ...body] = rows;
  if (!head) return [];
  return body.map((cells) => Object.fromEntries(head.map((column, index) => [column, cells[index] ?? ""])));
}

/** `wrangler queues list [--page n]`: a table with columns id, name, created_on, modified_on, producers, consumers. */
export function parseQueuesList(output: string): string[] {
  return tableRows(output)
    .map((row) => row.name ?? "")
    .filter(Boolean);
}

/** `wrangler r2 bucket list [--jurisdiction j]`: one `name: …` / `creation_date: …` block per bucket. */
export function parseR2BucketList(output: string, jurisdiction: string | null): Resource[] {
  return [...plain(output).matchAll(/^name:\s+(\S+)\s*$/gm)].map((match) => ({ name: match[1] as string, jurisdiction }));
}

/** `wrangler secret list --format json`: `[{ "name": "…", "type": "secret_text" }]`. */
export function parseSecretList(output: string): string[] {
  const secrets = jsonArray(output, "wrangler secret list") as { name?: unknown }[];
  return secrets.map((secret) => String(secret.name));
}

/** Files of a bundle that are uploaded (source maps and wrangler's README are not). */
export const uploadedFile = (name: string) => !name.endsWith(".map") && name !== "README.md";

/** The Workers over budget, with their sizes, largest first. */
export function overBudget(sizes: { worker: string; gzipBytes: number }[], budget = bundleBudgetBytes) {
  return sizes.filter((size) => size.gzipBytes > budget).sort((a, b) => b.gzipBytes - a.gzipBytes);
}
