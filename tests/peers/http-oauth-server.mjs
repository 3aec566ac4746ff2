// http-oauth-server.mjs -- PORT SECRETS_FILE [TTL_SECONDS]
// An OAuth-protected MCP server on 127.0.0.1:PORT, made of the SDK's own halves: the
// authorization server of its examples (DemoInMemoryAuthProvider behind mcpAuthRouter:
// metadata, dynamic client registration, authorize, token) and a resource server whose /mcp
// is server-everything's own server (createServer) behind requireBearerAuth (scope mcp:tools), which answers
// 401 with WWW-Authenticate naming the protected-resource metadata. The demo provider's
// authorize approves at once (it redirects to the client's redirect_uri with a code), so a
// test's "browser" is one HTTP GET. Two things the demo lacks are added: access tokens live
// TTL_SECONDS (default 3600; a test makes them short to prove refresh) and come with a
// refresh token, which the refresh grant honours (rotating it). Tokens are bound to the
// resource (RFC 8707): a token issued for another resource than http://127.0.0.1:PORT/mcp
// is refused. POST /test/revoke invalidates every access token issued so far.
//
// Every secret it hands out or receives (authorization codes, PKCE verifiers, access and
// refresh tokens, client secrets) is appended to SECRETS_FILE as a JSON line {kind, value},
// and every token grant as {kind: "grant", value: GRANT_TYPE}: the test looks for each value
// in everything belay wrote, and counts the refresh grants.
import { appendFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import express from "express";
import { DemoInMemoryAuthProvider } from "@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js";
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { createServer } from "@modelcontextprotocol/server-everything/dist/server/index.js";

const port = Number(process.argv[2]);
const secretsFile = process.argv[3];
const ttl = Number(process.argv[4] || 3600);
const note = (kind, value) => { if (value) appendFileSync(secretsFile, JSON.stringify({ kind, value }) + "\n"); };

const base = new URL(`http://127.0.0.1:${port}/`);
const mcpUrl = new URL(`http://127.0.0.1:${port}/mcp`);

class Provider extends DemoInMemoryAuthProvider {
  constructor() {
    super((resource) => resource && resource.href === mcpUrl.href);
    this.refresh = new Map();
  }
  async authorize(client, params, res) {
    const redirect = res.redirect.bind(res);
    res.redirect = (url) => { note("code", new URL(url).searchParams.get("code")); return redirect(url); };
    return super.authorize(client, params, res);
  }
  issue(clientId, scopes, resource) {
    const token = randomUUID(), refresh = randomUUID();
    this.tokens.set(token, { token, clientId, scopes, expiresAt: Date.now() + ttl * 1000, resource, type: "access" });
    this.refresh.set(refresh, { clientId, scopes, resource });
    note("access_token", token);
    note("refresh_token", refresh);
    return { access_token: token, token_type: "bearer", expires_in: ttl, refresh_token: refresh, scope: scopes.join(" ") };
  }
  async exchangeAuthorizationCode(client, code, verifier, redirectUri, resource) {
    const t = await super.exchangeAuthorizationCode(client, code, verifier, redirectUri, resource);
    const data = this.tokens.get(t.access_token);
    this.tokens.delete(t.access_token);
    return this.issue(client.client_id, data.scopes, data.resource);
  }
  // the demo throws a plain Error for a token it does not know (a 500); a resource server
  // answers 401 invalid_token (RFC 6750), which is what a client must handle
  async verifyAccessToken(token) {
    const t = this.tokens.get(token);
    if (!t || t.expiresAt < Date.now()) throw new InvalidTokenError("Invalid or expired token");
    return super.verifyAccessToken(token);
  }
  async exchangeRefreshToken(client, refreshToken, scopes, resource) {
    const r = this.refresh.get(refreshToken);
    if (!r || r.clientId !== client.client_id) throw new Error("Invalid refresh token");
    if (resource && resource.href !== mcpUrl.href) throw new Error(`Invalid resource: ${resource}`);
    this.refresh.delete(refreshToken);
    return this.issue(client.client_id, r.scopes, r.resource);
  }
}
const provider = new Provider();
const store = provider.clientsStore;
const register = store.registerClient.bind(store);
store.registerClient = async (c) => { note("client_secret", c.client_secret); return register(c); };

const app = express();
app.use((req, _res, next) => {
  if (req.path === "/token") {
    express.urlencoded({ extended: false })(req, _res, () => {
      note("grant", req.body?.grant_type);
      note("code_verifier", req.body?.code_verifier);
      next();
    });
  } else next();
});
// A test's lever: every access token issued so far stops being valid (as when an
// authorization server revokes them or restarts), refresh tokens stay.
app.post("/test/revoke", (_req, res) => {
  for (const [k, v] of provider.tokens) if (v.type === "access") provider.tokens.delete(k);
  res.json({ revoked: true });
});
app.use(mcpAuthRouter({ provider, issuerUrl: base, resourceServerUrl: mcpUrl, scopesSupported: ["mcp:tools"] }));

const auth = requireBearerAuth({ verifier: provider, requiredScopes: ["mcp:tools"],
  resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  expectedResource: mcpUrl });
const transports = new Map();
app.all("/mcp", auth, express.json(), async (req, res) => {
  const sid = req.headers["mcp-session-id"];
  if (sid && transports.has(sid)) return transports.get(sid).handleRequest(req, res, req.body);
  if (sid || req.method !== "POST" || !isInitializeRequest(req.body)) {
    res.status(400).json({ jsonrpc: "2.0", error: { code: -32000, message: "no session" }, id: null });
    return;
  }
  const { server, cleanup } = createServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => transports.set(id, transport) });
  server.server.onclose = async () => {
    if (transport.sessionId) { transports.delete(transport.sessionId); cleanup(transport.sessionId); }
  };
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
app.listen(port, "127.0.0.1", () => console.log(`listening on ${port}`));
