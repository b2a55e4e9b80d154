/**
 * The GSM 7-bit default alphabet and its extension table (3GPP TS 23.038 §6.2.1 and §6.2.1.1).
 * Index = septet value. 0x1B in the basic table is the escape to the extension table, so it maps
 * to no character here.
 */
const BASIC_TABLE: readonly string[] = [
  ..."@£$¥èéùìòÇ\nØø\rÅå",
  ..."Δ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ",
  ..." !\"#¤%&'()*+,-./",
  ..."0123456789:;<=>?",
  ..."¡ABCDEFGHIJKLMNO",
  ..."PQRSTUVWXYZÄÖÑÜ§",
  ..."¿abcdefghijklmno",
  ..."pqrstuvwxyzäöñüà",
];

/** Septet 0x1B: escape to the extension table (3GPP TS 23.038 §6.2.1, note 1). */
export const GSM7_ESCAPE = 0x1b;

/** Extension table entries that have a character (3GPP TS 23.038 §6.2.1.1); the rest are unassigned. */
const EXTENSION_ENTRIES: ReadonlyArray<readonly [number, string]> = [
  [0x0a, "\f"],
  [0x14, "^"],
  [0x28, "{"],
  [0x29, "}"],
  [0x2f, "\\"],
  [0x3c, "["],
  [0x3d, "~"],
  [0x3e, "]"],
  [0x40, "|"],
  [0x65, "€"],
];

/** Character → septet for the basic table. */
export const GSM7_BASIC = new Map<string, number>(
  BASIC_TABLE.flatMap((char, septet) => (septet === GSM7_ESCAPE ? [] : [[char, septet] as const])),
);

/** Character → septet that follows the escape, for the extension table. */
export const GSM7_EXTENSION = new Map<string, number>(
  EXTENSION_ENTRIES.map(([septet, char]) => [char, septet]),
);

/** Septet → character for the basic table (the escape entry maps to itself; callers handle it first). */
export const GSM7_BASIC_BY_SEPTET: readonly string[] = BASIC_TABLE;

/** Septet after an escape → character for the extension table. */
export const GSM7_EXTENSION_BY_SEPTET = new Map<number, string>(EXTENSION_ENTRIES);

/** Every character GSM-7 can carry: the basic table then the extension table (for tests and tools). */
export const GSM7_CHARACTERS: readonly string[] = [...GSM7_BASIC.keys(), ...GSM7_EXTENSION.keys()];
