// shell_printf.cpp: what `printf FORMAT ARGS…` prints, when the command spells both out, so a
// shell fed by it reads that text (SPEC §7.3: `printf %s 'pkill node' | sh`).
#include "common/shell/shell_lexer_internal.hpp"

#include <algorithm>

namespace viber::shell::detail {

namespace {

int octal_digit(char c) {
    return c >= '0' && c <= '7' ? c - '0' : -1;
}

// One backslash escape at text[i] == '\\' (printf's format, or a `%b` argument): appends what it
// stands for and returns the bytes it took. `in_b`: `%b` reads `\0NNN` and `\c` (stop).
std::size_t escape(std::string_view text, std::size_t i, std::string& out, bool in_b, bool& stop) {
    if (i + 1 >= text.size()) {
        out += '\\';
        return 1;
    }
    const char c = text[i + 1];
    if (const char byte = escaped_byte(c)) {
        out += byte;
        return 2;
    }
    switch (c) {
    case 'c':
        if (in_b) {
            stop = true;
            return 2;
        }
        break;
    case 'x': {
        std::size_t k = i + 2;
        int value = 0;
        while (k < text.size() && k < i + 4 && hex_value(text[k]) >= 0)
            value = value * 16 + hex_value(text[k++]);
        if (k == i + 2) break;
        out += static_cast<char>(value);
        return k - i;
    }
    default:
        if (octal_digit(c) >= 0) {
            std::size_t k = i + 1;
            if (in_b && c == '0') ++k; // %b: \0NNN
            const std::size_t limit = k + 3;
            int value = 0;
            while (k < text.size() && k < limit && octal_digit(text[k]) >= 0)
                value = value * 8 + octal_digit(text[k++]);
            out += static_cast<char>(value & 0xFF);
            return k - i;
        }
        break;
    }
    out += '\\';
    out += c;
    return 2;
}

} // namespace

std::optional<std::string> printf_output(std::string_view format, std::size_t count,
                                         const std::function<std::string_view(std::size_t)>& arg,
                                         std::size_t limit, bool* over) {
    std::string out;
    std::size_t next = 0;
    bool stop = false;
    // The format is reused while arguments are left (at least once); a pass that consumes no
    // argument ends it, as printf does.
    do {
        const std::size_t pass_start = next;
        for (std::size_t i = 0; i < format.size() && !stop;) {
            if (out.size() > limit) {
                if (over != nullptr) *over = true;
                return std::nullopt;
            }
            const char c = format[i];
            if (c == '\\') {
                i += escape(format, i, out, false, stop);
                continue;
            }
            if (c != '%') { // the text up to the next escape or conversion, as it is
                const std::size_t stop_at = std::min(format.find_first_of("\\%", i), format.size());
                out.append(format, i, stop_at - i);
                i = stop_at;
                continue;
            }
            if (i + 1 < format.size() && format[i + 1] == '%') {
                out += '%';
                i += 2;
                continue;
            }
            // %[flags][width][.precision]conversion; `*` widths are not read.
            std::size_t k = i + 1;
            while (k < format.size() &&
                   std::string_view("-+ #0").find(format[k]) != std::string_view::npos)
                ++k;
            while (k < format.size() && (is_digit(format[k]) || format[k] == '.')) ++k;
            if (k >= format.size() || format[k] == '*') return std::nullopt;
            const char conversion = format[k];
            const std::string_view value = next < count ? arg(next) : std::string_view{};
            if (next < count) ++next;
            switch (conversion) {
            case 's':
            case 'q':
                out += value;
                break;
            case 'b':
                for (std::size_t a = 0; a < value.size() && !stop;) {
                    if (value[a] == '\\')
                        a += escape(value, a, out, true, stop);
                    else
                        out += value[a++];
                }
                break;
            case 'c':
                if (!value.empty()) out += value[0];
                break;
            case 'd':
            case 'i':
            case 'u':
                out += value.empty() ? std::string_view("0") : value;
                break;
            default:
                return std::nullopt; // %x, %f …: not read
            }
            i = k + 1;
        }
        if (next == pass_start) break;
    } while (next < count && !stop);
    if (out.size() > limit) {
        if (over != nullptr) *over = true;
        return std::nullopt;
    }
    return out;
}

} // namespace viber::shell::detail
