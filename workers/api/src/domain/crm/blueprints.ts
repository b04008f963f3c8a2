import type { FieldType } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../database";

const { objectTypes, fieldDefinitions, fieldOptions, recordViews } = regional;

/** What an object type starts with: its fields (with options) and its views. */
export interface FieldBlueprint {
  slug: string;
  name: string;
  type: FieldType;
  isRequired?: boolean;
  isUnique?: boolean;
  isSystem: boolean;
  isMultiple?: boolean;
  /** Slug of the object type a relation points at, in the same workspace. */
  relationTo?: string;
  options?: { value: string; label: string; color: string; isDefault?: boolean }[];
  defaultValue?: unknown;
}

export interface ObjectTypeBlueprint {
  slug: string;
  nameSingular: string;
  namePlural: string;
  icon?: string;
  color?: string;
  isSystem: boolean;
  fields: FieldBlueprint[];
  /** A kanban view over a select field, with the options counted as win and loss. */
  kanban?: { name: string; field: string; win: string[]; loss: string[] };
}

const stageColors = { lead: "#94a3b8", qualified: "#3b82f6", proposal: "#a855f7", won: "#22c55e", lost: "#ef4444" };

/** The system object types every workspace is created with (DESIGN.md section 6). */
export const systemObjectTypes: ObjectTypeBlueprint[] = [
  {
    slug: "people",
    nameSingular: "Person",
    namePlural: "People",
    icon: "user",
    color: "#3b82f6",
    isSystem: true,
    fields: [
      { slug: "name", name: "Name", type: "text", isRequired: true, isSystem: true },
      { slug: "email", name: "Email", type: "email", isUnique: true, isSystem: true },
      { slug: "phone", name: "Phone", type: "phone", isSystem: true },
      { slug: "job_title", name: "Job title", type: "text", isSystem: true },
      { slug: "company", name: "Company", type: "relation", relationTo: "companies", isSystem: true },
    ],
  },
  {
    slug: "companies",
    nameSingular: "Company",
    namePlural: "Companies",
    icon: "building",
    color: "#f97316",
    isSystem: true,
    fields: [
      { slug: "name", name: "Name", type: "text", isRequired: true, isSystem: true },
      { slug: "domain", name: "Domain", type: "domain", isUnique: true, isSystem: true },
      { slug: "industry", name: "Industry", type: "text", isSystem: true },
      { slug: "employees", name: "Employees", type: "number", isSystem: true },
    ],
  },
  {
    slug: "deals",
    nameSingular: "Deal",
    namePlural: "Deals",
    icon: "handshake",
    color: "#22c55e",
    isSystem: true,
    fields: [
      { slug: "name", name: "Name", type: "text", isRequired: true, isSystem: true },
      {
        slug: "stage",
        name: "Stage",
        type: "select",
        isSystem: true,
        options: Object.entries(stageColors).map(([value, color]) => ({
          value,
          label: value[0]?.toUpperCase() + value.slice(1),
          color,
          isDefault: value === "lead",
        })),
      },
      { slug: "amount", name: "Amount", type: "number", isSystem: true },
      { slug: "company", name: "Company", type: "relation", relationTo: "companies", isSystem: true },
      { slug: "close_date", name: "Close date", type: "date", isSystem: true },
    ],
    kanban: { name: "Pipeline", field: "stage", win: ["won"], loss: ["lost"] },
  },
];

/** A custom object type starts with a required `name` text field (its title, not deletable) and a table view. */
export const customObjectType = (input: Omit<ObjectTypeBlueprint, "fields" | "isSystem">): ObjectTypeBlueprint => ({
  ...input,
  isSystem: false,
  fields: [{ slug: "name", name: "Name", type: "text", isRequired: true, isSystem: true }],
});

export interface BlueprintContext {
  workspaceId: string;
  position: number;
  createdBy: string;
  now: number;
  /** Ids of the workspace's object types by slug, for relation fields (this type's own id is added). */
  objectTypeIds: Map<string, string>;
}

