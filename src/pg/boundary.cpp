#include "pg/pg.hpp"
#include "pg/boundary.hpp"

#include <cstring>

namespace clarify::pg {

ErrorData *run_guarded(void (*fn)(void *), void *arg, std::exception_ptr *thrown) noexcept {
    MemoryContext volatile context = CurrentMemoryContext;
    ErrorData *volatile edata = nullptr;
    PG_TRY();
    {
        // Caught here, inside PostgreSQL's frame: PG_END_TRY then pops it as on a normal return.
        try {
            fn(arg);
        } catch (...) {
            *thrown = std::current_exception();
            MemoryContextSwitchTo(context);
        }
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(context);
        edata = CopyErrorData();
        FlushErrorState();
    }
    PG_END_TRY();
    return edata;
}

char *copy_for_report(const std::string &text) noexcept {
    char *out = static_cast<char *>(
        MemoryContextAllocExtended(CurrentMemoryContext, text.size() + 1, MCXT_ALLOC_NO_OOM));
    if (out) std::memcpy(out, text.c_str(), text.size() + 1);
    return out;
}

char *copy_internal_error(const char *what) noexcept {
    static const char prefix[] = "pg_clarify internal error: ";
    size_t n = strlen(what);
    char *out = static_cast<char *>(
        MemoryContextAllocExtended(CurrentMemoryContext, sizeof(prefix) + n, MCXT_ALLOC_NO_OOM));
    if (!out) return nullptr;
    std::memcpy(out, prefix, sizeof(prefix) - 1);
    std::memcpy(out + sizeof(prefix) - 1, what, n + 1);
    return out;
}

void raise_caught(const EntryState &entry, ErrorData *pg_error, int sqlcode, const char *message,
                  const char *detail, const char *hint) {
    // A body's C++ exception may have left these pointing into its frames, now gone.
    PG_exception_stack = entry.exception_stack;
    error_context_stack = entry.context_stack;
    MemoryContextSwitchTo(entry.memory);
    if (pg_error) ReThrowError(pg_error);
    ereport(ERROR, (errcode(sqlcode), errmsg_internal("%s", message ? message : "pg_clarify error"),
                    detail ? errdetail_internal("%s", detail) : 0, hint ? errhint("%s", hint) : 0));
    pg_unreachable();
}

}  // namespace clarify::pg
