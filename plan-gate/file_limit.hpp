// file_limit.hpp: the plain plan file limit (docs/plan-gate.md, step 3).
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace viber::plan_gate {

inline constexpr std::size_t plain_plan_file_limit = 8;

// At most this many distinct tokens are looked up on disk; past it a token counts only when it
// is path-shaped. The count stays linear in the plan whatever it holds.
inline constexpr std::size_t disk_lookup_limit = 100000;

// A plan file longer than this is not read (read_regular_file's bound): it counts nothing.
inline constexpr std::size_t plan_read_limit = std::size_t{64} << 20;

// The refusal lists at most this many files, and at most this many characters of them.
inline constexpr std::size_t listed_files = 40;
inline constexpr std::size_t listed_characters = 6000;

// The distinct repository files a plan names: how many, and the first in first-seen order, each
// in its canonical spelling.
struct FileTally {
    std::size_t count = 0;
    std::vector<std::string> first;
};

// What a count keeps: the first `files` files, each cut to `characters` (what the refusal shows;
// counting them all still holds every distinct one, in one arena, but copies out no more).
// `every_token` judges the bare names the root's listing would settle too: the answer the
// listing must not change (a test oracle).
struct CountOptions {
    std::size_t files = listed_files;
    std::size_t characters = listed_characters;
    bool every_token = false;
};
inline constexpr CountOptions every_file{std::numeric_limits<std::size_t>::max(),
                                         std::numeric_limits<std::size_t>::max(), false};

// The files the plan names: `text` when the caller holds it, else the file at `plan_path` read a
// piece at a time, never whole (a 2 MB plan is counted in a buffer of about 32 KiB). `root` is
// the git top level of cwd, else cwd. nullopt when the plan file is not a regular file, cannot be
// read or holds more than `plan_read_limit` bytes: such a plan counts nothing.
//
// Each whitespace-split token loses leading backticks, quotes and opening brackets `( [ { <`,
// and trailing backticks, quotes, closing brackets `) ] } >` and `.,;:`; never a pipe.
// Canonical: backslashes read as `/`, a drive `C:/x` as `/c/x`, a relative token taken against
// the root, `.`, `..` and runs of `/` resolved lexically: an absolute path.
std::optional<FileTally> count_plan_files(std::optional<std::string_view> text,
                                          const std::string& plan_path, const std::string& root,
                                          const CountOptions& keep = {});

// nullopt when the plan names at most 8 files; else the deny reason (opens
// "Next step: narrow the plan."), which lists at most listed_files of them.
std::optional<std::string> file_limit_refusal(const FileTally& files, std::string_view plan_name);

} // namespace viber::plan_gate
