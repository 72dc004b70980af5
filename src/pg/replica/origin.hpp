// Where a decision was made (clarify.audit's `origin`) and the node component of decision ids
// that keeps them unique across a primary and its standbys (docs/design.md, "Read replicas").
#pragma once

#include "pg/pg.hpp"

#include <string>
#include <string_view>

namespace clarify::pg {

// This server's origin: its cluster_name, or, when unset, "<system identifier>@<host>:<port>".
// Fixed for the server's life (every part of it is set at server start).
const std::string &server_origin();

// The low byte every decision id of that origin carries (a hash of the origin's text).
uint32 origin_node(std::string_view origin);

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
