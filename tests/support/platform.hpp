// platform.hpp: skipping, with the reason printed, a test case whose facility this platform lacks.
#pragma once

#include <boost/test/unit_test.hpp>
#include <string>

namespace viber::testing {

// A Boost.Test precondition: on Windows the test case is skipped and Boost.Test prints
// "Test case ... is skipped because <what> is POSIX-only"; elsewhere it runs.
inline boost::unit_test::decorator::precondition posix_only(std::string what) {
    return boost::unit_test::precondition([what](boost::unit_test::test_unit_id) {
#ifdef _WIN32
        boost::test_tools::assertion_result skip(false);
        skip.message() << what << " is POSIX-only";
        return skip;
#else
        (void)what;
        return boost::test_tools::assertion_result(true);
#endif
    });
}

// Skips, saying so, where `bash` cannot be found on PATH (under wine: config.sh runs as
// `bash <config.sh>`, Git Bash's bash on Windows, and wine has none).
bool bash_on_path();
inline boost::unit_test::decorator::precondition needs_bash() {
    return boost::unit_test::precondition([](boost::unit_test::test_unit_id) {
        boost::test_tools::assertion_result result(bash_on_path());
        if (!result) result.message() << "no bash on PATH to run config.sh";
        return result;
    });
}

} // namespace viber::testing
