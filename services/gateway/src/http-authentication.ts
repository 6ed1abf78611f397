/**
 * Authentication before anything runs, on every face: failed authentications
 * throttled per client address (an address over its budget is refused before
 * its credential is looked at), the middleware that authenticates and answers
 * a refusal in the face's own terms, and the body parser whose limit follows
 * the caller's scopes.
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { counter } from "@context-hub/common";
import type { Authenticator } from "./auth/authenticate.js";
import type { GatewayConfig } from "./config.js";
import type { Refusals } from "./http-refusals.js";
import { throttleKeyOf } from "./metering.js";
import type { Principal } from "./principal.js";
import { createRateLimiter } from "./rate-limit.js";

/** Express middleware, as the gateway's HTTP faces chain it. */
export type Middleware = (request: Request, response: Response, next: NextFunction) => void | Promise<void>;

/** How many client addresses the failed-authentication throttle remembers (least recently used are forgotten first). */
const maxThrottledAddresses = 100_000;

const authThrottled = counter(
  "contexthub_auth_throttled_total",
  "Requests refused before authentication because their client address failed too often.",
  [],
);

/**
 * The authentication middleware of a face, given how that face refuses
 * (`refusals`): JSON-RPC errors on /mcp, problem details on /api/v1. No tool
 * runs, and no body is even parsed, for a request without a verified
 * principal, which it leaves in `response.locals.principal`.
 */
export function createAuthentication(
  config: GatewayConfig,
  authenticator: Authenticator,
): (refusals: Refusals) => Middleware {
  // Failed authentications are counted per client address, and an address over its budget is refused before its
  // credential is looked at: guessing keys costs no store lookups, and a flood of bad tokens no signature checks.
  const guesses = createRateLimiter({ failure: config.rateLimits.authFailures }, undefined, maxThrottledAddresses);
  const authOn = config.auth.methods.length > 0;

  return (refusals: Refusals) => async (request: Request, response: Response, next: NextFunction) => {
    const address = throttleKeyOf(request.ip ?? request.socket.remoteAddress ?? "unknown");
    if (authOn) {
      // Taken up front and given back on success, so concurrent guesses cannot all slip past one check.
      const verdict = guesses.take(address, "failure");
      if (!verdict.ok) {
        authThrottled.inc();
        refusals.tooMany(
          response,
          verdict.retryAfterSeconds,
          `Too many failed authentications from ${address}: retry in ${verdict.retryAfterSeconds} s`,
        );
        return;
      }
    }
    const outcome = await authenticator.authenticate({
      authorization: request.header("authorization"),
      apiKey: request.header("x-api-key"),
    });
    // An identity provider that did not answer is not the caller's failure.
    if (authOn && (outcome.ok || outcome.failure.status === 503)) guesses.refund(address, "failure");
    if (!outcome.ok) {
      refusals.refuse(response, outcome.failure);
      return;
    }
    response.locals.principal = outcome.principal;
    next();
  };
}

/** The body parser: its limit follows the caller's scopes, as only a writer needs room for text and images. */
export function createBodyParser(config: GatewayConfig): Middleware {
  const parseWriteBody = express.json({ limit: config.maxBodyBytes });
  const parseReadBody = express.json({ limit: config.maxReadBodyBytes });
  return (request: Request, response: Response, next: NextFunction) => {
    const writer = (response.locals.principal as Principal).scopes.includes("context:write");
    response.locals.writer = writer;
    (writer ? parseWriteBody : parseReadBody)(request, response, next);
  };
}
