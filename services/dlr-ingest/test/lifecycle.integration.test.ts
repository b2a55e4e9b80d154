import crypto from "node:crypto";
import { applyReceipt } from "@sms/carrier-receipts";
import { insertCarrier, insertMessage, insertSegment } from "@sms/carrier-receipts/test/fixtures";
import { sampleValue } from "@sms/metrics";
import { waitFor } from "@sms/testing";
import { createLogger } from "@sms/logger";
import { createSecretBox, sealCarrierPassword } from "@sms/secret-box";
import { loadDlrIngestConfig } from "../src/config";
import { startDlrIngest } from "../src/service";
import { startHarness, type Harness } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ CARRIER_REFRESH_MS: "100", SWEEP_INTERVAL_MS: "100", SWEEP_MIN_AGE_MS: "0" });
});

afterAll(async () => {
  await h?.close();
});

const boundAtSimulator = () =>
  h.simulator.stats().binds.filter((b) => b.systemId === h.carrier.systemId && b.state === "bound_rx").length;

describe("carrier refresh", () => {
  it("binds to a carrier added to the table, rebinds one that changed, and unbinds one disabled", async () => {
    expect(boundAtSimulator()).toBe(1);
    const second = await insertCarrier(h.pool, {
      port: h.simulator.smppPort,
      systemId: h.carrier.systemId,
      password: h.carrier.password,
    });
    await waitFor(() => boundAtSimulator() === 2, { what: "a bind to the new carrier" });

    await h.pool.query("UPDATE carriers SET receiver_binds = 3 WHERE id = $1", [second]);
    await waitFor(() => boundAtSimulator() === 4, { what: "three binds to the changed carrier" });
    await waitFor(() => h.service.binds.summary().find((s) => s.carrierId === second)?.bound === 3, {
      what: "dlr-ingest to see its three binds bound",
    });

    await h.pool.query("UPDATE carriers SET enabled = false WHERE id = $1", [second]);
    await waitFor(() => boundAtSimulator() === 1, { what: "the disabled carrier's binds closed" });
    expect(h.service.binds.summary().map((s) => s.carrierId)).toEqual([h.carrier.id]);
  });

  it("a carrier whose password does not open with this key gets no binds; the others are refreshed all the same", async () => {
    const sealedElsewhere = await insertCarrier(h.pool, {
      port: h.simulator.smppPort,
      systemId: h.carrier.systemId,
      password: "",
    });
    const otherKey = createSecretBox(crypto.randomBytes(32).toString("base64"));
    await h.pool.query("UPDATE carriers SET password_sealed = $2 WHERE id = $1", [
      sealedElsewhere,
      sealCarrierPassword(otherKey, sealedElsewhere, h.carrier.password),
    ]);
    // A change to the good carrier taken after that row exists: the refresh did not stop on it.
    await h.pool.query("UPDATE carriers SET receiver_binds = 2 WHERE id = $1", [h.carrier.id]);
    await waitFor(() => h.service.binds.summary().find((s) => s.carrierId === h.carrier.id)?.bound === 2, {
      what: "the good carrier's second bind",
    });
    expect(h.service.binds.summary().map((s) => s.carrierId)).toEqual([h.carrier.id]);
    // Set again in clear (as admin carrier update does without the key): it binds.
    await h.pool.query("UPDATE carriers SET password = $2, password_sealed = NULL WHERE id = $1", [
      sealedElsewhere,
      h.carrier.password,
    ]);
    await waitFor(() => h.service.binds.summary().find((s) => s.carrierId === sealedElsewhere)?.bound === 1, {
      what: "the carrier's bind once its password opens",
    });
    await h.pool.query("UPDATE carriers SET enabled = false WHERE id = $1", [sealedElsewhere]);
    await h.pool.query("UPDATE carriers SET receiver_binds = 1 WHERE id = $1", [h.carrier.id]);
    await waitFor(() => boundAtSimulator() === 1, { what: "back to the one bind" });
  });

  it("exposes health, readiness and metrics", async () => {
    expect((await fetch(`${h.baseUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${h.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready", checks: { postgres: "ok" } });
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    const receiver = { carrier_id: h.carrier.id, bind_type: "receiver" };
    expect(sampleValue(metrics, "sms_smpp_carrier_binds", { ...receiver, state: "bound" })).toBe(1);
  });
});

describe("the sweep", () => {
  it("applies an unmatched receipt whose segment got its id without matchPendingReceipts", async () => {
    const messageId = await insertMessage(h.pool, { accountId: h.accountId });
    await insertSegment(h.pool, { messageId, seq: 1, carrierId: h.carrier.id });
    const early = await applyReceipt(h.pool, {
      carrierId: h.carrier.id,
      carrierMessageId: "swept-1",
      state: "delivered",
    });
    expect(early.outcome).toBe("unmatched");
    await h.pool.query(
      "UPDATE message_segments SET status = 'submitted', carrier_message_id = 'swept-1' WHERE message_id = $1",
      [messageId],
    );
    await h.waitForStatus(messageId, "delivered");
  });
});

describe("a second instance", () => {
  it("serves no receipt endpoint without HTTP_RECEIPT_TOKEN, and unbinds everything on stop", async () => {
    const config = loadDlrIngestConfig({
      ...h.world.env,
      PORT: "0",
      HOST: "127.0.0.1",
      HTTP_RECEIPT_TOKEN: "",
    });
    const other = await startDlrIngest(config, createLogger("dlr-ingest", "error"));
    let stopped = false;
    try {
      await waitFor(() => boundAtSimulator() === 2, { what: "the second instance's bind" });
      const response = await fetch(`http://127.0.0.1:${other.port}/v1/carriers/${h.carrier.id}/receipts`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer anything-at-all-here" },
        body: JSON.stringify({ message_id: "x", stat: "DELIVRD" }),
      });
      expect(response.status).toBe(404);
      await other.stop();
      stopped = true;
      // Unbound politely: the simulator saw the unbind, not a dropped connection that it would have to time out.
      await waitFor(() => boundAtSimulator() === 1, { what: "the second instance's unbind" });
      await expect(fetch(`http://127.0.0.1:${other.port}/healthz`)).rejects.toThrow();
    } finally {
      if (!stopped) await other.stop();
    }
  });
});
