// Test data written straight to the database: what the pipeline would have left behind.
import crypto from "node:crypto";
import { hashPassword, issueApiKey } from "@sms/auth";
import type { Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createSecretBox } from "@sms/secret-box";
import { WebhookEndpoints } from "@sms/webhooks";

export interface SeededAccount {
  messageId: string;
  batchId: string;
  otpId: string;
  otpMessageId: string;
  keyId: string;
  eventId: string;
  systemId: string;
  phone: string;
  text: string;
  inboundNumber: string;
  inboundText: string;
  webhookUrl: string;
  webhookSecret: string;
}

/** A delivered message in a batch (with a failed webhook delivery), an OTP, a key, an endpoint, SMPP credentials. */
export async function seedAccount(
  db: Database,
  accountId: string,
  secretKey: string,
  tag: string,
): Promise<SeededAccount> {
  const { prisma } = db;
  const messageId = newId("msg");
  const batchId = newId("bat");
  const otpId = newId("otp");
  const otpMessageId = newId("msg");
  const eventId = newId("evt");
  const phone = `+4477009${String(crypto.randomInt(10_000, 99_999))}`;
  const text = `private text of ${tag}`;
  await prisma.batch.create({
    data: { id: batchId, accountId, senderId: "ACME", total: 1, accepted: 1, rejected: 0 },
  });
  await prisma.message.create({
    data: {
      id: messageId,
      accountId,
      batchId,
      to: phone,
      senderId: "ACME",
      body: text,
      encoding: "GSM7",
      segmentCount: 1,
      creditsCharged: 1,
      status: "delivered",
      statusSequence: 3,
      sentAt: new Date(),
      deliveredAt: new Date(),
      segments: {
        create: { seq: 1, status: "delivered", carrierId: "sim", carrierMessageId: `c-${tag}`, attempts: 1 },
      },
      events: {
        create: [
          { sequence: 1, status: "queued" },
          { sequence: 2, status: "sent", previousStatus: "queued" },
          { sequence: 3, status: "delivered", previousStatus: "sent" },
        ],
      },
    },
  });
  await prisma.message.create({
    data: {
      id: otpMessageId,
      accountId,
      source: "otp",
      to: phone,
      senderId: "Verify",
      body: "Your code is ******",
      encoding: "GSM7",
      segmentCount: 1,
      creditsCharged: 1,
      status: "sent",
      otpId,
    },
  });
  await prisma.otp.create({
    data: {
      id: otpId,
      accountId,
      phone,
      codeHmac: crypto.randomBytes(32),
      length: 6,
      maxAttempts: 5,
      messageId: otpMessageId,
      expiresAt: new Date(Date.now() + 300_000),
    },
  });
  await prisma.outboxEvent.create({
    data: { id: eventId, accountId, messageId, type: "message.delivered", sequence: 3, payload: {} },
  });
  await prisma.webhookDelivery.create({
    data: {
      eventId,
      accountId,
      messageId,
      eventType: "message.delivered",
      payload: {},
      status: "failed",
      attempts: 1,
    },
  });
  const webhookUrl = `http://127.0.0.1:9/hook-${tag}`;
  await prisma.webhookAttempt.create({
    data: {
      eventId,
      accountId,
      attempt: 1,
      url: webhookUrl,
      statusCode: 500,
      latencyMs: 12,
      error: `boom ${tag}`,
      startedAt: new Date(),
    },
  });
  const endpoints = new WebhookEndpoints(prisma, createSecretBox(secretKey), {
    allowLoopback: true,
    allowHttp: true,
  });
  const { secret } = await endpoints.register(accountId, webhookUrl);
  const key = await issueApiKey(prisma, {
    id: newId("key"),
    accountId,
    name: `key of ${tag}`,
    permissions: ["sms:send"],
  });
  // An inbound number and a message to it.
  const inboundNumber = `+1415555${String(crypto.randomInt(1000, 9999))}`;
  const inboundText = `inbound words of ${tag}`;
  await prisma.inboundNumber.create({ data: { number: inboundNumber, accountId } });
  await prisma.inboundMessage.create({
    data: {
      id: newId("in"),
      accountId,
      carrierId: "car_seed",
      from: phone,
      to: inboundNumber,
      text: inboundText,
      encoding: "GSM-7",
      dataCoding: 0,
      segments: 1,
    },
  });
  const systemId = `sys${tag}`.slice(0, 15);
  await prisma.smppCredential.create({
    data: { systemId, accountId, passwordHash: await hashPassword("old-pw") },
  });
  return {
    messageId,
    batchId,
    otpId,
    otpMessageId,
    keyId: key.id,
    eventId,
    systemId,
    phone,
    text,
    inboundNumber,
    inboundText,
    webhookUrl,
    webhookSecret: secret!,
  };
}
