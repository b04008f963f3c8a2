import { type SQL, sql } from "drizzle-orm";

/**
 * Text that is empty after trimming holds no value: a required field refuses it, and `is_empty`
 * finds the records holding it (issue 38). "Trimming" is JavaScript's `String.prototype.trim`, in
 * the validation and in SQL alike, so that what a write calls blank is what a filter calls empty.
 */
export const isBlank = (text: string) => text.trim() === "";

/**
 * The code points `String.prototype.trim` removes (ECMAScript's WhiteSpace and LineTerminator);
 * SQLite's `trim(x)` alone removes only spaces.
 */
export const trimmedCodePoints = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008,
  0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
];

/** A stored text as SQL, trimmed as `isBlank` trims it (a literal, so a compiled statement keeps placeholders only). */
export const trimmedSql = (text: SQL) => sql`trim(${text}, char(${sql.raw(trimmedCodePoints.join(", "))}))`;
