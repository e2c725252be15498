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

// The distinct repository files a plan names, in first-seen order, each in its canonical
// spelling. `root` is the git top level of cwd, else cwd; `plan_path` is the plan's own path.
// Each whitespace-split token loses leading backticks, quotes and opening brackets `( [ { <`,
// and trailing backticks, quotes, closing brackets `) ] } >` and `.,;:`; never a pipe.
// Canonical: backslashes read as `/`, a drive `C:/x` as `/c/x`, a relative token taken against
// the root, `.`, `..` and runs of `/` resolved lexically: an absolute path.
std::vector<std::string> plan_files(std::string_view plan_text, const std::string& root,
                                    const std::string& plan_path);

// Internals exposed so a test can hold the byte classifiers to one answer.
namespace detail {

// How a 64-byte block of the plan is classified: `portable` (word masks and a table lookup per
// token edge, on every CPU), `avx2` (nibble table lookups, x86-64 CPUs with AVX2), `best` (the
// fastest this CPU runs), `every_token` (the portable one with no token settled by the root's
// listing: every token judged, the answer the others must give). A classifier the CPU lacks
// falls back to the portable one.
enum class Classifier { portable, avx2, best, every_token };
bool classifier_supported(Classifier classifier);

// plan_files with a chosen classifier.
std::vector<std::string> plan_files_with(Classifier classifier, std::string_view plan_text,
                                         const std::string& root, const std::string& plan_path);

} // namespace detail

// nullopt when the plan names at most 8 files; else the deny reason (opens
// "Next step: narrow the plan.").
std::optional<std::string> file_limit_refusal(const std::vector<std::string>& files,
                                              std::string_view plan_name);

} // namespace viber::plan_gate
