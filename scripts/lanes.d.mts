/** A lane (scripts/lanes.mjs): another container, Deployment or process of a service, with settings of its own. */
export interface Lane {
  service: string;
  env?: Record<string, string>;
  /** Settings it gives other processes when it runs beside them (its service narrowed to the other classes). */
  narrows?: Record<string, Record<string, string>>;
}
export const lanes: Record<string, Lane>;
export function serviceOf(name: string): string;
export function laneSettings(names: readonly string[]): Record<string, Record<string, string>>;
