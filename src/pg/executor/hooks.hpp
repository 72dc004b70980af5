// The gate in the executor path: every statement of a gated session that reads a governed
// column is decided before it runs (docs/design.md walks the path).
#pragma once

#include "pg/pg.hpp"

#include <string>

namespace clarify::pg {

void install_gate();
// The statistics filter (pg/executor/statistics_filter.cpp), installed with the gate.
void install_statistics_filter();
// Called once by the audit writer process: its own statements are never decided.
void mark_audit_writer();
// Whether this process decides statements now: the gate is on, and this is neither the audit
// writer nor a backend loading the governance catalog.
bool gate_active();

// While alive, the permission check hook lets checks through undecided: clarify.check() applies
// the caller's privilege checks through it, which are not statements to decide.
class GateBypass {
  public:
    GateBypass();
    ~GateBypass();
    GateBypass(const GateBypass &) = delete;
    GateBypass &operator=(const GateBypass &) = delete;

  private:
    bool saved_;
};

// clarify.last_decision(): the session's most recent decision; "" when there was none.
std::string last_decision_json();

}  // namespace clarify::pg
