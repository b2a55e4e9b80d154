import { classifyOptOutKeyword } from "./keywords";

describe("classifyOptOutKeyword", () => {
  it.each([
    "STOP",
    "stop",
    "  Stop  ",
    "Stop!",
    "STOP.",
    "stopall",
    "Stop all",
    "UNSUBSCRIBE",
    "cancel",
    "End",
    "quit",
    "revoke",
    "opt out",
    "Opt-Out",
    "OPTOUT",
    "arret",
    "Arrêt",
    "ALTO",
    "stopp",
    "\tSTOP\n",
  ])("%j is STOP", (text) => expect(classifyOptOutKeyword(text)).toBe("stop"));

  it.each(["START", "start", " Yes ", "yes!", "UNSTOP", "un-stop"])("%j is START", (text) =>
    expect(classifyOptOutKeyword(text)).toBe("start"),
  );

  it.each([
    "",
    "   ",
    "!!!",
    "HELP",
    "INFO",
    "stop texting me",
    "please stop",
    "yes please",
    "STOP STOP",
    "stopped",
    "started",
    "the end",
    "STOPX",
    "S.T.O.P",
    "Stop sending these messages to this number right now",
    "ストップ",
  ])("%j is an ordinary message", (text) => expect(classifyOptOutKeyword(text)).toBeNull());
});
