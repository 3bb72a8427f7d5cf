#include "core/plan/nvrtcjob.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <unistd.h>

namespace kx {
namespace {

// Larger messages are refused: a candidate and its headers are a few MB at most.
constexpr std::uint64_t kMaxMessage = std::uint64_t(1) << 30;

void putNumber(std::string &out, std::uint64_t value)
{
    for (int i = 0; i < 8; ++i)
        out += char((value >> (8 * i)) & 0xff);
}

bool getNumber(const std::string &in, std::size_t &pos, std::uint64_t &value)
{
    if (in.size() - pos < 8 || pos > in.size())
        return false;
    value = 0;
    for (int i = 0; i < 8; ++i)
        value |= std::uint64_t(static_cast<unsigned char>(in[pos + std::size_t(i)])) << (8 * i);
    pos += 8;
    return true;
}

class Writer
{
public:
    Writer &field(const std::string &text)
    {
        putNumber(m_out, text.size());
        m_out += text;
        return *this;
    }
    Writer &number(std::uint64_t value) { return field(std::to_string(value)); }
    std::string take() { return std::move(m_out); }

private:
    std::string m_out;
};

class Reader
{
public:
    explicit Reader(const std::string &in)
        : m_in(in)
    {}
    bool field(std::string &text)
    {
        std::uint64_t size = 0;
        if (!getNumber(m_in, m_pos, size) || size > m_in.size() - m_pos)
            return false;
        text = m_in.substr(m_pos, std::size_t(size));
        m_pos += std::size_t(size);
        return true;
    }
    bool number(std::uint64_t &value)
    {
        std::string text;
        if (!field(text) || text.empty() || text.size() > 19)
            return false;
        value = 0;
        for (const char c : text) {
            if (c < '0' || c > '9')
                return false;
            value = value * 10 + std::uint64_t(c - '0');
        }
        return true;
    }
    bool done() const { return m_pos == m_in.size(); }

private:
    const std::string &m_in;
    std::size_t m_pos = 0;
};

bool readAll(int fd, char *data, std::size_t size)
{
    while (size > 0) {
        const auto n = ::read(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= std::size_t(n);
    }
    return true;
}

} // namespace

std::string encodeNvrtcJob(const NvrtcJob &job)
{
    Writer writer;
    writer.field(job.source).number(job.headers.size());
    for (const auto &[name, text] : job.headers)
        writer.field(name).field(text);
    writer.number(job.arguments.size());
    for (const std::string &argument : job.arguments)
        writer.field(argument);
    writer.number(job.wantPtx ? 1 : 0).number(std::uint64_t(job.timeoutSeconds * 1000)).number(job.memoryLimitMb);
    return writer.take();
}

bool decodeNvrtcJob(const std::string &message, NvrtcJob &job)
{
    Reader reader(message);
    std::uint64_t count = 0;
    if (!reader.field(job.source) || !reader.number(count))
        return false;
    job.headers.clear();
    for (std::uint64_t i = 0; i < count; ++i) {
        std::pair<std::string, std::string> header;
        if (!reader.field(header.first) || !reader.field(header.second))
            return false;
        job.headers.push_back(std::move(header));
    }
    if (!reader.number(count))
        return false;
    job.arguments.clear();
    for (std::uint64_t i = 0; i < count; ++i) {
        std::string argument;
        if (!reader.field(argument))
            return false;
        job.arguments.push_back(std::move(argument));
    }
    std::uint64_t wantPtx = 0, timeoutMs = 0, memory = 0;
    if (!reader.number(wantPtx) || !reader.number(timeoutMs) || !reader.number(memory) || !reader.done())
        return false;
    job.wantPtx = wantPtx != 0;
    job.timeoutSeconds = double(timeoutMs) / 1000;
    job.memoryLimitMb = std::size_t(memory);
    return true;
}

std::string encodeNvrtcOutput(const NvrtcOutput &output)
{
    Writer writer;
    writer.number(std::uint64_t(output.status + 1))
        .field(output.statusText)
        .field(output.log)
        .field(output.cubin)
        .field(output.ptx)
        .number(std::uint64_t(output.compileMs * 1000));
    return writer.take();
}

bool decodeNvrtcOutput(const std::string &message, NvrtcOutput &output)
{
    Reader reader(message);
    std::uint64_t status = 0, microseconds = 0;
    if (!reader.number(status) || !reader.field(output.statusText) || !reader.field(output.log)
        || !reader.field(output.cubin) || !reader.field(output.ptx) || !reader.number(microseconds) || !reader.done())
        return false;
    output.status = int(status) - 1;
    output.compileMs = double(microseconds) / 1000;
    return true;
}

bool readNvrtcMessage(int fd, std::string &message)
{
    char header[8];
    if (!readAll(fd, header, sizeof header))
        return false;
    std::uint64_t size = 0;
    std::size_t pos = 0;
    if (!getNumber(std::string(header, sizeof header), pos, size) || size > kMaxMessage)
        return false;
    message.resize(std::size_t(size));
    return readAll(fd, message.data(), message.size());
}

bool writeNvrtcMessage(int fd, const std::string &message)
{
    std::string framed;
    framed.reserve(message.size() + 8);
    putNumber(framed, message.size());
    framed += message;
    const char *data = framed.data();
    std::size_t left = framed.size();
    while (left > 0) {
        const auto n = ::write(fd, data, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        left -= std::size_t(n);
    }
    return true;
}

} // namespace kx
