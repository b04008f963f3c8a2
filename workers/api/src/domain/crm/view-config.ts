import { ApiError, type FieldType, type FilterOperator, inputPath, type Problem, type RecordViewConfig } from "@crm/contracts";
import { checkScalar, groupableTypes, operatorsByType, sortableTypes } from "./field-types";

export interface FieldWithOptions {
  id: string;
  type: FieldType;
  options: { id: string; value: string; isActive: boolean }[];
}

export interface ViewShape {
  type: "table" | "kanban";
  config: RecordViewConfig;
  kanbanFieldDefinitionId: string | null;
  kanbanWinOptionIds: string[];
  kanbanLossOptionIds: string[];
}

const listOperators = new Set<FilterOperator>(["in", "not_in"]);
/** Operators that match a part of a value: they take any fragment, not a whole e-mail address, phone, URL or domain. */
const fragmentOperators = new Set<FilterOperator>(["contains", "not_contains", "starts_with"]);
const valuelessOperators = new Set<FilterOperator>(["is_empty", "is_not_empty"]);

function checkConditionValue(
  field: FieldWithOptions,
  operator: FilterOperator,
  value: unknown,
  path: string,
  problems: Problem[],
) {
  if (valuelessOperators.has(operator)) {
    if (value !== undefined && value !== null) problems.push({ path, message: `${operator} takes no value` });
    return;
  }
  // Filters may name inactive options too: records can still hold them.
  const shape = { type: field.type, activeOptionValues: new Set(field.options.map((option) => option.value)) };
  const values = listOperators.has(operator) ? value : [value];
  if (!Array.isArray(values) || values.length === 0 || values.length > 100) {
    problems.push({ path, message: `${operator} takes a list of 1 to 100 values` });
    return;
  }
  for (const item of values) {
    const check =
      field.type === "multiselect" || field.type === "select"
        ? checkScalar({ ...shape, type: "select" }, item)
        : fragmentOperators.has(operator)
          ? checkFragment(item)
          : checkScalar(shape, item);
    if (!check.ok) {
      problems.push({ path, message: check.message });
      return;
    }
  }
}

/** A fragment to look for inside values: non-empty text, as long as a value can be. */
const checkFragment = (value: unknown) =>
  typeof value === "string" && value.length > 0
    ? checkScalar({ type: "text", activeOptionValues: new Set() }, value)
    : ({ ok: false, message: "Expected a non-empty fragment of text" } as const);

/**
 * The type of a view as the reference creates it: its body has no `type`, so a view with a kanban
 * field is a kanban board and one without a table (DESIGN.md section 6). An explicit `type` wins
 * here; `checkView` then refuses one that disagrees with the kanban settings.
 */
export const viewTypeOf = (type: ViewShape["type"] | undefined, kanbanFieldDefinitionId: string | null | undefined) =>
  type ?? (kanbanFieldDefinitionId ? "kanban" : "table");

/**
 * Checks a view against the fields of its object type (DESIGN.md section 6): every field id known,
 * operators and values fitting each field's type, sorts and groupBy on fitting fields, kanban on a
 * select field of this type with win and loss among its options and apart. 400 with every problem.
 *
 * `configPath` is where the operation's input holds the configuration, so that each problem names
 * a path of that very input: `config` for a view, `""` for a record query (filter and sorts at the
 * top level). The kanban settings exist in view bodies only.
 */
