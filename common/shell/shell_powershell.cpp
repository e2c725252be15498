// shell_powershell.cpp: the command text a `powershell` / `pwsh` invocation runs, read once for
// both guards (SPEC §7.2, §7.3): the arguments after `-Command` joined, or the decoded
// `-EncodedCommand`.
#include "common/shell/shell_lexer.hpp"
#include "common/text/ascii.hpp"
#include "common/text/utf8.hpp"

#include <cstdint>

namespace viber::shell {

namespace {

std::string folded(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) out += ascii::to_lower(c);
    return out;
}

// `-c`, `-Comm`, `/Command`: a prefix of -Command (PowerShell takes any unambiguous one).
bool names_command(std::string_view w) {
    if (w.size() < 2 || (w[0] != '-' && w[0] != '/')) return false;
    const std::string tail = folded(w.substr(1));
    return std::string_view("command").starts_with(tail);
}

// `-e`, `-ec`, `-enc`, `-EncodedCommand`.
bool names_encoded(std::string_view w) {
    if (w.size() < 2 || (w[0] != '-' && w[0] != '/')) return false;
    const std::string tail = folded(w.substr(1));
    return tail == "ec" || std::string_view("encodedcommand").starts_with(tail);
}

// Options that take the next word as their value.
bool takes_value(std::string_view w) {
    if (w.size() < 2 || (w[0] != '-' && w[0] != '/')) return false;
    const std::string tail = folded(w.substr(1));
    for (const std::string_view name :
         {"executionpolicy", "workingdirectory", "configurationname", "outputformat", "inputformat",
          "settingsfile", "custompipename", "windowstyle"})
        if (tail.size() >= 2 && name.starts_with(tail)) return true;
    return tail == "ep" || tail == "wd" || tail == "of" || tail == "if" || tail == "w";
}

int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

} // namespace

std::string decode_base64_utf16le(std::string_view text) {
    std::string bytes;
    bytes.reserve(text.size() / 4 * 3 + 3);
    std::uint32_t bits = 0;
    int count = 0;
    for (const char c : text) {
        const int v = base64_value(c);
        if (v < 0) continue; // padding, whitespace
        bits = (bits << 6) | static_cast<std::uint32_t>(v);
        count += 6;
        if (count >= 8) {
            count -= 8;
            bytes += static_cast<char>((bits >> count) & 0xFF);
        }
    }
    std::string out;
    out.reserve(bytes.size());
    for (std::size_t i = 0; i + 1 < bytes.size(); i += 2) {
        std::uint32_t unit =
            static_cast<unsigned char>(bytes[i]) |
            (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8);
        if (unit >= 0xD800 && unit < 0xDC00 && i + 3 < bytes.size()) {
            const std::uint32_t low =
                static_cast<unsigned char>(bytes[i + 2]) |
                (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 3])) << 8);
            if (low >= 0xDC00 && low < 0xE000) {
                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                i += 2;
            }
        }
        utf8::append(out, unit);
    }
    return out;
}

std::optional<std::string> powershell_command_text(std::span<const Word> args,
                                                   bool positional_is_command) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view w = args[i].text;
        if (names_encoded(w)) {
            if (i + 1 >= args.size()) return std::nullopt;
            return decode_base64_utf16le(args[i + 1].text);
        }
        const bool command = names_command(w);
        if (command || (!w.empty() && w[0] != '-' && w[0] != '/' && positional_is_command)) {
            // PowerShell joins every argument after -Command into the command text (§7.3).
            std::string text;
            for (std::size_t k = command ? i + 1 : i; k < args.size(); ++k) {
                if (!text.empty()) text += ' ';
                text += args[k].text;
            }
            return text;
        }
        if (!w.empty() && w[0] != '-' && w[0] != '/') return std::nullopt; // a script file
        const std::string tail = folded(w.size() > 1 ? w.substr(1) : std::string_view{});
        if (tail == "f" || tail == "file" || tail == "fi" || tail == "fil") return std::nullopt;
        if (takes_value(w)) ++i;
    }
    return std::nullopt;
}

std::vector<PowerShellWord> powershell_words(std::string_view command_text) {
    const auto splits = [](char c) {
        return std::string_view(" \t\r\n;|{}()&").find(c) != std::string_view::npos;
    };
    std::vector<PowerShellWord> words;
    std::size_t p = 0;
    while (p < command_text.size()) {
        const std::size_t begin = p;
        while (p < command_text.size() && splits(command_text[p])) ++p;
        const std::size_t start = p;
        while (p < command_text.size() && !splits(command_text[p])) ++p;
        if (p > start)
            words.push_back({.before = command_text.substr(begin, start - begin),
                             .text = command_text.substr(start, p - start)});
    }
    return words;
}

} // namespace viber::shell
