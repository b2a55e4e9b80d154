export * from "./events";
export * from "./sender";
export * from "./endpoints";
