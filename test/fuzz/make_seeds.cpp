// Writes the audit_entry target's seeds: real queue entries (full, short, a note) from encode().
// Run after a change to the entry format: make_seeds test/fuzz/corpus/audit_entry
#include "core/audit/record.hpp"

#include <cstdio>
#include <fstream>
#include <string>

using namespace clarify;

namespace {

void write(const std::string &dir, const std::string &name, const std::string &bytes) {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIRECTORY\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    AuditRecord a;
    a.decision_id = 42;
    a.decided_at = 1'700'000'000'000'000;
    a.database = 16384;
    a.session_role = 16500;
    a.acting_role = 16500;
    a.pid = 4242;
    a.query_id = -7;
    a.allowed = false;
    a.state = State::Ambiguous;
    a.question_id = "q_1042";
    a.statement = "SELECT sum(booked_amount) FROM sales.orders";
    a.reason = "three approved meanings";
    a.columns = R"(["sales.orders.booked_amount"])";
    a.bindings = "[]";
    a.payload = R"({"state":"AMBIGUOUS","slots":[]})";
    a.record = R"({"question_id":"q_1042","metric":"revenue"})";
    std::string bytes;
    encode(a, bytes);
    write(dir, "full_rejected", bytes);

    AuditRecord allowed = a;
    allowed.allowed = true;
    allowed.state = State::Resolved;
    allowed.payload.clear();
    allowed.record.clear();
    bytes.clear();
    encode(allowed, bytes);
    write(dir, "full_allowed", bytes);

    AuditRecord note = a;
    note.note = "not audited in time";
    bytes.clear();
    encode(note, bytes);
    write(dir, "note", bytes);

    AuditRecord stored = a;
    stored.record_hash = {1, 2};
    stored.shape_hash = {3, 4};
    stored.statement_hash = {5, 6};
    bytes.clear();
    encode_short(stored, bytes);
    write(dir, "short", bytes);

    // A name bound to its key: the decision's entity bindings, the entries' last field.
    AuditRecord named = allowed;
    named.entity_bindings =
        R"([{"key":"42","kind":"entity","relation":"crm.customers","value":"Acme"}])";
    bytes.clear();
    encode(named, bytes);
    write(dir, "full_entity_bindings", bytes);
    named.record_hash = {};
    named.shape_hash = {3, 4};
    named.statement_hash = {5, 6};
    bytes.clear();
    encode_short(named, bytes);
    write(dir, "short_entity_bindings", bytes);

    // The former format (AUD6, no entity bindings), still read from the WAL after an update.
    bytes.clear();
    encode(allowed, bytes);
    bytes.resize(bytes.size() - 4);
    bytes[0] = '6';  // the format word, little-endian
    write(dir, "full_aud6", bytes);
    return 0;
}
