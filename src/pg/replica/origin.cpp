#include "pg/pg.hpp"
#include "pg/replica/origin.hpp"
#include "pg/boundary.hpp"

extern "C" {
#include "access/xlog.h"
#include "fmgr.h"
#include "postmaster/postmaster.h"
#include "utils/builtins.h"
#include "utils/guc.h"

PG_FUNCTION_INFO_V1(clarify_batch_origin);
}

#include <unistd.h>

namespace clarify::pg {

namespace {

// Set only while clarify.audit_ingest() writes a forwarded batch in this backend.
const std::string *ingesting = nullptr;

}  // namespace

const std::string &server_origin() {
    static std::string origin;
    if (!origin.empty()) return origin;
    if (cluster_name && cluster_name[0] != '\0') {
        origin = cluster_name;
        return origin;
    }
    char host[256] = "localhost";
    if (gethostname(host, sizeof(host)) != 0) strlcpy(host, "localhost", sizeof(host));
    host[sizeof(host) - 1] = '\0';
    origin = std::to_string(static_cast<unsigned long long>(GetSystemIdentifier())) + "@" + host +
             ":" + std::to_string(PostPortNumber);
    return origin;
}

IngestOrigin::IngestOrigin(const std::string &origin) {
    ingesting = &origin;
}

IngestOrigin::~IngestOrigin() {
    ingesting = nullptr;
}

}  // namespace clarify::pg

// clarify.batch_origin(): the origin of the batch row being inserted (the column's default).
extern "C" Datum clarify_batch_origin(PG_FUNCTION_ARGS) {
    const std::string &origin = clarify::pg::cpp_entry([]() -> const std::string & {
        return clarify::pg::ingesting ? *clarify::pg::ingesting : clarify::pg::server_origin();
    });
    PG_RETURN_TEXT_P(cstring_to_text_with_len(origin.data(), static_cast<int>(origin.size())));
}