export function checkView(view: ViewShape, fields: FieldWithOptions[], configPath = "config"): void {
  const problems: Problem[] = [];
  const byId = new Map(fields.map((field) => [field.id, field]));
  const known = (id: string, path: string) => {
    const field = byId.get(id);
    if (!field) problems.push({ path, message: "Not a field of this object type" });
    return field;
  };
  view.config.columns.forEach((column, i) => {
    known(column.fieldDefinitionId, inputPath(configPath, `columns.${i}.fieldDefinitionId`));
  });
  view.config.filter?.conditions.forEach((condition, i) => {
    const path = inputPath(configPath, `filter.conditions.${i}`);
    const field = known(condition.fieldDefinitionId, `${path}.fieldDefinitionId`);
    if (!field) return;
    const operator = condition.operator as FilterOperator;
    if (!operatorsByType[field.type].includes(operator)) {
      problems.push({ path: `${path}.operator`, message: `${operator} does not apply to ${field.type} fields` });
      return;
    }
    checkConditionValue(field, operator, condition.value, `${path}.value`, problems);
  });
  view.config.sorts.forEach((sort, i) => {
    const path = inputPath(configPath, `sorts.${i}.fieldDefinitionId`);
    const field = known(sort.fieldDefinitionId, path);
    if (field && !sortableTypes.has(field.type)) problems.push({ path, message: `${field.type} fields cannot be sorted by` });
  });
  if (view.config.groupBy) {
    const path = inputPath(configPath, "groupBy");
    const field = known(view.config.groupBy, path);
    if (field && !groupableTypes.has(field.type)) problems.push({ path, message: `${field.type} fields cannot group a view` });
  }

  if (view.type === "kanban") {
    const field = view.kanbanFieldDefinitionId ? byId.get(view.kanbanFieldDefinitionId) : undefined;
    if (field?.type !== "select") {
      problems.push({ path: "kanbanFieldDefinitionId", message: "A kanban view needs a select field of this object type" });
    } else {
      const optionIds = new Set(field.options.map((option) => option.id));
      for (const [name, ids] of [
        ["kanbanWinOptionIds", view.kanbanWinOptionIds],
        ["kanbanLossOptionIds", view.kanbanLossOptionIds],
      ] as const) {
        ids.forEach((id, i) => {
          if (!optionIds.has(id)) problems.push({ path: `${name}.${i}`, message: "Not an option of the kanban field" });
        });
      }
      const win = new Set(view.kanbanWinOptionIds);
      if (view.kanbanLossOptionIds.some((id) => win.has(id)))
        problems.push({ path: "kanbanLossOptionIds", message: "Win and loss options must not overlap" });
    }
  } else if (view.kanbanFieldDefinitionId) {
    problems.push({
      path: "type",
      message: "A view with kanbanFieldDefinitionId is a kanban view: send type kanban or no type",
    });
  } else if (view.kanbanWinOptionIds.length > 0 || view.kanbanLossOptionIds.length > 0) {
    problems.push({ path: "kanbanFieldDefinitionId", message: "Win and loss options need the kanban field they belong to" });
  }
  if (problems.length > 0)
    throw new ApiError("invalid_request", "The view does not fit the object type's fields; see details.", problems);
}

/**
 * The view without any mention of a deleted field: columns, filter conditions, sorts, groupBy, and
 * the kanban settings when the field drove the board (the view then becomes a table).
 */
export function viewWithoutField(view: ViewShape, fieldId: string): ViewShape {
  const config = view.config;
  const conditions = config.filter?.conditions.filter((condition) => condition.fieldDefinitionId !== fieldId) ?? [];
  const kanbanGone = view.kanbanFieldDefinitionId === fieldId;
  return {
    type: kanbanGone ? "table" : view.type,
    config: {
      columns: config.columns.filter((column) => column.fieldDefinitionId !== fieldId),
      filter: config.filter && conditions.length > 0 ? { ...config.filter, conditions } : null,
      sorts: config.sorts.filter((sort) => sort.fieldDefinitionId !== fieldId),
      groupBy: config.groupBy === fieldId ? null : config.groupBy,
    },
    kanbanFieldDefinitionId: kanbanGone ? null : view.kanbanFieldDefinitionId,
    kanbanWinOptionIds: kanbanGone ? [] : view.kanbanWinOptionIds,
    kanbanLossOptionIds: kanbanGone ? [] : view.kanbanLossOptionIds,
  };
}

/** Whether a view mentions the field anywhere. */
export function viewMentionsField(view: ViewShape, fieldId: string): boolean {
  return JSON.stringify(viewWithoutField(view, fieldId)) !== JSON.stringify(view);
}
