import { ApiError } from "@crm/contracts";
import { checkScalar } from "../crm/field-types";
import { identityKeyOf, type RecordField } from "./values";

/** The unique field `matchingField` names (`PUT /records`, upserting batches); 400 otherwise. */
export function uniqueMatchingField(fields: RecordField[], matchingField: string): RecordField {
  const matching = fields.find((field) => field.slug === matchingField);
  if (!matching?.isUnique) {
    throw new ApiError("invalid_request", "matchingField must name a unique field of the object type", [
      { path: "matchingField", message: matching ? "Not a unique field" : "Not a field of this object type" },
    ]);
  }
  return matching;
}

/** The identity key of the value `fields` gives the matching field; 400 when it gives none that fits. */
export function matchingKey(matching: RecordField, input: Record<string, unknown>): string {
  const value = checkScalar({ type: matching.type }, input[matching.slug]);
  if (!value.ok || typeof value.value === "boolean") {
    throw new ApiError("invalid_request", "fields must set the matching field", [
      { path: `fields.${matching.slug}`, message: value.ok ? "Required to match" : value.message },
    ]);
  }
  return identityKeyOf(value.value);
}