/** The statements that create one object type from its blueprint, for a D1 batch. */
export function objectTypeStatements(db: Database, blueprint: ObjectTypeBlueprint, context: BlueprintContext) {
  const { workspaceId, now } = context;
  const objectTypeId = context.objectTypeIds.get(blueprint.slug) ?? newId("obj", now);
  context.objectTypeIds.set(blueprint.slug, objectTypeId);
  const statements: BatchItem<"sqlite">[] = [
    db.insert(objectTypes).values({
      id: objectTypeId,
      workspaceId,
      slug: blueprint.slug,
      nameSingular: blueprint.nameSingular,
      namePlural: blueprint.namePlural,
      icon: blueprint.icon ?? null,
      color: blueprint.color ?? null,
      isSystem: blueprint.isSystem,
      isActive: true,
      position: context.position,
      createdAt: now,
      updatedAt: now,
    }),
  ];
  const fieldIds = new Map<string, string>();
  const optionIds = new Map<string, string>();
  blueprint.fields.forEach((field, position) => {
    const fieldId = newId("fld", now);
    fieldIds.set(field.slug, fieldId);
    statements.push(
      db.insert(fieldDefinitions).values({
        id: fieldId,
        objectTypeId,
        workspaceId,
        slug: field.slug,
        name: field.name,
        type: field.type,
        isRequired: field.isRequired ?? false,
        isUnique: field.isUnique ?? false,
        defaultValue: field.defaultValue ?? null,
        isSystem: field.isSystem,
        isMultiple: field.type === "multiselect" || (field.isMultiple ?? false),
        relationObjectTypeId: field.relationTo ? (context.objectTypeIds.get(field.relationTo) ?? null) : null,
        position,
        createdAt: now,
        updatedAt: now,
      }),
    );
    field.options?.forEach((option, optionPosition) => {
      const optionId = newId("opt", now);
      optionIds.set(`${field.slug}:${option.value}`, optionId);
      statements.push(
        db.insert(fieldOptions).values({
          id: optionId,
          fieldDefinitionId: fieldId,
          value: option.value,
          label: option.label,
          color: option.color,
          position: optionPosition,
          isDefault: option.isDefault ?? false,
          isActive: true,
          createdAt: now,
          updatedAt: now,
        }),
      );
    });
  });
  const columns = blueprint.fields.map((field) => ({ fieldDefinitionId: fieldIds.get(field.slug) as string }));
  const view = {
    workspaceId,
    objectTypeId,
    emoji: null,
    kanbanFieldDefinitionId: null,
    kanbanWinOptionIds: [],
    kanbanLossOptionIds: [],
    createdBy: context.createdBy,
    createdAt: now,
    updatedAt: now,
  };
  statements.push(
    db.insert(recordViews).values({
      ...view,
      id: newId("view", now),
      name: `All ${blueprint.namePlural.toLowerCase()}`,
      type: "table",
      isDefault: true,
      position: 0,
      config: { columns, filter: null, sorts: [], groupBy: null },
    }),
  );
  if (blueprint.kanban) {
    const { field, win, loss, name } = blueprint.kanban;
    const option = (value: string) => optionIds.get(`${field}:${value}`) as string;
    statements.push(
      db.insert(recordViews).values({
        ...view,
        id: newId("view", now),
        name,
        type: "kanban",
        isDefault: false,
        position: 1,
        config: { columns, filter: null, sorts: [], groupBy: null },
        kanbanFieldDefinitionId: fieldIds.get(field) as string,
        kanbanWinOptionIds: win.map(option),
        kanbanLossOptionIds: loss.map(option),
      }),
    );
  }
  return { objectTypeId, statements };
}

/** Every workspace's system object types, ids assigned first so that relations can point across them. */
export function systemObjectTypeStatements(db: Database, workspaceId: string, now: number): BatchItem<"sqlite">[] {
  const objectTypeIds = new Map(systemObjectTypes.map((blueprint) => [blueprint.slug, newId("obj", now)]));
  return systemObjectTypes.flatMap(
    (blueprint, position) =>
      objectTypeStatements(db, blueprint, { workspaceId, position, createdBy: "system", now, objectTypeIds }).statements,
  );
}
