// Signs webhook deliveries with the providers' own code, for
// notifications/providers_test.go. Reads a JSON array of jobs on stdin:
//   {"scheme": "standard|stripe|github|shopify|slack|hmac-sha256",
//    "secret": "…", "body": "…", "id": "…", "timestamp": <Unix seconds>}
// and prints a JSON array with, per job, the headers to send.
//
// standard: standardwebhooks (Webhook#sign); stripe: stripe
// (webhooks.generateTestHeaderString); github: @octokit/webhooks-methods
// (sign); shopify: @shopify/shopify-api's own test helper (getHmac). Slack
// publishes no signing code: the signature is computed with node:crypto as
// Slack's documentation describes it ("v0:" + timestamp + ":" + body,
// HMAC-SHA256, hex) and then checked with Slack's own verifier, Bolt's
// verifySlackRequest, so that only what Slack's code accepts is sent.
// hmac-sha256 is the generic scheme: node:crypto.
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import { sign as githubSign } from "@octokit/webhooks-methods";
import { getHmac } from "@shopify/shopify-api/test-helpers";
import { verifySlackRequest } from "@slack/bolt/dist/receivers/verify-request.js";

const stripe = new Stripe("sk_test_signer_only_never_used");

async function headers(job) {
  const { scheme, secret, body, id, timestamp } = job;
  switch (scheme) {
    case "standard": {
      const sig = new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
      return { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": sig };
    }
    case "stripe":
      return { "Stripe-Signature": stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp }) };
    case "github":
      return { "X-Hub-Signature-256": await githubSign(secret, body) };
    case "shopify":
      return { "X-Shopify-Hmac-Sha256": getHmac(body, secret) };
    case "slack": {
      const ts = String(timestamp);
      const sig = "v0=" + createHmac("sha256", secret).update(`v0:${ts}:${body}`).digest("hex");
      const h = { "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": sig };
      verifySlackRequest({
        signingSecret: secret, body, nowMilliseconds: timestamp * 1000,
        headers: { "x-slack-request-timestamp": timestamp, "x-slack-signature": sig },
      });
      return h;
    }
    case "hmac-sha256":
      return { "X-Signature": "sha256=" + createHmac("sha256", secret).update(body).digest("hex") };
  }
  throw new Error(`unknown scheme ${scheme}`);
}

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const out = [];
for (const job of JSON.parse(input)) out.push(await headers(job));
process.stdout.write(JSON.stringify(out));
