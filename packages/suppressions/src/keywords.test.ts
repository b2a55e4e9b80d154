import { classifyKeywordFamily, classifyOptOutKeyword } from "./keywords";

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

describe("classifyKeywordFamily", () => {
  it("adds HELP and INFO to the opt-out families, by the same whole-text rule", () => {
    expect(["Help!", " info ", "HELP"].map(classifyKeywordFamily)).toEqual(["help", "help", "help"]);
    expect(["help me please", "information"].map(classifyKeywordFamily)).toEqual([null, null]);
    expect(["Stop", "yes"].map(classifyKeywordFamily)).toEqual(["stop", "start"]);
  });

  it("leaves HELP out of the opt-out keywords: it changes no list", () => {
    expect(classifyOptOutKeyword("HELP")).toBeNull();
  });
});
