import { ConfigError } from "@sms/config";
import { loadDispatcherConfig } from "./config";

const KEY = Buffer.alloc(32, 7).toString("base64");
const classes = (value?: string) =>
  loadDispatcherConfig({
    SECRET_ENCRYPTION_KEY: KEY,
    ...(value === undefined ? {} : { DISPATCH_CLASSES: value }),
  }).DISPATCH_CLASSES;

describe("DISPATCH_CLASSES", () => {
  it("is every class when unset", () => {
    expect(classes()).toEqual(["high", "normal", "bulk"]);
  });

  it("takes a lane's classes, each once, spaces allowed", () => {
    expect(classes("high")).toEqual(["high"]);
    expect(classes("normal, bulk,normal")).toEqual(["normal", "bulk"]);
  });

  it("refuses an unknown class or an empty list, naming the setting", () => {
    for (const value of ["urgent", "high,", ""]) {
      expect(() => classes(value)).toThrow(ConfigError);
      expect(() => classes(value)).toThrow(/DISPATCH_CLASSES/);
    }
  });
});
