// The audit writer's retry policy (pg/audit/batch.cpp follows it): a batch that fails is retried
// whole, with back-off, kWholeAttempts times; then its entries are written one by one, each in its
// own transaction, and one that cannot be written even alone is written reduced
// (core/audit/batch_rows.hpp, unwritable), so that a single bad entry never stops the audit of a
// database. What failed stays queued until it is written.
#pragma once
#include "core/core_guard.hpp"

#include <cstddef>

namespace clarify {

class RetryPolicy {
  public:
    static constexpr int kWholeAttempts = 3;

    // Whether a batch of `entries` is written whole (else one by one).
    bool whole(std::size_t entries) const noexcept {
        return failures_ < kWholeAttempts || entries <= 1;
    }
    // Writing a batch of `entries` whole failed: true to back off (the caller returns and tries
    // again later), false to go on one by one at once (a single entry that failed every time).
    bool back_off(std::size_t entries) noexcept {
        ++failures_;
        return entries > 1 || failures_ < kWholeAttempts;
    }
    // A batch was written (whole, or one by one to its end).
    void written() noexcept { failures_ = 0; }
    int failures() const noexcept { return failures_; }

  private:
    int failures_ = 0;
};

// One entry written alone: its outcome decides the next step.
enum class EntryStep {
    Next,     // written (whole or reduced): on to the next entry
    Reduce,   // its full row failed: write its reduced row
    BackOff,  // even its reduced row failed: the audit itself is unavailable
};
EntryStep after_entry(bool failed, bool was_reduced) noexcept;

}  // namespace clarify
