/**
 * What each POST to /mcp costs a principal, decided before any of its
 * messages runs: every JSON-RPC message is one token (a batch of ten is
 * ten), drawn from the `write` budget for a call of a tool that changes
 * something and from `read` for everything else — reads, initialize,
 * tools/list, ping, notifications, unknown methods and unknown tools.
 */
import { calledTool } from "./mcp/called-tool.js";
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
