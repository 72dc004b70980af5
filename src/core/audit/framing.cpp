#include "core/audit/framing.hpp"

namespace clarify {

bool ring_has_room(std::uint64_t ring_size, std::uint64_t write, std::uint64_t read,
                   std::uint64_t need) noexcept {
    return ring_size - (write - read) >= need;
}

std::uint64_t frames_in_place(const char *ring, std::uint64_t ring_size, std::uint64_t start,
                              std::uint64_t pending) noexcept {
    std::uint64_t off = start;
    while (off - start < pending && off + kFrameHeader <= ring_size) {
        std::uint64_t end = off + frame_size(frame_length(ring + off));
        if (end > ring_size) break;
        off = end;
    }
    return off - start;
}

std::uint64_t wake_bytes(std::uint64_t ring_size, bool forwarding) noexcept {
    return forwarding ? ring_size / 2 : ring_size / 4;
}

bool fills_past(std::uint64_t end, std::uint64_t write, std::uint64_t read,
                std::uint64_t wake_at) noexcept {
    return end - read > wake_at && write - read <= wake_at;
}

bool drains_on(std::uint64_t pending, std::uint64_t ring_size, bool stopping) noexcept {
    return pending * 4 > ring_size || stopping;
}

}  // namespace clarify
