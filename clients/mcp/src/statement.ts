// What the model may send: one read-only query. The first keyword is checked here for a clear
// message; the read-only transaction and the extended protocol (one statement only) enforce it.

const READING_KEYWORDS = new Set(["select", "with", "values", "table"]);

export class StatementError extends Error {}

/** The statement's first keyword, lower-cased, after comments, white space and parentheses. */
export function firstKeyword(sql: string): string {
    let rest = sql;
    for (;;) {
        const before = rest;
        rest = rest.replace(/^[\s(]+/, "");
        rest = rest.replace(/^--[^\n]*(\n|$)/, "");
        if (rest.startsWith("/*")) {
            const end = rest.indexOf("*/");
            rest = end < 0 ? "" : rest.slice(end + 2);
        }
        if (rest === before) break;
    }
    const match = /^[A-Za-z_]+/.exec(rest);
    return match ? match[0].toLowerCase() : "";
}

/** Refuses a statement that is empty or does not start like a query. */
export function requireQuery(sql: string): void {
    const keyword = firstKeyword(sql);
    if (keyword === "") throw new StatementError("the statement is empty: send one SELECT query");
    if (!READING_KEYWORDS.has(keyword)) {
        throw new StatementError(
            `only read-only queries (SELECT, WITH, VALUES, TABLE) are accepted; this statement starts with ${keyword.toUpperCase()}`,
        );
    }
}
