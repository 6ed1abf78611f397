/**
 * The web console at /console: static files (the page, its stylesheet and
 * compiled browser modules) and its sign-in settings (config.json) served
 * without authentication, since they hold no data and no secret; the
 * console's calls to /api/v1 carry the user's key or access token. Every
 * answer carries a strict Content-Security-Policy, so no inline or foreign
 * script can run in the console's origin even if a stored string got past
 * the console's text-only rendering.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import express, { type Request, type Response } from "express";
import { consoleModulesUrl, indexHtml, stylesheet } from "@context-hub/console/assets";
import type { OidcConfig } from "./config.js";

/**
 * The console's Content-Security-Policy: only its own files; images may also
 * be data: URLs (an entry's images). With OIDC sign-in on, scripts may also
 * fetch from the issuer's origin (its discovery document and token
 * endpoint); the way to its authorization endpoint is a navigation, which
 * needs no directive, so forms stay barred.
 */
export function consoleContentSecurityPolicy(oidc: OidcConfig | undefined): string {
  const issuerOrigin = oidc?.console === undefined ? undefined : new URL(oidc.issuer).origin;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    issuerOrigin === undefined ? "connect-src 'self'" : `connect-src 'self' ${issuerOrigin}`,
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

/**
 * What GET /console/config.json tells the console: whether it offers OIDC
 * sign-in, and with which issuer, public client and scopes (no secret: the
 * client is public and proves itself with PKCE).
 */
export function consoleSettings(oidc: OidcConfig | undefined): {
  oidc: { issuer: string; client_id: string; scopes: string } | null;
} {
  return oidc?.console === undefined
    ? { oidc: null }
    : { oidc: { issuer: oidc.issuer, client_id: oidc.console.clientId, scopes: oidc.console.scopes } };
}

/** A browser module's file name: one path segment of a compiled `.js` file, nothing else (no maps, no typings). */
const moduleName = /^[a-z][a-z0-9-]*\.js$/;

/** The router to mount at /console; `oidc` (when the gateway verifies OIDC tokens) may turn on the console's OIDC sign-in. */
export function createConsoleRouter(oidc: OidcConfig | undefined): express.Router {
  const router = express.Router({ strict: true });
  const modulesDirectory = fileURLToPath(consoleModulesUrl);
  const policy = consoleContentSecurityPolicy(oidc);
  const settings = JSON.stringify(consoleSettings(oidc));
  router.use((_request: Request, response: Response, next) => {
    response.setHeader("content-security-policy", policy);
    response.setHeader("x-content-type-options", "nosniff");
    response.setHeader("referrer-policy", "no-referrer");
    response.setHeader("x-frame-options", "DENY");
    response.setHeader("cross-origin-opener-policy", "same-origin");
    response.setHeader("cache-control", "no-cache");
    next();
  });
  router.get("/", (request: Request, response: Response) => {
    // /console without its slash: the page's relative URLs need the folder form.
    if (!request.originalUrl.split("?")[0]!.endsWith("/")) {
      response.redirect(301, "/console/");
      return;
    }
    response.type("html").send(indexHtml);
  });
  router.get("/console.css", (_request: Request, response: Response) => {
    response.type("css").send(stylesheet);
  });
  router.get("/config.json", (_request: Request, response: Response) => {
    response.type("json").send(settings);
  });
  router.get("/app/:file", async (request: Request, response: Response) => {
    const file = String(request.params.file);
    if (!moduleName.test(file)) {
      response.status(404).type("text").send("Not found");
      return;
    }
    try {
      const source = await readFile(`${modulesDirectory}${file}`);
      response.type("text/javascript").send(source);
    } catch {
      response.status(404).type("text").send("Not found");
    }
  });
  router.use((_request: Request, response: Response) => {
    response.status(404).type("text").send("Not found");
  });
  return router;
}
