/**
 * What each POST to /mcp costs a principal, decided before any of its
 * messages runs: every JSON-RPC message is one token (a batch of ten is
 * ten), drawn from the `write` budget for a call of a tool that changes
 * something and from `read` for everything else — reads, initialize,
 * tools/list, ping, notifications, unknown methods and unknown tools.
 */
import { isIPv4, isIPv6 } from "node:net";
import { calledTool } from "./json-rpc-messages.js";
import type { Principal } from "./principal.js";
import type { BudgetName, RateVerdict } from "./rate-limit.js";

/** The key a principal's rate budgets are counted under: one per subject of a tenant, whatever credential it uses. */
export const rateKeyOf = (principal: Principal) => `${principal.tenant}\u0000${principal.subject}`;

/** The tokens one POST's messages take from each budget. */
export function costOf(messages: readonly unknown[], writeTools: ReadonlySet<string>): Record<BudgetName, number> {
  let write = 0;
  for (const message of messages) {
    const tool = calledTool(message);
    if (tool !== undefined && writeTools.has(tool)) write += 1;
  }
  return { read: messages.length - write, write };
}

/** What a refused POST is told: the budget, and when a retry can pass (or that it never can, as sent). */
export function overBudget(verdict: Extract<RateVerdict, { ok: false }>): { message: string; remedy: string } {
  const { name, budget, wanted, retryAfterSeconds } = verdict;
  if (wanted > budget.burst) {
    return {
      message: `This request holds ${wanted} ${name} messages, more than your burst of ${budget.burst}: it can never fit your budget of ${budget.perMinute} per minute. Nothing was done.`,
      remedy: `send at most ${budget.burst} ${name} messages per request`,
    };
  }
  return {
    message: `Too many ${name} calls: your budget is ${budget.perMinute} per minute with bursts of ${budget.burst}. Retry in ${retryAfterSeconds} s.`,
    remedy: `wait ${retryAfterSeconds} s, then retry; nothing was done`,
  };
}

/** Whether a raw JSON-RPC message (before validation) is a tools/call request, which gets a tool result when refused. */
export function isToolCallRequest(message: unknown): message is { id: string | number; method: "tools/call" } {
  if (message === null || typeof message !== "object") return false;
  const { id, method } = message as { id?: unknown; method?: unknown };
  return method === "tools/call" && (typeof id === "string" || typeof id === "number");
}

/**
 * The key failed authentications are counted under for a client address:
 * an IPv4 address as it is (an IPv4-mapped IPv6 address as its IPv4), an
 * IPv6 address by its /64 prefix — one subscriber's allocation, within
 * which a client can pick a new address for every request.
 */
export function throttleKeyOf(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped !== null) return mapped[1]!;
  if (isIPv4(address) || !isIPv6(address)) return address;
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const front = head === "" ? [] : head.split(":");
  const back = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::")
    ? [...front, ...Array<string>(8 - front.length - back.length).fill("0"), ...back]
    : front;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
