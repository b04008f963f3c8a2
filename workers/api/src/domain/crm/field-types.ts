import type { FieldType, FilterOperator } from "@crm/contracts";

/** Which filter operators fit which field types (DESIGN.md section 6). */
const textOperators: FilterOperator[] = [
  "eq",
  "neq",
  "contains",
  "not_contains",
  "starts_with",
  "in",
  "not_in",
  "is_empty",
  "is_not_empty",
];
const orderedOperators: FilterOperator[] = ["eq", "neq", "gt", "gte", "lt", "lte", "in", "not_in", "is_empty", "is_not_empty"];
const choiceOperators: FilterOperator[] = ["eq", "neq", "in", "not_in", "is_empty", "is_not_empty"];

export const operatorsByType: Record<FieldType, FilterOperator[]> = {
  text: textOperators,
  email: textOperators,
  phone: textOperators,
  url: textOperators,
  domain: textOperators,
  number: orderedOperators,
  date: orderedOperators,
  timestamp: orderedOperators,
  checkbox: ["eq", "neq", "is_empty", "is_not_empty"],
  select: choiceOperators,
  multiselect: ["contains", "not_contains", "in", "not_in", "is_empty", "is_not_empty"],
  relation: choiceOperators,
  user: choiceOperators,
};

/** Types a view may sort by, and group by (one value per record, a small set of values). */
export const sortableTypes = new Set<FieldType>([
  "text",
  "email",
  "phone",
  "url",
  "domain",
  "number",
  "date",
  "timestamp",
  "checkbox",
  "select",
  "user",
]);
export const groupableTypes = new Set<FieldType>(["select", "checkbox", "user"]);

/** Types whose values can identify a record (unique fields, identity resolution). */
export const uniqueCapableTypes = new Set<FieldType>(["text", "email", "phone", "url", "domain", "number"]);

export const isChoiceType = (type: FieldType) => type === "select" || type === "multiselect";

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const domainPattern = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const datePattern = /^\d{4}-\d{2}-\d{2}$/;

/** One scalar value of a field, normalized (emails and domains lower-cased, URLs parsed); or why it is not valid. */
export type ScalarCheck = { ok: true; value: string | number | boolean } | { ok: false; message: string };

export interface FieldShape {
  type: FieldType;
  /** Values of the field's active options (select types). */
  activeOptionValues?: ReadonlySet<string>;
}

export function checkScalar(field: FieldShape, value: unknown): ScalarCheck {
  const fail = (message: string): ScalarCheck => ({ ok: false, message });
  switch (field.type) {
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? { ok: true, value } : fail("Expected a finite number");
    case "timestamp":
      return Number.isSafeInteger(value) ? { ok: true, value: value as number } : fail("Expected Unix milliseconds (an integer)");
    case "checkbox":
      return typeof value === "boolean" ? { ok: true, value } : fail("Expected true or false");
    case "date": {
      if (typeof value !== "string" || !datePattern.test(value)) return fail("Expected a date as YYYY-MM-DD");
      const parsed = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value)
        ? { ok: true, value }
        : fail("Not a calendar date");
    }
    case "email": {
      const email = typeof value === "string" ? value.trim().toLowerCase() : "";
      return emailPattern.test(email) && email.length <= 320 ? { ok: true, value: email } : fail("Expected an e-mail address");
    }
    case "domain": {
      const domain =
        typeof value === "string"
          ? value
              .trim()
              .toLowerCase()
              .replace(/^https?:\/\//, "")
              .replace(/^www\./, "")
              .replace(/\/.*$/, "")
          : "";
      return domainPattern.test(domain) ? { ok: true, value: domain } : fail("Expected a domain name such as example.com");
    }
    case "url": {
      if (typeof value !== "string") return fail("Expected an http or https URL");
      try {
        const url = new URL(value.trim());
        return url.protocol === "http:" || url.protocol === "https:"
          ? { ok: true, value: url.href }
          : fail("Expected an http or https URL");
      } catch {
        return fail("Expected an http or https URL");
      }
    }
    case "select":
    case "multiselect":
      if (typeof value !== "string") return fail("Expected the value of an option");
      return field.activeOptionValues?.has(value)
        ? { ok: true, value }
        : fail(`"${value}" is not an active option of this field`);
    case "phone":
      return typeof value === "string" && /^\+?[0-9 ()./-]{3,40}$/.test(value.trim())
        ? { ok: true, value: value.trim() }
        : fail("Expected a phone number");
    case "text":
      return typeof value === "string" && value.length <= 100_000
        ? { ok: true, value }
        : fail("Expected text of at most 100 000 characters");
    case "relation":
    case "user":
      return typeof value === "string" && value.length >= 6 ? { ok: true, value } : fail("Expected an id");
  }
}

/** A default value: a scalar of the type, or for multiselect a list of option values; relations take none. */
export function checkDefaultValue(field: FieldShape, value: unknown): ScalarCheck | { ok: true; value: unknown } {
  if (field.type === "relation" || field.type === "user")
    return { ok: false, message: "Relation and user fields have no default value" };
  if (field.type === "multiselect") {
    if (!Array.isArray(value)) return { ok: false, message: "Expected a list of option values" };
    for (const item of value) {
      const check = checkScalar(field, item);
      if (!check.ok) return check;
    }
    return { ok: true, value: [...new Set(value)] };
  }
  return checkScalar(field, value);
}
