/*
 * How many requests one page of a list holds (docs/decisions/0015-reading-requests.md): the
 * call's `limit`, 1 to MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE when absent. A module of its own and
 * pure, so that the demo page asks within the same bound (web/).
 */

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
