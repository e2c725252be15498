// fast/tokens.cpp: the token scan's byte classes (fast/tokens.hpp): the filter's tables and the
// kernels that turn a block of bytes into its class masks.
#include "common/fast/tokens.hpp"

#include "common/fast/arch/x86_64/avx2.hpp"
#include "common/fast/cpu.hpp"

namespace viber::fast {

namespace tokens_detail {

ClassTables prepare(const TokenFilter& filter) {
    const ByteSet* sets[class_count] = {&filter.separators, &filter.anywhere,   &filter.first,
                                        &filter.last,       &filter.pair_first, &filter.pair_last};
    ClassTables tables;
    for (unsigned byte = 0; byte < 256; ++byte) {
        const char c = static_cast<char>(byte);
        for (unsigned k = 0; k < class_count; ++k) {
            if (!sets[k]->contains(c)) continue;
            tables.classes[byte] |= static_cast<std::uint8_t>(1u << k);
            tables.used |= static_cast<std::uint8_t>(1u << k);
            if (byte >= 0x80) {
                tables.non_ascii |= static_cast<std::uint8_t>(1u << k);
                continue;
            }
            const auto high_bit = static_cast<std::uint8_t>(1u << (byte >> 4));
            tables.low[k][byte & 15] |= high_bit;
            tables.low[k][(byte & 15) + 16] |= high_bit;
        }
    }
    for (unsigned h = 0; h < 8; ++h) tables.high[h] = tables.high[h + 16] = 1u << h;
    for (unsigned byte = 0; byte < 0x80; ++byte) {
        if (filter.separators.contains(static_cast<char>(byte))) {
            tables.pad = static_cast<char>(byte);
            break;
        }
    }
    return tables;
}

namespace {

// The portable kernel: 8 bytes at a time, each byte's class byte looked up and packed into a
// word, then each class's bits gathered from the word's bytes by one multiplication.
void classify_portable(const ClassTables& tables, const char* data, std::size_t blocks,
                       BlockMasks* out) {
    constexpr std::uint64_t low_bits = 0x0101010101010101ull;
    // Bit 8j of a word (its byte j's low bit) to bit 56 + j: no two products meet, so no carry.
    constexpr std::uint64_t gather = 0x0102040810204080ull;
    for (std::size_t b = 0; b < blocks; ++b) {
        BlockMasks masks{};
        const char* block = data + 64 * b;
        for (unsigned word = 0; word < 8; ++word) {
            std::uint64_t packed = 0;
            for (unsigned j = 0; j < 8; ++j)
                packed |=
                    std::uint64_t{tables.classes[static_cast<unsigned char>(block[8 * word + j])]}
                    << (8 * j);
            for (unsigned k = 0; k < class_count; ++k)
                if ((tables.used >> k) & 1u)
                    masks.of[k] |= ((((packed >> k) & low_bits) * gather) >> 56) << (8 * word);
        }
        out[b] = masks;
    }
}

#if VIBER_SIMD_WIDE
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
// The vector kernel, one template over the vector width: an ASCII byte with high nibble h and low
// nibble l is in class k when bit h of low[k][l] is set; a non-ASCII byte, when class k holds
// them all.
template <class V>
inline void classify_vector(const ClassTables& tables, const char* data, std::size_t blocks,
                            BlockMasks* out) {
    using Bytes = typename V::Bytes;
    const Bytes high = V::table(tables.high);
    Bytes low[class_count];
    for (unsigned k = 0; k < class_count; ++k) low[k] = V::table(tables.low[k]);
    for (std::size_t b = 0; b < blocks; ++b) {
        BlockMasks masks{};
        for (std::size_t part = 0; part < 64 / V::width; ++part) {
            const Bytes bytes = V::load(data + 64 * b + part * V::width);
            const Bytes low_nibbles = V::low_nibbles(bytes);
            const Bytes high_bit = V::lookup(high, V::high_nibbles(bytes));
            const std::uint64_t non_ascii = V::high_bits(bytes);
            for (unsigned k = 0; k < class_count; ++k) {
                if (!((tables.used >> k) & 1u)) continue;
                std::uint64_t in = V::meet(V::lookup(low[k], low_nibbles), high_bit);
                if ((tables.non_ascii >> k) & 1u) in |= non_ascii;
                masks.of[k] |= in << (part * V::width);
            }
        }
        out[b] = masks;
    }
    V::leave();
}
#pragma GCC diagnostic pop

__attribute__((target("avx2"), flatten)) void
classify_avx2(const ClassTables& tables, const char* data, std::size_t blocks, BlockMasks* out) {
    classify_vector<simd::Avx2>(tables, data, blocks, out);
}
#endif

} // namespace

void classify_blocks(Kernel kernel, const ClassTables& tables, const char* data, std::size_t blocks,
                     BlockMasks* out) {
#if VIBER_SIMD_WIDE
    if (kernel == Kernel::avx2) {
        classify_avx2(tables, data, blocks, out);
        return;
    }
#endif
    (void)kernel;
    classify_portable(tables, data, blocks, out);
}

} // namespace tokens_detail

} // namespace viber::fast
