/* The signature port: the back office's signature over a decision, checked against its keys (lib/auth). */

/** What a decision's signature says once checked against the back office's keys: its claims, or why it is not the back office's. */
export type SignatureVerdict = { ok: true; claims: Readonly<Record<string, unknown>> } | { ok: false; problem: string };

/**
 * Checks the back office's signature over a decision (0017-lifecycle.md). Throws only when the
 * keys cannot be had (an outage, never the decision's fault): the invocation is then tried again.
 */
export type CheckSignature = (signature: string) => Promise<SignatureVerdict>;
