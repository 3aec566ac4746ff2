/* mcp_refuse.h - answering an MCP client that belay cannot serve, before any session exists
 * (`belay connect` when no console takes the run): every request read from in_fd (one
 * JSON-RPC message per line, as the stdio transport frames them) gets a JSON-RPC error whose
 * message says why, until in_fd ends; notifications and responses get nothing. An agent's
 * `initialize` then fails with the cause instead of waiting on a silent pipe (most agents
 * hide a server's stderr).
 *
 * Blocks the calling thread until in_fd ends. Lines over MCP_REFUSE_LINE_MAX are dropped
 * unanswered. Must not: print (out_fd is the client's). */
#ifndef BELAY_MCP_MCP_REFUSE_H
#define BELAY_MCP_MCP_REFUSE_H

#define MCP_REFUSE_LINE_MAX (16u << 20)
#define MCP_REFUSE_CODE (-32000)

/* reason: a short machine word for data.belay.reason ("console_unavailable"); message: the
 * error's text. Returns how many requests were answered, or -1 when out_fd failed. */
long mcp_refuse_requests(int in_fd, int out_fd, const char *reason, const char *message);

#endif
