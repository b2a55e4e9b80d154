import { rankRoutesFor, type RouteEntry } from "./routing";

const carriersFor = (routes: RouteEntry[], destination: string) =>
  rankRoutesFor(routes, destination).map((route) => route.carrierId);

describe("rankRoutesFor", () => {
  const routes: RouteEntry[] = [
    { prefix: "+", carrierId: "global", priority: 0 },
    { prefix: "+1", carrierId: "us-a", priority: 1 },
    { prefix: "+1", carrierId: "us-b", priority: 0 },
    { prefix: "+1415", carrierId: "sf", priority: 5 },
    { prefix: "+44", carrierId: "uk", priority: 0 },
  ];

  it("orders by longest matching prefix, then lower priority, failovers after", () => {
    expect(carriersFor(routes, "+14155550100")).toEqual(["sf", "us-b", "us-a", "global"]);
    expect(carriersFor(routes, "+12125550100")).toEqual(["us-b", "us-a", "global"]);
  });

  it('lets "+" match every number and nothing else match a foreign one', () => {
    expect(carriersFor(routes, "+33612345678")).toEqual(["global"]);
    expect(carriersFor(routes.slice(1), "+33612345678")).toEqual([]);
  });

  it("prefers a longer prefix even when its priority number is higher", () => {
    expect(
      carriersFor(
        [
          { prefix: "+1", carrierId: "cheap", priority: 0 },
          { prefix: "+14", carrierId: "local", priority: 99 },
        ],
        "+14155550100",
      ),
    ).toEqual(["local", "cheap"]);
  });

  it("lists a carrier once, at its best route", () => {
    const ranked = rankRoutesFor(
      [
        { prefix: "+", carrierId: "a", priority: 0 },
        { prefix: "+1", carrierId: "b", priority: 0 },
        { prefix: "+1415", carrierId: "a", priority: 3 },
      ],
      "+14155550100",
    );
    expect(ranked).toEqual([
      { prefix: "+1415", carrierId: "a", priority: 3 },
      { prefix: "+1", carrierId: "b", priority: 0 },
    ]);
  });

  it("orders equal prefix and priority by carrier id, whatever the input order", () => {
    const tied = [
      { prefix: "+1", carrierId: "zeta", priority: 0 },
      { prefix: "+1", carrierId: "alpha", priority: 0 },
    ];
    expect(carriersFor(tied, "+12125550100")).toEqual(["alpha", "zeta"]);
    expect(carriersFor([...tied].reverse(), "+12125550100")).toEqual(["alpha", "zeta"]);
  });

  it("matches whole prefixes only from the start, and leaves its input alone", () => {
    const input = [{ prefix: "+41", carrierId: "ch", priority: 0 }];
    expect(carriersFor(input, "+14155550100")).toEqual([]);
    expect(carriersFor(input, "+4179")).toEqual(["ch"]);
    expect(input).toEqual([{ prefix: "+41", carrierId: "ch", priority: 0 }]);
  });

  it("returns nothing without routes", () => {
    expect(rankRoutesFor([], "+14155550100")).toEqual([]);
  });
});
