// The C++/PostgreSQL boundary. A PostgreSQL ERROR is a longjmp that skips C++ destructors, and
// a C++ exception that unwinds a PostgreSQL frame leaves PG_exception_stack (and
// error_context_stack) pointing into that dead frame, so the next ERROR jumps into garbage.
// The rule, for every file of src/pg:
//  1. PostgreSQL calls from C++ run inside pg_guard(f): it turns their ERROR into a PgError.
//     f must not own C++ objects with destructors across a PostgreSQL call (a longjmp would skip
//     them). A C++ exception f throws anyway (std::bad_alloc from a container, a bug) is caught
//     inside PostgreSQL's PG_TRY and rethrown only after PG_END_TRY has popped that frame, with
//     the memory context of pg_guard's entry current again.
//  2. Every entry point PostgreSQL calls (SQL functions, hooks, background worker mains) that runs
//     C++ wraps its body in cpp_entry(f): any exception becomes an ERROR (SQLSTATE kept), raised
//     once every C++ frame of the body is gone and with PG_exception_stack, error_context_stack
//     and the memory context of the entry put back.
//  3. A callback PostgreSQL calls from inside its own code (tree walkers, syscache/relcache and
//     memory context callbacks, GUC hooks, shmem-exit callbacks, signal handlers) lets no C++
//     exception out: it is C-style code that cannot throw (PostgreSQL calls and plain data), or
//     catches everything itself (a GUC check hook returns false: check_resolution,
//     check_audit_conninfo), or wraps its C++ in cpp_entry where it may raise (statistics hooks,
//     ExecutorCheckPerms).
//  4. Code that catches a C++ exception thrown by pg_guard also undoes what PostgreSQL state the
//     body set up (a transaction, SPI, a reader), as for a PgError: catch (...), not PgError only.
// sql/boundary_throw.sql and test/shell/crash_free.t throw inside both on purpose.
#pragma once

#include "pg/pg.hpp"
extern "C" {
#include "utils/memutils.h"
}

#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace clarify::pg {

class PgError : public std::exception {
  public:
    explicit PgError(ErrorData *edata) : edata_(edata) {}
    const char *what() const noexcept override {
        return edata_ && edata_->message ? edata_->message : "PostgreSQL error";
    }
    ErrorData *edata() const { return edata_; }

  private:
    ErrorData *edata_;  // from CopyErrorData, in the memory context current at the call
};

// An error the C++ side raises on purpose, with its SQLSTATE and texts.
class ReportedError : public std::exception {
  public:
    ReportedError(int sqlcode, std::string message, std::string detail = {}, std::string hint = {})
        : sqlcode(sqlcode),
          message(std::move(message)),
          detail(std::move(detail)),
          hint(std::move(hint)) {}
    const char *what() const noexcept override { return message.c_str(); }
    int sqlcode;
    std::string message, detail, hint;
};

// Runs fn(arg) under PG_TRY; returns the caught ERROR (flushed, copied) or nullptr, and stores a
// C++ exception fn threw in *thrown for the caller to rethrow after PG_END_TRY. Only this
// function has a setjmp frame, so no caller's locals can be clobbered by the longjmp.
ErrorData *run_guarded(void (*fn)(void *), void *arg, std::exception_ptr *thrown) noexcept;

template <typename F>
auto pg_guard(F &&f) -> decltype(f()) {
    using R = decltype(f());
    using Fn = std::remove_reference_t<F>;
    if constexpr (std::is_void_v<R>) {
        auto trampoline = [](void *p) { (*static_cast<Fn *>(p))(); };
        std::exception_ptr thrown;
        if (ErrorData *edata =
                run_guarded(trampoline, const_cast<void *>(static_cast<const void *>(&f)), &thrown))
            throw PgError(edata);
        if (thrown) std::rethrow_exception(thrown);
    } else {
        static_assert(std::is_trivially_copyable_v<R>, "pg_guard returns plain values only");
        struct Slot {
            Fn *fn;
            R result;
        } slot{&f, R{}};
        auto trampoline = [](void *p) {
            Slot *s = static_cast<Slot *>(p);
            s->result = (*s->fn)();
        };
        std::exception_ptr thrown;
        if (ErrorData *edata = run_guarded(trampoline, &slot, &thrown)) throw PgError(edata);
        if (thrown) std::rethrow_exception(thrown);
        return slot.result;
    }
}

// Copies text into the current memory context without ever raising or throwing (NULL on
// failure); the second prefixes it as an internal error.
char *copy_for_report(const std::string &text) noexcept;
char *copy_internal_error(const char *what) noexcept;

// PostgreSQL's error state at an entry point: what a C++ exception may have left changed.
struct EntryState {
    sigjmp_buf *exception_stack;
    ErrorContextCallback *context_stack;
    MemoryContext memory;
};

// Raises what cpp_entry caught, with `entry` restored first. Separate and noreturn so that it runs
// with no C++ frame live.
[[noreturn]] void raise_caught(const EntryState &entry, ErrorData *pg_error, int sqlcode,
                               const char *message, const char *detail, const char *hint);

template <typename F>
auto cpp_entry(F &&f) -> decltype(f()) {
    const EntryState entry{PG_exception_stack, error_context_stack, CurrentMemoryContext};
    ErrorData *pg_error = nullptr;
    int sqlcode = ERRCODE_INTERNAL_ERROR;
    const char *message = nullptr, *detail = nullptr, *hint = nullptr;
    try {
        return f();
    } catch (const PgError &e) {
        pg_error = e.edata();
    } catch (const ReportedError &e) {
        sqlcode = e.sqlcode;
        message = copy_for_report(e.message);
        detail = e.detail.empty() ? nullptr : copy_for_report(e.detail);
        hint = e.hint.empty() ? nullptr : copy_for_report(e.hint);
    } catch (const std::bad_alloc &) {
        sqlcode = ERRCODE_OUT_OF_MEMORY;
        message = "out of memory in pg_clarify";
    } catch (const std::exception &e) {
        message = copy_internal_error(e.what());
    } catch (...) {
        message = "pg_clarify internal error: unknown C++ exception";
    }
    raise_caught(entry, pg_error, sqlcode, message, detail, hint);
}

}  // namespace clarify::pg
