// The C++/PostgreSQL boundary. A PostgreSQL ERROR is a longjmp that would skip C++ destructors,
// and a C++ exception unwinding through a PostgreSQL frame crashes the server, so:
//  - pg_guard(f) runs PostgreSQL calls and turns their ERROR into a PgError exception;
//  - cpp_entry(f) runs a C++ body from an entry point and raises any failure as an ERROR
//    (SQLSTATE kept) only after every C++ frame of the body is gone.
// Lambdas given to pg_guard must not own C++ objects with destructors.
#pragma once

#include "pg.hpp"
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

// Runs fn(arg) under PG_TRY; returns the caught ERROR (flushed, copied) or nullptr. Only this
// function has a setjmp frame, so no caller's locals can be clobbered by the longjmp.
ErrorData *run_guarded(void (*fn)(void *), void *arg);

template <typename F>
auto pg_guard(F &&f) -> decltype(f()) {
    using R = decltype(f());
    using Fn = std::remove_reference_t<F>;
    if constexpr (std::is_void_v<R>) {
        auto trampoline = [](void *p) { (*static_cast<Fn *>(p))(); };
        if (ErrorData *edata =
                run_guarded(trampoline, const_cast<void *>(static_cast<const void *>(&f))))
            throw PgError(edata);
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
        if (ErrorData *edata = run_guarded(trampoline, &slot)) throw PgError(edata);
        return slot.result;
    }
}

// Copies text into the current memory context without ever raising or throwing (NULL on
// failure); the second prefixes it as an internal error.
char *copy_for_report(const std::string &text) noexcept;
char *copy_internal_error(const char *what) noexcept;

// Raises what cpp_entry caught. Separate and noreturn so that it runs with no C++ frame live.
[[noreturn]] void raise_caught(ErrorData *pg_error, int sqlcode, const char *message,
                               const char *detail, const char *hint);

template <typename F>
auto cpp_entry(F &&f) -> decltype(f()) {
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
    raise_caught(pg_error, sqlcode, message, detail, hint);
}

}  // namespace clarify::pg
