/**
 * CSV per RFC 4180: fields separated by commas, records by CRLF; a field holding a comma, a
 * double quote, CR or LF is enclosed in double quotes, its double quotes doubled.
 */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One record, CRLF-terminated. */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.map(csvField).join(",")}\r\n`;
}

// OWASP "CSV Injection": a spreadsheet reads a cell starting with one of these as a formula.
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Text someone typed (a message body, a client_ref), made inert for spreadsheets: a value that
 * starts like a formula gets a leading apostrophe, which the spreadsheet shows as text
 * (docs/api.md#export-messages).
 */
export function inertText(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}
