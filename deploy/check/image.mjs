// deploy:check --image <tag>: the manifests against a built image (no cluster needed). Each
// container must leave the image's entrypoint in place and pass it something it runs (a
// service whose bundle is in the image, migrate or admin), and the pod's runAsUser must be
// the image's own user, whose files those are.
import { execFileSync } from "node:child_process";

const docker = (...args) => execFileSync("docker", args, { encoding: "utf8" }).trim();

/** What the image says of itself: its entrypoint, its user's uid and the services it carries. */
export function describeImage(image) {
  const [config] = JSON.parse(docker("image", "inspect", image)).map((i) => i.Config);
  const probe = docker(
    "run",
    "--rm",
    "--entrypoint",
    "sh",
    image,
    "-c",
    'id -u; for m in /app/services/*/dist/main.js; do [ -f "$m" ] && basename "$(dirname "$(dirname "$m")")"; done; true',
  ).split("\n");
  return {
    entrypoint: config.Entrypoint ?? [],
    uid: Number(probe[0]),
    services: probe.slice(1).filter(Boolean),
  };
}

export function imageProblems(objects, image) {
  const problems = [];
  const described = describeImage(image);
  if (!described.entrypoint.includes("/app/scripts/container-entrypoint.sh"))
    problems.push(
      `${image}: entrypoint ${JSON.stringify(described.entrypoint)} is not the container entrypoint`,
    );
  if (described.uid === 0) problems.push(`${image}: runs as root`);
  const runs = new Set(["migrate", "admin", ...described.services]);
  for (const object of objects) {
    const pod = object.spec?.template?.spec ?? object.spec?.jobTemplate?.spec?.template?.spec;
    if (!pod) continue;
    const name = `${object.kind}/${object.metadata.name}`;
    for (const container of pod.containers ?? []) {
      if (container.command)
        problems.push(`${name}: "command" replaces the image's entrypoint (give "args")`);
      const runsWhat = container.args?.[0];
      if (!runs.has(runsWhat))
        problems.push(`${name}: args[0] "${runsWhat}" is nothing the image runs (${[...runs].join(", ")})`);
      const runAsUser = container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
      if (runAsUser !== undefined && runAsUser !== described.uid)
        problems.push(
          `${name}: runAsUser ${runAsUser}, but the image's files belong to uid ${described.uid}`,
        );
    }
  }
  return problems;
}
