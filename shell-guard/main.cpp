// main.cpp: placeholder until the hook lands.
#include "common/hook_main.hpp"
namespace {
std::optional<boost::json::value> run(const std::optional<std::string>&) { return std::nullopt; }
} // namespace
int main(int argc, char** argv) { return viber::hook_main(argc, argv, {"shell-guard", "placeholder", run, nullptr}); }
