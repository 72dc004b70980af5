// Where a decision was made (clarify.audit's `origin`); its node in decision ids is
// core/audit/decision_id.hpp's origin_node().
#pragma once

#include "pg/pg.hpp"

#include <string>

namespace clarify::pg {

// This server's origin: its cluster_name, or, when unset, "<system identifier>@<host>:<port>".
// Fixed for the server's life (every part of it is set at server start).
const std::string &server_origin();

// While an ingest writes a standby's batch, the origin its rows carry instead of this server's
// (clarify.batch_origin(), the default of clarify.audit_batches.origin). Restored when it ends.
class IngestOrigin {
  public:
    explicit IngestOrigin(const std::string &origin);
    ~IngestOrigin();
    IngestOrigin(const IngestOrigin &) = delete;
    IngestOrigin &operator=(const IngestOrigin &) = delete;
};

}  // namespace clarify::pg
