// environment.hpp: process-wide settings a test makes for its own lifetime: an environment
// variable set or unset, and SIGPIPE ignored.
#pragma once

#include <csignal>
#include <cstdlib>
#include <optional>
#include <string>

namespace viber::testing {

// Sets (a value) or unsets (nullptr) an environment variable of this test process, restoring it
// when the object goes.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) saved_ = old;
        if (value != nullptr)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (saved_)
            ::setenv(name_.c_str(), saved_->c_str(), 1);
        else
            ::unsetenv(name_.c_str());
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string name_;
    std::optional<std::string> saved_;
};

// CLAUDE_PLUGIN_ROOT set or unset for the object's lifetime.
struct PluginRootEnv : ScopedEnv {
    explicit PluginRootEnv(const char* value) : ScopedEnv("CLAUDE_PLUGIN_ROOT", value) {}
};

// A global fixture: the runner's writes to a hook that stopped reading (past its stdin cap, or
// after it answered) must fail with EPIPE, not kill the test with SIGPIPE.
// Use: `using viber::testing::IgnoreSigpipe; BOOST_TEST_GLOBAL_FIXTURE(IgnoreSigpipe);`
struct IgnoreSigpipe {
    IgnoreSigpipe() { std::signal(SIGPIPE, SIG_IGN); }
};

} // namespace viber::testing
