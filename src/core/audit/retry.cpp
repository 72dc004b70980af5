#include "core/audit/retry.hpp"

namespace clarify {

EntryStep after_entry(bool failed, bool was_reduced) noexcept {
    if (!failed) return EntryStep::Next;
    return was_reduced ? EntryStep::BackOff : EntryStep::Reduce;
}

}  // namespace clarify
