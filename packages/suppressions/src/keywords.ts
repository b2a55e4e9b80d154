/** What an inbound text asks of the account's suppression list. */
export type OptOutKeyword = "stop" | "start";

/** The keyword families an account may set an auto-reply for: the opt-out ones and HELP. */
export type KeywordFamily = OptOutKeyword | "help";

/**
 * The STOP family: the six words US carriers and the CTIA handbook require (STOP, STOPALL,
 * UNSUBSCRIBE, CANCEL, END, QUIT), the two the 2023 handbook added (REVOKE, OPT OUT), and
 * the French ARRET (Canadian carriers require it beside STOP), the Spanish ALTO (US senders
 * to Spanish speakers are expected to honour it) and the Nordic/German STOPP. Missing a
 * real opt-out breaks the law; honouring one more word costs at most a START.
 */
const STOP_WORDS = new Set([
  "STOP",
  "STOPALL",
  "UNSUBSCRIBE",
  "CANCEL",
  "END",
  "QUIT",
  "REVOKE",
  "OPTOUT",
  "ARRET",
  "ALTO",
  "STOPP",
]);

/** The START family: English only, so an ordinary reply in another language never re-subscribes anyone. */
const START_WORDS = new Set(["START", "YES", "UNSTOP"]);

/** The HELP family (CTIA: HELP and INFO): changes nothing, may only be answered. */
const HELP_WORDS = new Set(["HELP", "INFO"]);

/**
 * The keyword an inbound text is, or null. The WHOLE text must be the keyword: case,
 * spaces (leading, trailing, inside: "opt out", "Stop all"), hyphens, accents ("Arrêt")
 * and punctuation around it ("Stop!") do not matter; "stop texting me" or "yes please"
 * is an ordinary message (docs/decisions.md#opt-out).
 */
export function classifyOptOutKeyword(text: string): OptOutKeyword | null {
  const family = classifyKeywordFamily(text);
  return family === "help" ? null : family;
}

/** The keyword family an inbound text is (the same whole-text rule), HELP included; or null. */
export function classifyKeywordFamily(text: string): KeywordFamily | null {
  const word = text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[\s\-_]+/gu, "")
    .replace(/^\p{P}+|\p{P}+$/gu, "")
    .toUpperCase();
  if (word.length === 0 || word.length > 16) return null;
  if (STOP_WORDS.has(word)) return "stop";
  if (START_WORDS.has(word)) return "start";
  if (HELP_WORDS.has(word)) return "help";
  return null;
}
