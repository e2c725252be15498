// emulator.cpp: runs the hooks through the emulator a cross build's tests run under (qemu-user).
#include "support/emulator.hpp"

#include "support/emulator_config.hpp" // generated: VIBER_TEST_EMULATOR, the emulator's argv

#include <array>
#include <fstream>
#include <optional>

namespace viber::testing {

namespace {

// The ELF machine of a program file (e_machine, bytes 18-19, little-endian: both targets are),
// none when the file is not an ELF executable (a script, a PE file under wine, unreadable).
std::optional<unsigned> elf_machine(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::array<unsigned char, 20> header{};
    if (!in.read(reinterpret_cast<char*>(header.data()), header.size())) return std::nullopt;
    if (header[0] != 0x7f || header[1] != 'E' || header[2] != 'L' || header[3] != 'F')
        return std::nullopt;
    return header[18] | (header[19] << 8u);
}

} // namespace

const std::vector<std::string>& test_emulator() {
    static const std::vector<std::string> emulator VIBER_TEST_EMULATOR;
    return emulator;
}

std::vector<std::string> emulated_command(const std::string& exe) {
    if (test_emulator().empty()) return {exe};
    // Under qemu-user, /proc/self/exe is the emulated test program, so its machine is the
    // target's; a program of that machine cannot be started by the host kernel unless binfmt_misc
    // happens to be set up, which a fresh machine need not have.
    static const std::optional<unsigned> target = elf_machine("/proc/self/exe");
    const std::optional<unsigned> machine = elf_machine(exe);
    if (!target || machine != target) return {exe};
    std::vector<std::string> command = test_emulator();
    command.push_back(exe);
    return command;
}

} // namespace viber::testing
