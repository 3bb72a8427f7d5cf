#include "core/util/hash.h"

#include "core/util/clock.h"

#include <openssl/evp.h>

#include <array>
#include <random>
#include <stdexcept>

namespace kx {

std::string sha256Hex(std::string_view bytes)
{
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("SHA-256 digest failed");
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(length * 2);
    for (unsigned int i = 0; i < length; ++i) {
        hex.push_back(kHex[digest[i] >> 4]);
        hex.push_back(kHex[digest[i] & 0xf]);
    }
    return hex;
}

std::string randomHexId()
{
    std::random_device device;
    std::mt19937_64 generator((std::uint64_t(device()) << 32) ^ device() ^ std::uint64_t(nowMs()));
    static constexpr char kHex[] = "0123456789abcdef";
    std::string id(32, '0');
    for (auto &c : id)
        c = kHex[generator() & 0xf];
    return id;
}

} // namespace kx
