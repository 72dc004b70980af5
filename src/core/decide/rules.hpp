// The gate's rules for one request (one catalog snapshot, one agent, one resolution record):
// eligibility, what the record binds, and the slot to ask about for a governed column.
// Shared by resolve_term (core/decide/resolve.cpp) and decide (core/decide/decision.cpp);
// docs/reference.md states them.
#pragma once
#include "core/core_guard.hpp"
#include "core/decide/decision.hpp"
#include "core/decide/versions.hpp"
#include "core/decide/words.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace clarify::detail {

std::string quoted(const std::string &s);
CoverageSource coverage_of(BindingSource source);

// Why a concept is not eligible, in words a business user understands.
std::string ineligibility(const Concept *c, Timestamp now);

template <typename T>
bool contains(const std::vector<T> &values, const T &value) {
    return std::find(values.begin(), values.end(), value) != values.end();
}

// The terms that decide a column (docs/reference.md, "Which terms decide a column").
struct DecidingTerms {
    std::vector<std::string> terms;
    bool mentioned = false;  // the question mentions them; otherwise they are all its terms
};

// What one deciding term says about a column: it resolves to one of the column's meanings, it
// has no eligible meaning and no default (nothing to ask), or it blocks rules 2 and 3.
enum class TermOutcome { Resolves, Silent, Blocks };
struct TermVerdict {
    TermOutcome outcome = TermOutcome::Blocks;
    std::string concept_id;
    bool by_default = false;
};

// The rules of one request, evaluated against one catalog snapshot and one agent.
class Rules {
  public:
    // `mentioned`: the terms the record's question mentions, matched once by the caller;
    // nullptr: matched here.
    Rules(const Catalog &catalog, const AgentContext &ctx, const ResolutionRecord &record,
          const std::vector<std::string> *mentioned = nullptr);
    Rules(const Rules &) = delete;
    Rules &operator=(const Rules &) = delete;

    Timestamp now() const { return ctx_.now; }

    const std::vector<std::string> &mentioned_terms() const { return *mentioned_; }
    bool mentioned(const std::string &term) const { return contains(*mentioned_, term); }

    // The column's terms the question mentions, or all of them when it mentions none.
    DecidingTerms deciding_terms(const std::vector<std::string> &concept_ids) const;

    // Rules 2 and 3 for one term, against the meanings `concept_ids` a column carries.
    TermVerdict verdict(const std::string &term, const std::vector<std::string> &concept_ids) const;

    // The mentioned terms whose candidates are all time windows.
    std::vector<std::string> mentioned_windows() const;

    bool eligible(const std::string &concept_id) const;

    // A default approved for an older definition of its concept (core/decide/versions.hpp).
    bool stale_default(const Default &d) const { return stale(catalog_, d); }
    int version_of(const std::string &concept_id) const {
        return current_version(catalog_, concept_id);
    }

    std::string label(const std::string &concept_id) const;

    std::vector<std::string> eligible_candidates(const std::string &term) const;

    // The default that applies to this agent: a role-specific one beats the one for everyone.
    // Two role-specific defaults naming different concepts conflict: none applies.
    const Default *applicable_default(const std::string &term, bool *conflict) const;

    // An approval recorded with the question's text holds only under a record asking exactly
    // that (trimmed) text: a question_id kept for another question does not borrow it.
    // *other_text tells that one would have held under its own question text; *stale_version
    // the version of one that would have held for its concept's older definition.
    const Approval *valid_approval(const std::string &question_id, const std::string &term,
                                   const std::string &concept_id, bool *other_text = nullptr,
                                   int *stale_version = nullptr) const;

    struct Verification {
        bool verified = false;
        std::string reason;
        std::int64_t approval_id = 0;
        std::string confirmed_by;
        int approved_version = 0;  // the claim holds for an older definition only
    };

    Verification verify(const Binding &b) const;

    Coverage coverage(const GovernedColumn &column, const std::string &concept_id,
                      const std::string &term, CoverageSource source) const;

    // Rule 1 (a verified confirmation or explicit naming), then rules 2 and 3 over the column's
    // deciding terms: every one must resolve to one of its meanings.
    std::optional<Coverage> cover(const GovernedColumn &column) const;

    Slot make_slot(const Concept *c, const std::string &concept_id, const std::string &term,
                   State state) const;

    // The term to ask about when nothing names one: the one with the most candidates, among the
    // deciding terms first (a term the user said).
    std::string main_term(const std::string &concept_id,
                          const DecidingTerms *deciding = nullptr) const;

    std::string spoken_term(const std::string &term, const std::string &concept_id) const;

    // Why one concept read by `column` is not covered; the first state in precedence order
    // wins. Nothing when this concept is not why: its deciding terms resolve to the column, or
    // the user said none of its terms while saying another of the column's.
    std::optional<Slot> diagnose(const std::string &concept_id, const GovernedColumn &column) const;

    // A column left uncovered with no concept to blame (not expected): ask what it means.
    Slot unresolved(const std::string &concept_id) const;

  private:
    const Catalog &catalog_;
    const AgentContext &ctx_;
    const ResolutionRecord &record_;
    std::vector<std::string> own_mentions_;
    const std::vector<std::string> *mentioned_ = nullptr;
};

}  // namespace clarify::detail
