// The container test's webhook receiver: it shares webhook-delivery's network namespace
// (compose network_mode), so deliveries reach it on loopback and nothing leaves the host.
// Every request is printed as one JSON line (headers and raw body) for the test to verify.
import http from "node:http";

const port = Number(process.env.RECEIVER_PORT ?? 9099);
http
  .createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      console.log(
        JSON.stringify({ received: { method: req.method, url: req.url, headers: req.headers, body } }),
      );
      res.writeHead(204).end();
    });
  })
  .listen(port, "127.0.0.1", () => console.log(`receiver listening on 127.0.0.1:${port}`));
