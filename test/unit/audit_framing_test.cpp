// The audit queue's framing and free-space / wake arithmetic (core/audit/framing.hpp), one rule
// per test.
#include "core/audit/framing.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace clarify {
namespace {

std::string entry_of(std::uint64_t id) {
    AuditRecord a;
    a.decision_id = id;
    a.database = 5;
    a.statement = "SELECT " + std::to_string(id);
    std::string bytes;
    encode(a, bytes);
    return bytes;
}

void append_frame(std::string &ring, const std::string &entry) {
    auto length = static_cast<std::uint32_t>(entry.size());
    ring.append(reinterpret_cast<const char *>(&length), sizeof(length));
    ring += entry;
}

TEST(AuditFraming, AFrameIsItsLengthWordAndItsBytes) {
    EXPECT_EQ(frame_size(0), 4u);
    EXPECT_EQ(frame_size(100), 104u);
    std::string ring;
    append_frame(ring, "abc");
    EXPECT_EQ(frame_length(ring.data()), 3u);
}

TEST(AuditFraming, RoomIsTheRingLessWhatIsPending) {
    EXPECT_TRUE(ring_has_room(1000, 1500, 600, 100));   // 900 pending, 100 free
    EXPECT_FALSE(ring_has_room(1000, 1500, 600, 101));  // one byte short
    EXPECT_TRUE(ring_has_room(1000, 0, 0, 1000));       // an empty ring takes a whole-ring frame
}

TEST(AuditFraming, FramesInPlaceStopBeforeTheOneThatWraps) {
    std::string ring;
    append_frame(ring, std::string(10, 'a'));  // 14 bytes
    append_frame(ring, std::string(6, 'b'));   // 10 bytes: ends at 24
    ring.resize(30, '\0');
    // A third frame at 24 whose length word fits but whose bytes would pass the end (30).
    std::uint32_t length = 20;
    std::memcpy(ring.data() + 24, &length, sizeof(length));
    EXPECT_EQ(frames_in_place(ring.data(), 30, 0, 48), 24u);
    // Only what is pending counts.
    EXPECT_EQ(frames_in_place(ring.data(), 30, 0, 14), 14u);
    // A first frame that wraps: nothing in place.
    EXPECT_EQ(frames_in_place(ring.data(), 30, 24, 24), 0u);
    // A length word that does not fit before the end: nothing in place either.
    EXPECT_EQ(frames_in_place(ring.data(), 30, 28, 10), 0u);
}

TEST(AuditFraming, TheWriterIsWokenAtAQuarterOrHalfWhenForwarding) {
    EXPECT_EQ(wake_bytes(1024, false), 256u);
    EXPECT_EQ(wake_bytes(1024, true), 512u);
}

TEST(AuditFraming, OnlyTheEntryThatFillsPastTheMarkWakes) {
    // Pending before 200, after 300, mark 256: this entry crossed it.
    EXPECT_TRUE(fills_past(1300, 1200, 1000, 256));
    // Already past before it: an earlier entry woke the writer.
    EXPECT_FALSE(fills_past(1400, 1300, 1000, 256));
    // Not past after it either.
    EXPECT_FALSE(fills_past(1250, 1200, 1000, 256));
}

TEST(AuditFraming, TheWriterGoesOnWhileAQuarterIsPendingOrWhenStopping) {
    EXPECT_FALSE(drains_on(256, 1024, false));
    EXPECT_TRUE(drains_on(257, 1024, false));
    EXPECT_TRUE(drains_on(0, 1024, true));
}

TEST(AuditFraming, DecodingSkipsAndCountsWhatDoesNotDecode) {
    std::string ring;
    append_frame(ring, entry_of(1));
    append_frame(ring, "not an entry");
    append_frame(ring, entry_of(3));
    std::vector<std::uint64_t> ids, ends;
    DecodedFrames got =
        decode_frames(ring, [&](std::string_view, const AuditView &v, std::uint64_t end) {
            ids.push_back(v.decision_id);
            ends.push_back(end);
            return true;
        });
    EXPECT_EQ(ids, (std::vector<std::uint64_t>{1, 3}));
    EXPECT_EQ(got.malformed, 1u);
    EXPECT_EQ(got.consumed, ring.size());
    EXPECT_EQ(ends.back(), ring.size());
    EXPECT_EQ(ends.front(), frame_size(static_cast<std::uint32_t>(entry_of(1).size())));
}

TEST(AuditFraming, DecodingStopsBeforeTheEntryNotTaken) {
    std::string ring;
    append_frame(ring, entry_of(1));
    std::uint64_t first = ring.size();
    append_frame(ring, entry_of(2));
    int taken = 0;
    DecodedFrames got =
        decode_frames(ring, [&](std::string_view entry, const AuditView &, std::uint64_t) {
            EXPECT_EQ(entry.substr(0, 1), entry_of(1).substr(0, 1));
            return taken++ == 0;
        });
    EXPECT_EQ(got.consumed, first);
    EXPECT_EQ(got.malformed, 0u);
}

TEST(AuditFraming, DecodingReadsWholeFramesOnly) {
    std::string ring;
    append_frame(ring, entry_of(1));
    std::uint64_t whole = ring.size();
    append_frame(ring, entry_of(2));
    ring.resize(ring.size() - 1);
    int taken = 0;
    DecodedFrames got = decode_frames(
        ring, [&](std::string_view, const AuditView &, std::uint64_t) { return ++taken > 0; });
    EXPECT_EQ(taken, 1);
    EXPECT_EQ(got.consumed, whole);
}

}  // namespace
}  // namespace clarify
