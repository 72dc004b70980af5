// Test-only entry point that throws C++ exceptions inside pg_guard and cpp_entry bodies
// (sql/boundary_throw.sql, test/shell/crash_free.t). No extension script declares it: only a
// superuser can bind it (CREATE FUNCTION ... LANGUAGE C), and it refuses non-superusers.
#include "pg/pg.hpp"
#include "pg/boundary.hpp"

extern "C" {
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(clarify_debug_throw_in_guard);
}

#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace clarify::pg {
namespace {

void probe_context(void *) {
    errcontext("inside a frame that is gone");
}

// Throws what `kind` names from a body that has pushed an error context callback and switched
// the memory context, as a real body in the middle of its PostgreSQL calls may have.
[[noreturn]] void throw_from_body(const char *kind) {
    ErrorContextCallback callback{error_context_stack, probe_context, nullptr};
    error_context_stack = &callback;
    MemoryContextSwitchTo(TopMemoryContext);
    if (std::strcmp(kind, "bad_alloc") == 0) throw std::bad_alloc();
    if (std::strcmp(kind, "allocation") == 0) {
        // A call of operator new itself, which no compiler may elide (a new-expression whose
        // result is unused may be, and GCC 14 does): it fails, a real std::bad_alloc.
        void *huge = ::operator new(std::numeric_limits<std::size_t>::max() / 2);
        ::operator delete(huge);
    }
    throw std::runtime_error("thrown inside the body");
}

// Catches what pg_guard rethrows and says which of PostgreSQL's error state it left changed,
// then puts that state back so that a failing check reads as a diff, not a crash.
std::string state_after_caught_throw() {
    sigjmp_buf *jump = PG_exception_stack;
    ErrorContextCallback *context = error_context_stack;
    MemoryContext memory = CurrentMemoryContext;
    bool caught = false;
    try {
        pg_guard([] { throw_from_body("runtime_error"); });
    } catch (const std::runtime_error &) {
        caught = true;  // expected: what matters is the state it left
    }
    std::string changed = caught ? "" : " nothing thrown";
    if (PG_exception_stack != jump) changed += " exception stack";
    if (error_context_stack != context) changed += " error context stack";
    if (CurrentMemoryContext != memory) changed += " memory context";
    PG_exception_stack = jump;
    error_context_stack = context;
    MemoryContextSwitchTo(memory);
    return changed.empty() ? "error state kept" : "changed:" + changed;
}

}  // namespace
}  // namespace clarify::pg

// clarify_debug_throw_in_guard(kind text) returns text: 'caught' reports the error state after a
// caught throw; 'entry' throws from a cpp_entry body; anything else throws inside pg_guard.
extern "C" Datum clarify_debug_throw_in_guard(PG_FUNCTION_ARGS) {
    if (!superuser())
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("clarify_debug_throw_in_guard is for the test suite only")));
    const char *kind = PG_ARGISNULL(0) ? "runtime_error" : text_to_cstring(PG_GETARG_TEXT_PP(0));
    const char *result = clarify::pg::cpp_entry([kind]() -> const char * {
        using namespace clarify::pg;
        if (std::strcmp(kind, "caught") == 0) return copy_for_report(state_after_caught_throw());
        if (std::strcmp(kind, "entry") == 0) throw_from_body("runtime_error");
        pg_guard([kind] { throw_from_body(kind); });
        return nullptr;
    });
    PG_RETURN_TEXT_P(cstring_to_text(result ? result : "returned"));
}
