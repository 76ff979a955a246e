// cpp_example.cpp: C++17 with RAII wrappers (std::unique_ptr with the library's free
// functions as deleters) over the C API. Builds a transcript with a chain, verifies it
// from a buffer and streaming in small chunks, then tampers with it and checks the
// fault. Exit 0 when every check held.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "agentloop.h"

namespace agentloop {

struct ChainFree {
    void operator()(agentloop_chain *p) const noexcept { agentloop_chain_free(p); }
};
struct ReportFree {
    void operator()(agentloop_report *p) const noexcept { agentloop_report_free(p); }
};
struct VerifierFree {
    void operator()(agentloop_verifier *p) const noexcept { agentloop_verifier_free(p); }
};
using ChainPtr = std::unique_ptr<agentloop_chain, ChainFree>;
using ReportPtr = std::unique_ptr<agentloop_report, ReportFree>;
using VerifierPtr = std::unique_ptr<agentloop_verifier, VerifierFree>;

// Throws on any result but OK.
void check(agentloop_result r, const char *what) {
    if (r != AGENTLOOP_RESULT_OK) {
        throw std::runtime_error(std::string(what) + ": " + agentloop_result_str(r));
    }
}

const uint8_t *bytes(std::string_view s) {
    return reinterpret_cast<const uint8_t *>(s.data());
}

class Chain {
  public:
    Chain() {
        agentloop_chain *raw = nullptr;
        check(agentloop_chain_new(&raw), "agentloop_chain_new");
        chain_.reset(raw);
    }
    // Appends a record; returns its line. The size query keeps the chain unchanged.
    std::string append(std::string_view kind, std::string_view payload) {
        size_t needed = 0;
        agentloop_result r = agentloop_chain_append(chain_.get(), bytes(kind), kind.size(),
                                                    bytes(payload), payload.size(), nullptr,
                                                    0, &needed);
        if (r != AGENTLOOP_RESULT_INSUFFICIENT_SIZE) {
            check(r, "size query");
        }
        std::string line(needed, '\0');
        size_t len = 0;
        check(agentloop_chain_append(chain_.get(), bytes(kind), kind.size(), bytes(payload),
                                     payload.size(), reinterpret_cast<uint8_t *>(line.data()),
                                     line.size(), &len),
              "agentloop_chain_append");
        line.resize(len);
        return line;
    }

  private:
    ChainPtr chain_;
};

ReportPtr verify_buffer(std::string_view transcript) {
    agentloop_report *raw = nullptr;
    check(agentloop_transcript_verify_buffer(bytes(transcript), transcript.size(), nullptr, &raw),
          "agentloop_transcript_verify_buffer");
    return ReportPtr(raw);
}

ReportPtr verify_streaming(std::string_view transcript, size_t chunk) {
    agentloop_verifier *raw = nullptr;
    check(agentloop_verifier_new(nullptr, &raw), "agentloop_verifier_new");
    VerifierPtr verifier(raw);
    for (size_t at = 0; at < transcript.size(); at += chunk) {
        std::string_view piece = transcript.substr(at, chunk);
        check(agentloop_verifier_push(verifier.get(), bytes(piece), piece.size()),
              "agentloop_verifier_push");
    }
    agentloop_report *report = nullptr;
    check(agentloop_verifier_finish(verifier.get(), &report), "agentloop_verifier_finish");
    // Finishing does not free the verifier; the unique_ptr does.
    return ReportPtr(report);
}

}  // namespace agentloop

int main() {
    try {
        agentloop::Chain chain;
        std::string transcript;
        transcript += chain.append("task", R"({"task":"add 2 and 40"})");
        transcript += chain.append("assistant", R"({"text":"","tool_calls":[]})");
        transcript += chain.append("stop", R"({"reason":"no_tool_calls"})");

        auto verified = [](const agentloop::ReportPtr &report) {
            return agentloop_report_ok(report.get()) && agentloop_report_count(report.get()) == 3;
        };
        if (!verified(agentloop::verify_buffer(transcript)) ||
            !verified(agentloop::verify_streaming(transcript, 7))) {
            std::fprintf(stderr, "cpp_example: the transcript does not verify\n");
            return 1;
        }

        std::string tampered = transcript;
        tampered.replace(tampered.find("add 2 and 40"), 12, "add 2 and 41");
        auto report = agentloop::verify_streaming(tampered, 1);
        uint32_t kind = 0;
        int64_t index = -1;
        const char *detail = nullptr;
        agentloop::check(agentloop_report_fault(report.get(), 0, &index, nullptr, &kind, &detail),
                         "agentloop_report_fault");
        if (agentloop_report_ok(report.get()) || kind != AGENTLOOP_FAULT_KIND_HASH_MISMATCH ||
            index != 0) {
            std::fprintf(stderr, "cpp_example: expected a hash_mismatch at record 0\n");
            return 1;
        }
        std::printf("cpp_example: record %lld: %s: %s\n", static_cast<long long>(index),
                    agentloop_fault_kind_str(kind), detail);
        std::printf("cpp_example: ok (agentloop %s)\n", agentloop_library_version());
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "cpp_example: %s\n", e.what());
        return 1;
    }
}
