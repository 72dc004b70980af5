// The clarification budget (docs/reference.md, "Clarification budget"): which rejections are a
// question's rounds, when its budget is spent, and what may then be assumed. The glue counts the
// rounds (src/pg/executor/question_rounds.cpp); these rules decide what the count means.
#pragma once
#include "core/core_guard.hpp"
#include "core/model/model.hpp"

#include <string>
#include <vector>

namespace clarify {

class Catalog;
struct Coverage;
struct Decision;
struct Slot;
enum class AssumeBelow;
enum class Impact;

// A question's place in its budget, stamped on a decision the glue counted rounds for.
struct Rounds {
    int round = 0;           // this decision's round, 1 for the first; 0: not counted
    int max_rounds = 0;      // pg_clarify.max_rounds; 0: no budget
    bool exhausted = false;  // the question had max_rounds rounds before this decision
};

// A decision that, refused, is one of its question's rounds: AMBIGUOUS, under a question_id. Only
// such a decision is counted for (an allowed one pays nothing).
bool asks_a_round(const Decision &decision, const std::string &question_id);

// The rounds of a decision whose question had `prior` rounds before it.
Rounds rounds_of(int prior, int max_rounds);

// Once the budget is spent, whether this AMBIGUOUS slot is assumed (its term's impact below
// high, a meaning the statement reads) or still asked.
bool assumed_once_spent(const Slot &slot);

// Whether a slot of this kind of meaning may ever be assumed for a spent budget. The hook for
// kinds where a guess names the wrong row or set (entities): they answer false here.
bool kind_assumed_once_spent(ConceptKind kind);

// Whether the payload carries "round" (and "max_rounds" with a budget, "budget_exhausted" when
// still refused after it was spent): an AMBIGUOUS decision whose rounds were counted.
bool shows_rounds(const Decision &decision);

// The HINT's opening sentence when the budget is spent and a question is still asked; "" else.
std::string spent_hint(const Decision &decision);

// Each meaning assumed rather than asked: the WARNING's message (naming the meaning and, when
// the spent budget assumed it, the rounds) and its DETAIL (why it was assumed).
struct AssumptionWarning {
    std::string message, detail;
};
// Whether an impact is below pg_clarify.assume_below's threshold (what may be assumed).
bool below_setting(Impact impact, AssumeBelow threshold);

std::vector<AssumptionWarning> assumption_warnings(const Catalog &catalog, const Decision &decision,
                                                   AssumeBelow assume_below);

}  // namespace clarify
