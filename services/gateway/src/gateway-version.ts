/** The gateway's version, as MCP `serverInfo` and `whoami` report it. */
export const gatewayVersion = "0.1.0";
