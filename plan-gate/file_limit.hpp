// file_limit.hpp: the plain plan file limit (docs/plan-gate.md, step 3).
#pragma once

#include <cstddef>
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

// The distinct repository files a plan names, in first-seen order, each in its canonical
// spelling. `root` is the git top level of cwd, else cwd; `plan_path` is the plan's own path.
// Each whitespace-split token loses leading backticks, quotes and opening brackets `( [ { <`,
// and trailing backticks, quotes, closing brackets `) ] } >` and `.,;:`; never a pipe.
// Canonical: backslashes read as `/`, a drive `C:/x` as `/c/x`, a relative token taken against
// the root, `.`, `..` and runs of `/` resolved lexically: an absolute path.
std::vector<std::string> plan_files(std::string_view plan_text, const std::string& root,
                                    const std::string& plan_path);

// Internals exposed so a test can hold the count to one answer.
namespace detail {

// Which tokens are judged: all but the bare names the root's listing excludes (what the hook
// does), or `every_token` (the answer the listing must not change).
enum class Tokens { settled_by_listing, every_token };

// plan_files and plan_file_files judging the chosen tokens.
std::vector<std::string> plan_files_with(Tokens tokens, std::string_view plan_text,
                                         const std::string& root, const std::string& plan_path);
std::optional<std::vector<std::string>>
plan_file_files_with(Tokens tokens, const std::string& plan_path, const std::string& root);

} // namespace detail

// plan_files for the plan file at `plan_path`, read a piece at a time, never whole (a 2 MB plan
// is counted in a buffer of about 32 KiB). nullopt when it is not a regular file, cannot be read
// or holds more than `plan_read_limit` bytes: such a plan counts nothing.
std::optional<std::vector<std::string>> plan_file_files(const std::string& plan_path,
                                                        const std::string& root);

// The files a plan names as the refusal needs them: how many, and the first in first-seen order
// (at most listed_files, each cut to the 6,000 characters the refusal shows at most). Counting
// them all still holds every distinct one, in one arena, but none is copied out.
inline constexpr std::size_t listed_files = 40;
struct FileTally {
    std::size_t count = 0;
    std::vector<std::string> first;
};
FileTally plan_tally(std::string_view plan_text, const std::string& root,
                     const std::string& plan_path);
std::optional<FileTally> plan_file_tally(const std::string& plan_path, const std::string& root);
FileTally tally_of(const std::vector<std::string>& files);

// nullopt when the plan names at most 8 files; else the deny reason (opens
// "Next step: narrow the plan."), which lists at most listed_files of them.
std::optional<std::string> file_limit_refusal(const FileTally& files, std::string_view plan_name);
std::optional<std::string> file_limit_refusal(const std::vector<std::string>& files,
                                              std::string_view plan_name);

} // namespace viber::plan_gate
