// Periods as people read them: the gate's half-open UTC ranges shown in the session's zone. Both
// sides on midnight read as dates with the last day included ("1 Jul – 30 Sep 2026", CONTRACT.md
// §16); any other period reads as times with the end said to be excluded.

interface Local {
    year: number;
    month: string;
    day: number;
    time: string;
    midnight: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;
// Fixed English abbreviations: ICU's vary by version ("Sep" or "Sept").
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** The zone's formatter; UTC when the session's TimeZone is not an IANA name Intl knows. */
function formatter(timeZone: string): Intl.DateTimeFormat {
    const options: Intl.DateTimeFormatOptions = {
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        hourCycle: "h23",
    };
    try {
        return new Intl.DateTimeFormat("en-GB", { ...options, timeZone });
    } catch {
        return new Intl.DateTimeFormat("en-GB", { ...options, timeZone: "UTC" });
    }
}

function local(instant: Date, format: Intl.DateTimeFormat): Local {
    const part = (type: string): string =>
        format.formatToParts(instant).find((p) => p.type === type)?.value ?? "";
    const time = `${part("hour")}:${part("minute")}`;
    return {
        year: Number(part("year")),
        month: MONTHS[Number(part("month")) - 1] ?? part("month"),
        day: Number(part("day")),
        time,
        midnight: time === "00:00" && part("second") === "00" && instant.getUTCMilliseconds() === 0,
    };
}

function instantOf(side: unknown): Date | null {
    if (typeof side !== "string" || side === "") return null;
    const d = new Date(side);
    return Number.isNaN(d.getTime()) ? null : d;
}

const dayText = (d: Local, withYear = true): string =>
    withYear ? `${d.day} ${d.month} ${d.year}` : `${d.day} ${d.month}`;
const momentText = (d: Local): string => `${dayText(d)} ${d.time}`;

/** A payload range `{"start", "end"}` in words, in `timeZone`; null when there is none. */
export function describeRange(range: unknown, timeZone: string): string | null {
    if (range === null || typeof range !== "object") return null;
    const r = range as { start?: unknown; end?: unknown };
    const start = instantOf(r.start);
    const end = instantOf(r.end);
    if (start === null && end === null) return null;
    const format = formatter(timeZone);
    const from = start ? local(start, format) : null;
    const to = end ? local(end, format) : null;
    if ((from?.midnight ?? true) && (to?.midnight ?? true)) {
        // The last day included: the day before the exclusive end's midnight, in the zone.
        const last = end ? local(new Date(end.getTime() - DAY_MS / 2), format) : null;
        if (from && last) {
            if (from.year === last.year && from.month === last.month && from.day === last.day)
                return dayText(from);
            return `${dayText(from, from.year !== last.year)} – ${dayText(last)}`;
        }
        return from ? `from ${dayText(from)}` : `until ${dayText(last as Local)}`;
    }
    if (from && to) return `${momentText(from)} – ${momentText(to)} (end excluded)`;
    return from ? `from ${momentText(from)}` : `before ${momentText(to as Local)}`;
}
