import { UrlNotAllowedError, assertUrlAllowed } from "./index";

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UrlNotAllowedError);
    return (error as UrlNotAllowedError).reason;
  }
  throw new Error("expected UrlNotAllowedError");
}

describe("assertUrlAllowed", () => {
  it("accepts an https URL with a host name and returns it parsed", () => {
    const url = assertUrlAllowed("https://hooks.example.com/sms?x=1");
    expect(url).toBeInstanceOf(URL);
    expect(url.hostname).toBe("hooks.example.com");
  });

  it("accepts a public literal IP", () => {
    expect(assertUrlAllowed("https://8.8.8.8/").hostname).toBe("8.8.8.8");
    expect(assertUrlAllowed("https://[2606:4700:4700::1111]/").hostname).toBe("[2606:4700:4700::1111]");
  });

  it("refuses http unless allowHttp", () => {
    expect(reasonOf(() => assertUrlAllowed("http://hooks.example.com/"))).toMatch(
      /scheme http: is not allowed/,
    );
    expect(assertUrlAllowed("http://hooks.example.com/", { allowHttp: true }).protocol).toBe("http:");
  });

  it("refuses other schemes and invalid URLs", () => {
    expect(reasonOf(() => assertUrlAllowed("file:///etc/passwd", { allowHttp: true }))).toMatch(
      /scheme file:/,
    );
    expect(reasonOf(() => assertUrlAllowed("gopher://example.com/"))).toMatch(/scheme gopher:/);
    expect(reasonOf(() => assertUrlAllowed("not a url"))).toMatch(/not a valid/);
  });

  it("refuses credentials in the URL", () => {
    expect(reasonOf(() => assertUrlAllowed("https://user:pass@hooks.example.com/"))).toMatch(/credentials/);
    expect(reasonOf(() => assertUrlAllowed("https://user@hooks.example.com/"))).toMatch(/credentials/);
  });

  it.each([
    ["https://10.0.0.1/", /RFC 1918/],
    ["https://192.168.1.10:8443/hook", /RFC 1918/],
    ["https://169.254.169.254/latest/meta-data/", /link-local/],
    ["https://[fd00::1]/", /unique local/],
    ["https://[::ffff:10.0.0.1]/", /IPv4-mapped/],
    ["https://0x7f.1/", /loopback/],
    ["https://2130706433/", /loopback/],
    ["https://0177.0.0.1/", /loopback/],
    ["https://127.0.0.1/", /loopback/],
    ["https://[::1]/", /loopback/],
  ])("refuses literal blocked host %s", (url, reason) => {
    expect(reasonOf(() => assertUrlAllowed(url))).toMatch(reason);
  });

  it("allows plain loopback literals only with allowLoopback", () => {
    expect(assertUrlAllowed("https://127.0.0.1:8443/", { allowLoopback: true }).port).toBe("8443");
    expect(assertUrlAllowed("https://[::1]/", { allowLoopback: true }).hostname).toBe("[::1]");
    expect(reasonOf(() => assertUrlAllowed("https://10.0.0.1/", { allowLoopback: true }))).toMatch(
      /RFC 1918/,
    );
  });
});
