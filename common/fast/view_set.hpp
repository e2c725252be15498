// fast/view_set.hpp: a set of string views in one flat table (open addressing, linear probing):
// a lookup is one hash and, nearly always, one slot, where std::unordered_set walks a chain of
// nodes allocated one by one (a cache miss each on a set that a long scan keeps evicting). Its
// plain reference is std::unordered_set<std::string_view>; tests/unit/fast/fast_view_set_test.cpp
// holds it to that. Beside it: ViewArena, which keeps copies of views in large blocks, and
// BoundedViewSet, a ViewSet that holds at most a bound, its views in such an arena.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace viber::fast {

class ViewSet {
public:
    // Room for `expected` views before the table first grows.
    explicit ViewSet(std::size_t expected = 0) { rebuild(capacity_for(expected)); }

    std::size_t size() const { return size_; }

    bool contains(std::string_view view) const {
        const std::uint32_t hash = hash_of(view);
        for (std::size_t at = hash & mask_;; at = (at + 1) & mask_) {
            const Slot& slot = slots_[at];
            if (slot.data == nullptr) return false;
            if (slot.hash == hash && slot.view() == view) return true;
        }
    }

    // When `view` (shorter than 4 GiB) is not held, adds keep(view) (a view of the same bytes
    // that outlives the set) and returns it; else nullopt.
    template <class Keep>
    std::optional<std::string_view> add_new(std::string_view view, Keep keep) {
        const std::uint32_t hash = hash_of(view);
        std::size_t at = hash & mask_;
        for (;; at = (at + 1) & mask_) {
            const Slot& slot = slots_[at];
            if (slot.data == nullptr) break;
            if (slot.hash == hash && slot.view() == view) return std::nullopt;
        }
        const std::string_view kept = keep(view);
        // An empty view may have no address: it is held at one.
        slots_[at] = {kept.data() != nullptr ? kept.data() : "",
                      static_cast<std::uint32_t>(kept.size()), hash};
        // At most three quarters full: a probe stays short.
        if (++size_ * 4 > slots_.size() * 3) rebuild(slots_.size() * 2);
        return kept;
    }

private:
    // 16 bytes: a table for thousands of views stays small enough for the cache.
    struct Slot {
        const char* data = nullptr; // null: empty
        std::uint32_t size = 0;
        std::uint32_t hash = 0;
        std::string_view view() const { return {data, size}; }
    };

    static std::uint32_t hash_of(std::string_view view) {
        const std::uint64_t hash = std::hash<std::string_view>{}(view);
        return static_cast<std::uint32_t>(hash ^ (hash >> 32));
    }

    static std::size_t capacity_for(std::size_t expected) {
        std::size_t capacity = 16;
        while (capacity * 3 < expected * 4) capacity *= 2;
        return capacity;
    }

    void rebuild(std::size_t capacity) {
        std::vector<Slot> old(capacity);
        old.swap(slots_);
        mask_ = capacity - 1;
        for (const Slot& slot : old) {
            if (slot.data == nullptr) continue;
            std::size_t at = slot.hash & mask_;
            while (slots_[at].data != nullptr) at = (at + 1) & mask_;
            slots_[at] = slot;
        }
    }

    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
    std::size_t size_ = 0;
};

// Copies of views, kept in large blocks: one allocation for many short ones.
class ViewArena {
public:
    std::string_view keep(std::string_view spelling) {
        if (spelling.size() > left_) {
            const std::size_t size = std::max(block_size, spelling.size());
            blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
            next_ = blocks_.back().get();
            left_ = size;
        }
        std::memcpy(next_, spelling.data(), spelling.size());
        const std::string_view kept(next_, spelling.size());
        next_ += spelling.size();
        left_ -= spelling.size();
        return kept;
    }

private:
    static constexpr std::size_t block_size = std::size_t{64} << 10;
    std::vector<std::unique_ptr<char[]>> blocks_;
    char* next_ = nullptr;
    std::size_t left_ = 0;
};

// A set of spellings, each held as a view: into text that outlives the set or, with an arena,
// into the arena's copy of it. At most `bound` are held (a long text's distinct words are then
// judged again past it, at a cost per byte, rather than growing the set).
class BoundedViewSet {
public:
    // Holds at most `bound` spellings; room for about `expected` of them before it first grows.
    // With `arena`, each spelling added is copied there first.
    BoundedViewSet(std::size_t bound, std::size_t expected, ViewArena* arena = nullptr)
        : bound_(bound), arena_(arena), held_(std::min(bound, expected)) {}

    // True when `spelling` is held; else adds it, while fewer than the bound are held, and
    // returns false.
    bool seen(std::string_view spelling) {
        if (held_.size() >= bound_) return holds(spelling);
        return !add_new(spelling);
    }

    bool holds(std::string_view spelling) const { return held_.contains(spelling); }

    // Adds `spelling` when it is not held and fewer than the bound are; returns the view held
    // for it when it was added.
    std::optional<std::string_view> add_new(std::string_view spelling) {
        if (held_.size() >= bound_) return std::nullopt;
        return held_.add_new(spelling, [this](std::string_view added) {
            return arena_ != nullptr ? arena_->keep(added) : added;
        });
    }

private:
    std::size_t bound_;
    ViewArena* arena_;
    ViewSet held_;
};

} // namespace viber::fast
