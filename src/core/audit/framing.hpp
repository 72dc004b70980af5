// The audit queue's framing and arithmetic (the ring itself is shared memory, in
// pg/audit/queue.cpp): each entry is a frame of a 4-byte length in host order and the entry's
// bytes; positions count bytes ever written, so `write - read` is what is pending.
#pragma once
#include "core/audit/record.hpp"
#include "core/core_guard.hpp"

#include <cstdint>
#include <cstring>
#include <string_view>

namespace clarify {

inline constexpr std::uint64_t kFrameHeader = sizeof(std::uint32_t);

// The bytes a frame of an entry of `length` bytes takes in the ring.
inline std::uint64_t frame_size(std::uint32_t length) noexcept {
    return kFrameHeader + length;
}

// The length word of the frame at the start of `at` (at least kFrameHeader bytes).
inline std::uint32_t frame_length(const char *at) noexcept {
    std::uint32_t length;
    std::memcpy(&length, at, sizeof(length));
    return length;
}

// Whether a frame of `need` bytes fits in a ring of `ring_size` holding `write - read` bytes.
bool ring_has_room(std::uint64_t ring_size, std::uint64_t write, std::uint64_t read,
                   std::uint64_t need) noexcept;

// The bytes of the whole frames that lie in place from offset `start` of a ring of `ring_size`
// (frames start at `start`, `pending` bytes are queued): those before the ring's end. 0 when the
// first frame wraps around the end (the caller copies the frames out).
std::uint64_t frames_in_place(const char *ring, std::uint64_t ring_size, std::uint64_t start,
                              std::uint64_t pending) noexcept;

// How many pending bytes wake the writer before its next look: a quarter of the ring, half for a
// standby's writer, whose every batch costs a call and a commit on the primary.
std::uint64_t wake_bytes(std::uint64_t ring_size, bool forwarding) noexcept;

// Whether the entry that moved the write position from `write` to `end` (read position `read`)
// is the one that filled the ring past `wake_at`: one wake-up per filling, not one per entry.
bool fills_past(std::uint64_t end, std::uint64_t write, std::uint64_t read,
                std::uint64_t wake_at) noexcept;

// After committing a batch, whether the writer goes on at once rather than gather the next one:
// when a quarter of the ring is pending again, or when it is stopping.
bool drains_on(std::uint64_t pending, std::uint64_t ring_size, bool stopping) noexcept;

// What decoding a run of frames read: the bytes consumed (up to the end of the last frame taken
// or skipped) and the entries that did not decode.
struct DecodedFrames {
    std::uint64_t consumed = 0;
    std::uint64_t malformed = 0;
};

// Decodes the frames of `bytes` (whole frames only) in order. For each entry that decodes calls
// `take(entry, view, end)` (end: the offset after its frame); an entry that does not decode is
// counted as malformed and skipped. Stops before an entry `take` returns false for.
template <typename Take>
DecodedFrames decode_frames(std::string_view bytes, Take &&take) {
    DecodedFrames out;
    std::uint64_t pos = 0;
    while (pos + kFrameHeader <= bytes.size()) {
        std::uint32_t length = frame_length(bytes.data() + pos);
        std::uint64_t end = pos + frame_size(length);
        if (end > bytes.size()) break;
        std::string_view entry = bytes.substr(pos + kFrameHeader, length);
        AuditView view;
        bool decoded = true;
        try {
            view = decode_view(entry);
        } catch (const AuditFormatError &) {
            decoded = false;
        }
        if (!decoded)
            ++out.malformed;
        else if (!take(entry, view, end))
            break;
        pos = end;
    }
    out.consumed = pos;
    return out;
}

}  // namespace clarify
