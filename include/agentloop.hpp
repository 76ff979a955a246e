/*
 * agentloop.hpp: a thin, header-only C++17 wrapper over the C API of libagentloop
 * (include/agentloop.h; docs/c-api.md, "C++"). Licence: MIT OR Apache-2.0.
 *
 * What it is: every public function of agentloop.h, called as it is documented there,
 * with C++ types at the edges and nothing else — no behaviour of its own. The C
 * reference (agentloop.h) says what each call does; this header says only how it maps.
 *
 * - Names: agentloop_<home>_<verb> is agentloop::<home>::<verb>. A handle type (agent,
 *   chain, report, schema, verifier, writer) is a class whose member functions are its
 *   C functions (agentloop_chain_append(chain, ...) is chain.append(...)); a module
 *   home (json, transcript, proof, driver, library) is a namespace. Enum values stay
 *   the C ones (AGENTLOOP_NEED_DONE, AGENTLOOP_FAULT_KIND_HASH_MISMATCH, ...).
 * - Ownership: each handle class holds a std::unique_ptr with agentloop::deleter,
 *   which calls the type's agentloop_*_free. Handles move (noexcept) and do not copy;
 *   a moved-from handle holds NULL, and any call on it throws
 *   agentloop::error(AGENTLOOP_RESULT_NULL_PARAMETER) as the C function says.
 *   get() gives the C handle for calls this header does not make.
 * - Inputs are std::string_view (any bytes, not NUL-terminated: the C API takes
 *   (ptr, len) everywhere). Outputs are std::string: everything the library writes is
 *   text (UTF-8 JSON, record lines, checkpoints, proofs, sentences), so a string is
 *   the natural owner; no output is raw binary, so there is no std::vector<uint8_t>.
 *   The size query (call with a NULL buffer, allocate, call again) is done once, in
 *   detail::copy_out; the _borrowed outputs are copied in one place, detail::lent.
 *   Optional outputs (a report's head, a pending record) are std::optional.
 *
 * Errors: EXCEPTIONS, one style throughout. Every C call that does not return
 * AGENTLOOP_RESULT_OK throws agentloop::error, a std::runtime_error carrying the
 * agentloop_result (code()), the C function that returned it (where()) and, where the
 * C API gives a sentence for the failure, that sentence (detail():
 * agentloop_agent_resume_error after a refused resume, agentloop_agent_request_error
 * after a refused request, agentloop_tool_explain after a refused tool,
 * agentloop_schema_explain after a refused schema). Why exceptions and not an
 * expected-style result: C++17 has no std::expected, so a result type would be this
 * header's own invention that every caller must unwrap; the constructors of the
 * handle classes (a chain, a writer, a schema) can only report failure by throwing;
 * and a failure of this API is a misuse or an environment problem (bad JSON, a full
 * disk), not an answer. What IS an answer is returned, not thrown: a transcript with
 * faults gives a report (report.ok() false); a proof that does not hold makes
 * proof::verify_inclusion return false; a schema violation is validate() false.
 * A moved-from or failed object is never left half-made: a constructor either
 * returns a live handle or throws.
 *
 * Callbacks (driver::run, driver::run_to_writer) take std::function. The C API says a
 * callback must not unwind through the library, so each trampoline catches: an
 * exception thrown by the model callback sets the reply's error (the run stops with
 * model_error), by a tool the tool's error and a cancellation (the run stops with
 * cancelled at its next check), by the record sink a refusal (the transcript ends
 * before that record), by the cancel callback a cancellation; the first exception is
 * then rethrown from driver::run once the C call has returned. Nothing leaks:
 * everything the run holds is owned by C++ objects on the stack.
 *
 * Not wrapped, and why: agentloop_chain_append and agentloop_agent_take_record (the
 * copying twins): chain::append and agent::take_record call the _borrowed twin and
 * copy the line into a std::string, one call instead of the size query's two, with the
 * same bytes; the _borrowed views are also offered (append_borrowed,
 * take_record_borrowed). agentloop_verify_options_init, agentloop_writer_options_init
 * and agentloop_budgets_init are called by the constructors of verify_options,
 * writer_options and budgets. Every *_free is called by agentloop::deleter.
 *
 * Thread rules are the C ones: a handle is used by one thread at a time; reports and
 * schemas may be read by many.
 */

#ifndef AGENTLOOP_HPP
#define AGENTLOOP_HPP

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "agentloop.h"

namespace agentloop {

/* ---- errors ---------------------------------------------------------------------- */

/// A C call returned something other than AGENTLOOP_RESULT_OK.
class error : public std::runtime_error {
  public:
    /// `code` from the C function `where`; `detail` the library's sentence, if any.
    error(agentloop_result code, const char *where, const std::string &detail = std::string())
        : std::runtime_error(message(code, where, detail)), code_(code), where_(where),
          detail_(std::make_shared<const std::string>(detail)) {}

    /// The C result code.
    agentloop_result code() const noexcept { return code_; }
    /// The C function that returned it (a static string).
    const char *where() const noexcept { return where_; }
    /// The library's sentence for this failure, or empty where the C API gives none.
    const std::string &detail() const noexcept { return *detail_; }

  private:
    static std::string message(agentloop_result code, const char *where,
                               const std::string &detail) {
        std::string m = std::string(where) + ": " + agentloop_result_str(code);
        if (!detail.empty()) m += ": " + detail;
        return m;
    }

    agentloop_result code_;
    const char *where_;
    // Shared, so copying the exception cannot throw.
    std::shared_ptr<const std::string> detail_;
};

/// The static name of a result code, a fault kind and a stop reason (never NULL).
inline const char *result_str(uint32_t result) noexcept { return agentloop_result_str(result); }
inline const char *fault_kind_str(uint32_t kind) noexcept { return agentloop_fault_kind_str(kind); }
inline const char *stop_str(uint32_t reason) noexcept { return agentloop_stop_str(reason); }

namespace library {
/// agentloop_library_version: the library's version (a static string).
inline const char *version() noexcept { return agentloop_library_version(); }
}  // namespace library

/* ---- conversions, each done once ------------------------------------------------- */

namespace detail {

/// Throws agentloop::error unless `r` is OK.
inline void check(agentloop_result r, const char *where) {
    if (r != AGENTLOOP_RESULT_OK) throw error(r, where);
}

/// A string_view as the C API's (ptr, len) input. A view of length 0 may have a NULL
/// data pointer, which the C API accepts with length 0.
inline const uint8_t *ptr(std::string_view s) noexcept {
    return reinterpret_cast<const uint8_t *>(s.data());
}

/// The size-query protocol: calls `call(out_buf, out_cap, out_len)` with a NULL
/// buffer, then with a buffer of the length it asked for, and returns the bytes.
/// An empty output is OK at once (length 0). Throws on any other result.
template <class Call>
std::string copy_out(const char *where, Call &&call) {
    std::string out;
    size_t len = 0;
    agentloop_result r = call(static_cast<uint8_t *>(nullptr), size_t{0}, &len);
    // The output is fixed for the object's state, so the second call fits; a length
    // that does not grow would be a library bug, refused rather than looped on.
    while (r == AGENTLOOP_RESULT_INSUFFICIENT_SIZE && len > out.size()) {
        out.resize(len);
        r = call(reinterpret_cast<uint8_t *>(&out[0]), out.size(), &len);
    }
    check(r, where);
    out.resize(len);
    return out;
}

/// A lent output `(ptr, len)` as a view (NULL/0 is the empty view).
inline std::string_view lent(const uint8_t *p, size_t len) noexcept {
    return p == nullptr ? std::string_view() : std::string_view(reinterpret_cast<const char *>(p), len);
}

/// A sentence for an error's detail, fetched after the failure; empty if even that
/// fails (the original failure is what gets thrown).
template <class Call>
std::string sentence(Call &&call) noexcept {
    try {
        return copy_out("", std::forward<Call>(call));
    } catch (...) {
        return std::string();
    }
}

}  // namespace detail

/// Frees any handle of this library with its own agentloop_*_free (NULL does nothing).
struct deleter {
    void operator()(agentloop_agent *p) const noexcept { agentloop_agent_free(p); }
    void operator()(agentloop_chain *p) const noexcept { agentloop_chain_free(p); }
    void operator()(agentloop_report *p) const noexcept { agentloop_report_free(p); }
    void operator()(agentloop_schema *p) const noexcept { agentloop_schema_free(p); }
    void operator()(agentloop_verifier *p) const noexcept { agentloop_verifier_free(p); }
    void operator()(agentloop_writer *p) const noexcept { agentloop_writer_free(p); }
};

/// An owned C handle.
template <class T>
using handle = std::unique_ptr<T, deleter>;

/* ---- plain values ---------------------------------------------------------------- */

/// agentloop_hash: 32 bytes of SHA-256 (heads, roots, anchors).
struct hash {
    agentloop_hash c{};

    hash() = default;
    explicit hash(const agentloop_hash &h) noexcept : c(h) {}

    /// agentloop_hash_to_hex: 64 lowercase hex digits.
    std::string to_hex() const {
        return detail::copy_out("agentloop_hash_to_hex", [&](uint8_t *b, size_t cap, size_t *len) {
            return agentloop_hash_to_hex(&c, b, cap, len);
        });
    }
    /// agentloop_hash_from_hex.
    static hash from_hex(std::string_view hex) {
        hash h;
        detail::check(agentloop_hash_from_hex(detail::ptr(hex), hex.size(), &h.c),
                      "agentloop_hash_from_hex");
        return h;
    }

    friend bool operator==(const hash &a, const hash &b) noexcept {
        for (size_t i = 0; i < sizeof a.c.bytes; i++)
            if (a.c.bytes[i] != b.c.bytes[i]) return false;
        return true;
    }
    friend bool operator!=(const hash &a, const hash &b) noexcept { return !(a == b); }
};

/// agentloop_verify_options, filled by agentloop_verify_options_init; the setters
/// change one member each. c() is the C struct.
class verify_options {
  public:
    verify_options() {
        detail::check(agentloop_verify_options_init(&c_), "agentloop_verify_options_init");
    }
    verify_options &lenient(bool on) noexcept {
        c_.lenient = on;
        return *this;
    }
    verify_options &seq0(uint64_t seq) noexcept {
        c_.seq0 = seq;
        return *this;
    }
    verify_options &prev0(const hash &prev) noexcept {
        c_.prev0 = prev.c;
        return *this;
    }
    /// A checkpoint of `count` records (has_checkpoint).
    verify_options &checkpoint(uint64_t count) noexcept {
        c_.has_checkpoint = true;
        c_.checkpoint_count = count;
        c_.has_checkpoint_head = false;
        return *this;
    }
    /// A checkpoint of `count` records whose last is `head` (has_checkpoint_head).
    verify_options &checkpoint(uint64_t count, const hash &head) noexcept {
        checkpoint(count);
        c_.has_checkpoint_head = true;
        c_.checkpoint_head = head.c;
        return *this;
    }
    verify_options &max_faults(uint64_t n) noexcept {
        c_.max_faults = n;
        return *this;
    }
    verify_options &max_line_bytes(uint64_t n) noexcept {
        c_.max_line_bytes = n;
        return *this;
    }

    const agentloop_verify_options &c() const noexcept { return c_; }
    agentloop_verify_options &c() noexcept { return c_; }

  private:
    agentloop_verify_options c_{};
};

/// agentloop_writer_options, filled by agentloop_writer_options_init.
class writer_options {
  public:
    writer_options() {
        detail::check(agentloop_writer_options_init(&c_), "agentloop_writer_options_init");
    }
    /// `sync` is an agentloop_sync value; `every` is read with AGENTLOOP_SYNC_EVERY_N.
    writer_options &sync(uint32_t sync, uint32_t every = 1) noexcept {
        c_.sync = sync;
        c_.sync_every = every;
        return *this;
    }
    writer_options &wait_for_lock(bool wait) noexcept {
        c_.wait_for_lock = wait;
        return *this;
    }

    const agentloop_writer_options &c() const noexcept { return c_; }
    agentloop_writer_options &c() noexcept { return c_; }

  private:
    agentloop_writer_options c_{};
};

/// agentloop_budgets, filled by agentloop_budgets_init (no limits). It owns its stop
/// sentinel; c() gives the C struct pointing into it (valid while this object lives
/// and is not changed).
class budgets {
  public:
    budgets() { detail::check(agentloop_budgets_init(&c_), "agentloop_budgets_init"); }
    budgets &max_steps(uint64_t n) noexcept {
        c_.has_max_steps = true;
        c_.max_steps = n;
        return *this;
    }
    budgets &max_tokens(uint64_t n) noexcept {
        c_.has_max_tokens = true;
        c_.max_tokens = n;
        return *this;
    }
    budgets &max_tool_calls(uint64_t n) noexcept {
        c_.has_max_tool_calls = true;
        c_.max_tool_calls = n;
        return *this;
    }
    budgets &max_total_tokens(uint64_t n) noexcept {
        c_.has_max_total_tokens = true;
        c_.max_total_tokens = n;
        return *this;
    }
    budgets &stop_sentinel(std::string_view sentinel) {
        sentinel_.assign(sentinel.data(), sentinel.size());
        return *this;
    }

    agentloop_budgets c() const noexcept {
        agentloop_budgets b = c_;
        b.stop_sentinel = sentinel_.empty() ? nullptr : detail::ptr(sentinel_);
        b.stop_sentinel_len = sentinel_.size();
        return b;
    }

  private:
    agentloop_budgets c_{};
    std::string sentinel_;
};

/* ---- json ------------------------------------------------------------------------ */

namespace json {
/// agentloop_json_canonicalize: the RFC 8785 bytes of a JSON text.
inline std::string canonicalize(std::string_view text) {
    return detail::copy_out("agentloop_json_canonicalize", [&](uint8_t *b, size_t cap, size_t *len) {
        return agentloop_json_canonicalize(detail::ptr(text), text.size(), b, cap, len);
    });
}
}  // namespace json

/* ---- chain ----------------------------------------------------------------------- */

/// agentloop_chain: makes record lines.
class chain {
  public:
    /// agentloop_chain_new: a chain from seq 0 and 32 zero bytes.
    chain() {
        agentloop_chain *raw = nullptr;
        detail::check(agentloop_chain_new(&raw), "agentloop_chain_new");
        h_.reset(raw);
    }
    /// agentloop_chain_resume: a chain whose next record has `seq0` and `prev0`.
    static chain resume(uint64_t seq0, const hash &prev0) {
        agentloop_chain *raw = nullptr;
        detail::check(agentloop_chain_resume(seq0, &prev0.c, &raw), "agentloop_chain_resume");
        return chain(handle<agentloop_chain>(raw));
    }
    /// Adopts a C handle (NULL is allowed: every call then throws NULL_PARAMETER).
    explicit chain(handle<agentloop_chain> h) noexcept : h_(std::move(h)) {}

    /// Appends a record; returns its line (ending in "\n"). agentloop_chain_append_borrowed,
    /// copied.
    std::string append(std::string_view kind, std::string_view payload) {
        return std::string(append_borrowed(kind, payload));
    }
    /// agentloop_chain_append_borrowed: the line, lent by the chain until its next call
    /// (an append, a take_record) or its destruction.
    std::string_view append_borrowed(std::string_view kind, std::string_view payload) {
        const uint8_t *line = nullptr;
        size_t len = 0;
        detail::check(agentloop_chain_append_borrowed(h_.get(), detail::ptr(kind), kind.size(),
                                                      detail::ptr(payload), payload.size(),
                                                      &line, &len),
                      "agentloop_chain_append_borrowed");
        return detail::lent(line, len);
    }
    /// agentloop_chain_head.
    hash head() const {
        hash h;
        detail::check(agentloop_chain_head(h_.get(), &h.c), "agentloop_chain_head");
        return h;
    }
    /// agentloop_chain_count.
    uint64_t count() const {
        uint64_t n = 0;
        detail::check(agentloop_chain_count(h_.get(), &n), "agentloop_chain_count");
        return n;
    }

    agentloop_chain *get() const noexcept { return h_.get(); }

  private:
    handle<agentloop_chain> h_;
};

/* ---- reports and verifying ------------------------------------------------------- */

/// One fault of a report (agentloop_report_fault), copied out of it.
struct fault {
    int64_t index;              ///< the record's 0-based index, -1 where none applies
    int64_t line;               ///< its 1-based line, -1 where none applies
    agentloop_fault_kind kind;  ///< fault_kind_str(kind) names it
    std::string detail;         ///< what was expected and what was found
};

/// agentloop_report: what a verification found. Immutable.
class report {
  public:
    /// Adopts a C handle (NULL is allowed: every call then throws NULL_PARAMETER,
    /// but ok(), count() and the counts, which the C API answers with false or 0).
    explicit report(handle<agentloop_report> h) noexcept : h_(std::move(h)) {}

    /// agentloop_report_ok.
    bool ok() const noexcept { return agentloop_report_ok(h_.get()); }
    /// agentloop_report_count: records read.
    uint64_t count() const noexcept { return agentloop_report_count(h_.get()); }
    /// agentloop_report_fault_count: faults kept.
    uint64_t fault_count() const noexcept { return agentloop_report_fault_count(h_.get()); }
    /// agentloop_report_faults_omitted: faults only counted.
    uint64_t faults_omitted() const noexcept { return agentloop_report_faults_omitted(h_.get()); }
    /// agentloop_report_head: the last record's hash, if there is one.
    std::optional<hash> head() const {
        hash h;
        bool has = false;
        detail::check(agentloop_report_head(h_.get(), &h.c, &has), "agentloop_report_head");
        return has ? std::optional<hash>(h) : std::nullopt;
    }
    /// agentloop_report_root: the Merkle root of the records read, if any were read.
    std::optional<hash> root() const {
        hash h;
        bool has = false;
        detail::check(agentloop_report_root(h_.get(), &h.c, &has), "agentloop_report_root");
        return has ? std::optional<hash>(h) : std::nullopt;
    }
    /// agentloop_report_beyond_checkpoint.
    std::optional<uint64_t> beyond_checkpoint() const {
        uint64_t n = 0;
        bool has = false;
        detail::check(agentloop_report_beyond_checkpoint(h_.get(), &n, &has),
                      "agentloop_report_beyond_checkpoint");
        return has ? std::optional<uint64_t>(n) : std::nullopt;
    }
    /// agentloop_report_fault: fault `i` (INDEX_OUT_OF_RANGE past the count).
    agentloop::fault fault(uint64_t i) const {
        int64_t index = -1, line = -1;
        uint32_t kind = 0;
        const char *text = nullptr;
        detail::check(agentloop_report_fault(h_.get(), i, &index, &line, &kind, &text),
                      "agentloop_report_fault");
        return agentloop::fault{index, line, static_cast<agentloop_fault_kind>(kind),
                                std::string(text == nullptr ? "" : text)};
    }
    /// Every fault kept, in order.
    std::vector<agentloop::fault> faults() const {
        std::vector<agentloop::fault> all;
        for (uint64_t i = 0, n = fault_count(); i < n; i++) all.push_back(fault(i));
        return all;
    }

    agentloop_report *get() const noexcept { return h_.get(); }

  private:
    handle<agentloop_report> h_;
};

namespace detail {
inline const agentloop_verify_options *opts(const verify_options *o) noexcept {
    return o == nullptr ? nullptr : &o->c();
}
}  // namespace detail

/// agentloop_verifier: a streaming verifier.
class verifier {
  public:
    /// agentloop_verifier_new; NULL options are the defaults.
    explicit verifier(const verify_options *options = nullptr) {
        agentloop_verifier *raw = nullptr;
        detail::check(agentloop_verifier_new(detail::opts(options), &raw), "agentloop_verifier_new");
        h_.reset(raw);
    }
    explicit verifier(const verify_options &options) : verifier(&options) {}

    /// agentloop_verifier_push: the next bytes, any chunking.
    void push(std::string_view bytes) {
        detail::check(agentloop_verifier_push(h_.get(), detail::ptr(bytes), bytes.size()),
                      "agentloop_verifier_push");
    }
    /// agentloop_verifier_finish: the report (the verifier stays alive; a push after
    /// it is INVALID_STATE).
    report finish() {
        agentloop_report *raw = nullptr;
        detail::check(agentloop_verifier_finish(h_.get(), &raw), "agentloop_verifier_finish");
        return report(handle<agentloop_report>(raw));
    }

    agentloop_verifier *get() const noexcept { return h_.get(); }

  private:
    handle<agentloop_verifier> h_;
};

/// The result of transcript::repair.
struct repaired {
    uint64_t offset;   ///< where the torn line started (the file's length if none)
    uint64_t removed;  ///< bytes moved aside; 0: nothing was torn, nothing changed
};

namespace transcript {

/// agentloop_transcript_verify_buffer.
inline report verify_buffer(std::string_view bytes, const verify_options *options = nullptr) {
    agentloop_report *raw = nullptr;
    detail::check(agentloop_transcript_verify_buffer(detail::ptr(bytes), bytes.size(),
                                                     detail::opts(options), &raw),
                  "agentloop_transcript_verify_buffer");
    return report(handle<agentloop_report>(raw));
}
inline report verify_buffer(std::string_view bytes, const verify_options &options) {
    return verify_buffer(bytes, &options);
}

/// agentloop_transcript_verify_file (an unreadable file is a fault in the report).
inline report verify_file(std::string_view path, const verify_options *options = nullptr) {
    agentloop_report *raw = nullptr;
    detail::check(agentloop_transcript_verify_file(detail::ptr(path), path.size(),
                                                   detail::opts(options), &raw),
                  "agentloop_transcript_verify_file");
    return report(handle<agentloop_report>(raw));
}
inline report verify_file(std::string_view path, const verify_options &options) {
    return verify_file(path, &options);
}

/// agentloop_transcript_verify_checkpoints: `checkpoints` is any range of things a
/// std::string_view can be made from; `trusted_keys` and `origin` empty for none.
template <class Range>
report verify_checkpoints(std::string_view bytes, const Range &checkpoints,
                          std::string_view trusted_keys = std::string_view(),
                          std::string_view origin = std::string_view(),
                          const verify_options *options = nullptr) {
    std::vector<const uint8_t *> ptrs;
    std::vector<size_t> lens;
    for (const auto &checkpoint : checkpoints) {
        std::string_view text(checkpoint);
        ptrs.push_back(detail::ptr(text));
        lens.push_back(text.size());
    }
    agentloop_report *raw = nullptr;
    detail::check(agentloop_transcript_verify_checkpoints(
                      detail::ptr(bytes), bytes.size(), detail::opts(options),
                      ptrs.empty() ? nullptr : ptrs.data(), lens.empty() ? nullptr : lens.data(),
                      ptrs.size(), detail::ptr(trusted_keys), trusted_keys.size(),
                      detail::ptr(origin), origin.size(), &raw),
                  "agentloop_transcript_verify_checkpoints");
    return report(handle<agentloop_report>(raw));
}

/// agentloop_transcript_checkpoint: `origin` empty for the default, `signer_key`
/// empty for an unsigned checkpoint.
inline std::string checkpoint(std::string_view bytes, std::string_view origin = std::string_view(),
                              std::string_view signer_key = std::string_view()) {
    return detail::copy_out("agentloop_transcript_checkpoint", [&](uint8_t *b, size_t cap, size_t *len) {
        return agentloop_transcript_checkpoint(detail::ptr(bytes), bytes.size(), detail::ptr(origin),
                                               origin.size(), detail::ptr(signer_key),
                                               signer_key.size(), b, cap, len);
    });
}

/// agentloop_transcript_prove_inclusion: `checkpoint` empty for every record's.
inline std::string prove_inclusion(std::string_view bytes, uint64_t index,
                                   std::string_view checkpoint = std::string_view()) {
    return detail::copy_out("agentloop_transcript_prove_inclusion", [&](uint8_t *b, size_t cap, size_t *len) {
        return agentloop_transcript_prove_inclusion(detail::ptr(bytes), bytes.size(),
                                                    detail::ptr(checkpoint), checkpoint.size(),
                                                    index, b, cap, len);
    });
}

/// agentloop_transcript_prove_consistency: from the first `from` records.
inline std::string prove_consistency(std::string_view bytes, uint64_t from,
                                     std::string_view checkpoint = std::string_view()) {
    return detail::copy_out("agentloop_transcript_prove_consistency", [&](uint8_t *b, size_t cap, size_t *len) {
        return agentloop_transcript_prove_consistency(detail::ptr(bytes), bytes.size(),
                                                      detail::ptr(checkpoint), checkpoint.size(),
                                                      from, b, cap, len);
    });
}

/// agentloop_transcript_repair.
inline repaired repair(std::string_view path, const verify_options *options = nullptr) {
    repaired out{0, 0};
    detail::check(agentloop_transcript_repair(detail::ptr(path), path.size(), detail::opts(options),
                                              &out.offset, &out.removed),
                  "agentloop_transcript_repair");
    return out;
}

}  // namespace transcript

namespace proof {

/// agentloop_proof_verify_inclusion: true when the proof holds, false for
/// PROOF_INVALID (proof::explain says why); other results throw.
inline bool verify_inclusion(std::string_view proof, std::string_view trusted_keys = std::string_view(),
                             std::string_view origin = std::string_view()) {
    agentloop_result r = agentloop_proof_verify_inclusion(detail::ptr(proof), proof.size(),
                                                          detail::ptr(trusted_keys), trusted_keys.size(),
                                                          detail::ptr(origin), origin.size());
    if (r == AGENTLOOP_RESULT_PROOF_INVALID) return false;
    detail::check(r, "agentloop_proof_verify_inclusion");
    return true;
}

/// agentloop_proof_verify_consistency: as verify_inclusion.
inline bool verify_consistency(std::string_view proof, std::string_view old_checkpoint,
                               std::string_view trusted_keys = std::string_view(),
                               std::string_view origin = std::string_view()) {
    agentloop_result r = agentloop_proof_verify_consistency(
        detail::ptr(proof), proof.size(), detail::ptr(old_checkpoint), old_checkpoint.size(),
        detail::ptr(trusted_keys), trusted_keys.size(), detail::ptr(origin), origin.size());
    if (r == AGENTLOOP_RESULT_PROOF_INVALID) return false;
    detail::check(r, "agentloop_proof_verify_consistency");
    return true;
}

/// agentloop_proof_explain: why a proof does not hold (empty when it holds).
inline std::string explain(std::string_view proof, std::string_view old_checkpoint = std::string_view(),
                           std::string_view trusted_keys = std::string_view(),
                           std::string_view origin = std::string_view()) {
    return detail::copy_out("agentloop_proof_explain", [&](uint8_t *b, size_t cap, size_t *len) {
        return agentloop_proof_explain(detail::ptr(proof), proof.size(), detail::ptr(old_checkpoint),
                                       old_checkpoint.size(), detail::ptr(trusted_keys),
                                       trusted_keys.size(), detail::ptr(origin), origin.size(), b,
                                       cap, len);
    });
}

}  // namespace proof

/* ---- writer ---------------------------------------------------------------------- */

/// agentloop_writer: a transcript file open for appending.
class writer {
  public:
    /// agentloop_writer_open_with (NULL options: the defaults).
    explicit writer(std::string_view path, const verify_options *verify = nullptr,
                    const writer_options *options = nullptr) {
        agentloop_writer *raw = nullptr;
        detail::check(agentloop_writer_open_with(detail::ptr(path), path.size(), detail::opts(verify),
                                                 options == nullptr ? nullptr : &options->c(), &raw),
                      "agentloop_writer_open_with");
        h_.reset(raw);
    }
    /// agentloop_writer_open: the default writer options.
    static writer open(std::string_view path, const verify_options *verify = nullptr) {
        agentloop_writer *raw = nullptr;
        detail::check(agentloop_writer_open(detail::ptr(path), path.size(), detail::opts(verify), &raw),
                      "agentloop_writer_open");
        return writer(handle<agentloop_writer>(raw));
    }
    explicit writer(handle<agentloop_writer> h) noexcept : h_(std::move(h)) {}

    /// agentloop_writer_append.
    void append(std::string_view kind, std::string_view payload) {
        detail::check(agentloop_writer_append(h_.get(), detail::ptr(kind), kind.size(),
                                              detail::ptr(payload), payload.size()),
                      "agentloop_writer_append");
    }
    /// agentloop_writer_refresh.
    void refresh() { detail::check(agentloop_writer_refresh(h_.get()), "agentloop_writer_refresh"); }
    /// agentloop_writer_sync.
    void sync() { detail::check(agentloop_writer_sync(h_.get()), "agentloop_writer_sync"); }
    /// agentloop_writer_head.
    hash head() const {
        hash h;
        detail::check(agentloop_writer_head(h_.get(), &h.c), "agentloop_writer_head");
        return h;
    }
    /// agentloop_writer_count.
    uint64_t count() const {
        uint64_t n = 0;
        detail::check(agentloop_writer_count(h_.get(), &n), "agentloop_writer_count");
        return n;
    }

    agentloop_writer *get() const noexcept { return h_.get(); }

  private:
    handle<agentloop_writer> h_;
};

/* ---- schemas and tools ----------------------------------------------------------- */

/// agentloop_schema: a compiled JSON Schema (docs/schemas.md). Immutable.
class schema {
  public:
    /// agentloop_schema_explain: why a schema is refused (empty when it compiles).
    static std::string explain(std::string_view text) {
        return detail::copy_out("agentloop_schema_explain", [&](uint8_t *b, size_t cap, size_t *len) {
            return agentloop_schema_explain(detail::ptr(text), text.size(), b, cap, len);
        });
    }
    /// agentloop_schema_new; a refusal's error carries schema::explain's sentence.
    explicit schema(std::string_view text) {
        agentloop_schema *raw = nullptr;
        agentloop_result r = agentloop_schema_new(detail::ptr(text), text.size(), &raw);
        if (r == AGENTLOOP_RESULT_SCHEMA_REFUSED)
            throw error(r, "agentloop_schema_new", detail::sentence([&](uint8_t *b, size_t cap, size_t *len) {
                            return agentloop_schema_explain(detail::ptr(text), text.size(), b, cap, len);
                        }));
        detail::check(r, "agentloop_schema_new");
        h_.reset(raw);
    }
    explicit schema(handle<agentloop_schema> h) noexcept : h_(std::move(h)) {}

    /// agentloop_schema_validate.
    bool validate(std::string_view instance) const {
        bool valid = false;
        detail::check(agentloop_schema_validate(h_.get(), detail::ptr(instance), instance.size(), &valid),
                      "agentloop_schema_validate");
        return valid;
    }
    /// agentloop_schema_violations: one line each (empty for a valid instance).
    std::string violations(std::string_view instance) const {
        return detail::copy_out("agentloop_schema_violations", [&](uint8_t *b, size_t cap, size_t *len) {
            return agentloop_schema_violations(h_.get(), detail::ptr(instance), instance.size(), b, cap,
                                               len);
        });
    }

    agentloop_schema *get() const noexcept { return h_.get(); }

  private:
    handle<agentloop_schema> h_;
};

namespace tool {
/// agentloop_tool_explain: why a tool's name or schema is refused (empty when it
/// registers).
inline std::string explain(std::string_view name, std::string_view schema) {
    return detail::copy_out("agentloop_tool_explain", [&](uint8_t *b, size_t cap, size_t *len) {
        return agentloop_tool_explain(detail::ptr(name), name.size(), detail::ptr(schema), schema.size(),
                                      b, cap, len);
    });
}
}  // namespace tool

/* ---- the agent (sans-I/O loop) --------------------------------------------------- */

/// How a run ended (agentloop_agent_outcome, agentloop_outcome).
struct outcome {
    agentloop_stop reason;  ///< stop_str(reason) names it
    uint64_t steps;
    uint64_t tokens;
    uint64_t unrun_calls;
    uint64_t tool_calls;
};

/// Where a resumed run goes on (agentloop_agent_resume).
struct resume_point {
    uint64_t next_seq;  ///< the next record's seq
    hash head;          ///< the transcript's last hash: chain::resume(next_seq, head)
};

/// agentloop_agent: the loop as a state machine.
class agent {
  public:
    /// agentloop_agent_new.
    explicit agent(std::string_view task, const budgets &limits = budgets(), uint64_t first_seq = 0) {
        agentloop_budgets b = limits.c();
        agentloop_agent *raw = nullptr;
        detail::check(agentloop_agent_new(detail::ptr(task), task.size(), &b, first_seq, &raw),
                      "agentloop_agent_new");
        h_.reset(raw);
    }
    explicit agent(handle<agentloop_agent> h) noexcept : h_(std::move(h)) {}

    /// agentloop_agent_add_tool; a refused name or schema's error carries
    /// tool::explain's sentence.
    void add_tool(std::string_view name, std::string_view description, std::string_view schema,
                  uint64_t limit = 0) {
        agentloop_result r =
            agentloop_agent_add_tool(h_.get(), detail::ptr(name), name.size(), detail::ptr(description),
                                     description.size(), detail::ptr(schema), schema.size(), limit);
        if (r == AGENTLOOP_RESULT_SCHEMA_REFUSED || r == AGENTLOOP_RESULT_NOT_PROVIDER_SAFE)
            throw error(r, "agentloop_agent_add_tool", detail::sentence([&](uint8_t *b, size_t cap, size_t *len) {
                            return agentloop_tool_explain(detail::ptr(name), name.size(), detail::ptr(schema),
                                                          schema.size(), b, cap, len);
                        }));
        detail::check(r, "agentloop_agent_add_tool");
    }
    /// agentloop_agent_set_idempotent.
    void set_idempotent(std::string_view name) {
        detail::check(agentloop_agent_set_idempotent(h_.get(), detail::ptr(name), name.size()),
                      "agentloop_agent_set_idempotent");
    }
    /// agentloop_agent_set_setup: the run's setup as JSON (docs/format.md).
    void set_setup(std::string_view json) {
        detail::check(agentloop_agent_set_setup(h_.get(), detail::ptr(json), json.size()),
                      "agentloop_agent_set_setup");
    }
    /// agentloop_agent_resume (`prev0` absent: 32 zero bytes); a refusal's error
    /// carries agentloop_agent_resume_error's sentence.
    resume_point resume(std::string_view transcript, const std::optional<hash> &prev0 = std::nullopt) {
        resume_point at{0, hash()};
        agentloop_result r = agentloop_agent_resume(h_.get(), prev0 ? &prev0->c : nullptr,
                                                    detail::ptr(transcript), transcript.size(),
                                                    &at.next_seq, &at.head.c);
        if (r == AGENTLOOP_RESULT_DOES_NOT_VERIFY || r == AGENTLOOP_RESULT_RESUME_REFUSED)
            throw error(r, "agentloop_agent_resume", detail::sentence([&](uint8_t *b, size_t cap, size_t *len) {
                            return agentloop_agent_resume_error(h_.get(), b, cap, len);
                        }));
        detail::check(r, "agentloop_agent_resume");
        return at;
    }
    /// agentloop_agent_resume_error (empty when the last resume was not refused).
    std::string resume_error() const {
        return detail::copy_out("agentloop_agent_resume_error", [&](uint8_t *b, size_t cap, size_t *len) {
            return agentloop_agent_resume_error(h_.get(), b, cap, len);
        });
    }

    /// agentloop_agent_poll.
    agentloop_need poll() {
        uint32_t need = 0;
        detail::check(agentloop_agent_poll(h_.get(), &need), "agentloop_agent_poll");
        return static_cast<agentloop_need>(need);
    }
    /// agentloop_agent_set_parallel: how many calls of a turn may wait at once (1, the
    /// default: one at a time; UINT64_MAX: every call of a turn).
    void set_parallel(uint64_t parallel) {
        detail::check(agentloop_agent_set_parallel(h_.get(), parallel), "agentloop_agent_set_parallel");
    }
    /// agentloop_agent_cancel.
    void cancel() { detail::check(agentloop_agent_cancel(h_.get()), "agentloop_agent_cancel"); }

    /// agentloop_agent_take_record_borrowed, copied: the next pending record's line,
    /// appended to `to`, or nothing when none is pending.
    std::optional<std::string> take_record(chain &to) {
        std::optional<std::string_view> line = take_record_borrowed(to);
        return line ? std::optional<std::string>(std::string(*line)) : std::nullopt;
    }
    /// agentloop_agent_take_record_borrowed: the line lent by `to` until its next call.
    std::optional<std::string_view> take_record_borrowed(chain &to) {
        const uint8_t *line = nullptr;
        size_t len = 0;
        bool has = false;
        detail::check(agentloop_agent_take_record_borrowed(h_.get(), to.get(), &line, &len, &has),
                      "agentloop_agent_take_record_borrowed");
        return has ? std::optional<std::string_view>(detail::lent(line, len)) : std::nullopt;
    }

    /// agentloop_agent_messages_json.
    std::string messages_json() const {
        return out("agentloop_agent_messages_json", agentloop_agent_messages_json);
    }
    /// agentloop_agent_manifest_json.
    std::string manifest_json() const {
        return out("agentloop_agent_manifest_json", agentloop_agent_manifest_json);
    }
    /// agentloop_agent_feed_reply: `calls` a JSON array, or empty for none;
    /// `output_tokens` absent for the loop's estimate.
    void feed_reply(std::string_view text, std::string_view calls = std::string_view(),
                    std::optional<uint64_t> output_tokens = std::nullopt) {
        detail::check(agentloop_agent_feed_reply(h_.get(), detail::ptr(text), text.size(), detail::ptr(calls),
                                                 calls.size(), output_tokens.has_value(),
                                                 output_tokens.value_or(0)),
                      "agentloop_agent_feed_reply");
    }
    /// agentloop_agent_feed_model_error.
    void feed_model_error(std::string_view message) {
        detail::check(agentloop_agent_feed_model_error(h_.get(), detail::ptr(message), message.size()),
                      "agentloop_agent_feed_model_error");
    }
    /// agentloop_agent_request: the provider's request body; a refusal's error
    /// carries agentloop_agent_request_error's sentence.
    std::string request(agentloop_provider provider, std::string_view options) {
        try {
            return detail::copy_out("agentloop_agent_request", [&](uint8_t *b, size_t cap, size_t *len) {
                return agentloop_agent_request(h_.get(), provider, detail::ptr(options), options.size(), b,
                                               cap, len);
            });
        } catch (const error &e) {
            if (e.code() != AGENTLOOP_RESULT_REQUEST_REFUSED) throw;
            throw error(e.code(), e.where(), detail::sentence([&](uint8_t *b, size_t cap, size_t *len) {
                            return agentloop_agent_request_error(h_.get(), b, cap, len);
                        }));
        }
    }
    /// agentloop_agent_request_error (empty when the last request was not refused).
    std::string request_error() const {
        return out("agentloop_agent_request_error", agentloop_agent_request_error);
    }
    /// agentloop_agent_feed_response: the provider's answer, `status` 100..999; `secret`
    /// is the API key the request was sent with (redacted from an error; empty: none).
    void feed_response(agentloop_provider provider, uint32_t status, std::string_view body,
                       std::string_view secret = {}) {
        detail::check(agentloop_agent_feed_response(h_.get(), provider, status, detail::ptr(body), body.size(),
                                                    detail::ptr(secret), secret.size()),
                      "agentloop_agent_feed_response");
    }
    /// agentloop_agent_feed_exchange: as feed_response, saying what was sent: `sent` is
    /// the exact request body posted, whose SHA-256 the transcript records.
    void feed_exchange(agentloop_provider provider, std::string_view sent, uint32_t status,
                       std::string_view body, std::string_view secret = {}) {
        detail::check(agentloop_agent_feed_exchange(h_.get(), provider, detail::ptr(sent), sent.size(), status,
                                                    detail::ptr(body), body.size(), detail::ptr(secret),
                                                    secret.size()),
                      "agentloop_agent_feed_exchange");
    }

    /// agentloop_agent_call_json, _call_name, _call_id, _call_arguments: the call to run.
    std::string call_json() const { return out("agentloop_agent_call_json", agentloop_agent_call_json); }
    std::string call_name() const { return out("agentloop_agent_call_name", agentloop_agent_call_name); }
    std::string call_id() const { return out("agentloop_agent_call_id", agentloop_agent_call_id); }
    std::string call_arguments() const {
        return out("agentloop_agent_call_arguments", agentloop_agent_call_arguments);
    }
    /// agentloop_agent_feed_tool_result: the tool's value (JSON).
    void feed_tool_result(std::string_view value) {
        detail::check(agentloop_agent_feed_tool_result(h_.get(), detail::ptr(value), value.size()),
                      "agentloop_agent_feed_tool_result");
    }
    /// agentloop_agent_feed_tool_error: the tool's failure (UTF-8).
    void feed_tool_error(std::string_view message) {
        detail::check(agentloop_agent_feed_tool_error(h_.get(), detail::ptr(message), message.size()),
                      "agentloop_agent_feed_tool_error");
    }
    /// agentloop_agent_take_calls: the calls handed out and still waiting, a JSON array.
    std::string take_calls() const { return out("agentloop_agent_take_calls", agentloop_agent_take_calls); }
    /// agentloop_agent_feed_tool_result_for: a waiting call's value, by id.
    void feed_tool_result_for(std::string_view id, std::string_view value) {
        detail::check(agentloop_agent_feed_tool_result_for(h_.get(), detail::ptr(id), id.size(),
                                                           detail::ptr(value), value.size()),
                      "agentloop_agent_feed_tool_result_for");
    }
    /// agentloop_agent_feed_tool_error_for: a waiting call's failure, by id.
    void feed_tool_error_for(std::string_view id, std::string_view message) {
        detail::check(agentloop_agent_feed_tool_error_for(h_.get(), detail::ptr(id), id.size(),
                                                          detail::ptr(message), message.size()),
                      "agentloop_agent_feed_tool_error_for");
    }

    /// agentloop_agent_outcome (INVALID_STATE while the run goes on).
    agentloop::outcome outcome() const {
        uint32_t reason = 0;
        agentloop::outcome o{AGENTLOOP_STOP_UNKNOWN, 0, 0, 0, 0};
        detail::check(agentloop_agent_outcome(h_.get(), &reason, &o.steps, &o.tokens, &o.unrun_calls,
                                              &o.tool_calls),
                      "agentloop_agent_outcome");
        o.reason = static_cast<agentloop_stop>(reason);
        return o;
    }
    /// agentloop_agent_stop_error: the model error or refusal that stopped the run
    /// (empty when none did).
    std::string stop_error() const { return out("agentloop_agent_stop_error", agentloop_agent_stop_error); }

    agentloop_agent *get() const noexcept { return h_.get(); }

  private:
    using getter = agentloop_result (*)(const agentloop_agent *, uint8_t *, size_t, size_t *);
    std::string out(const char *where, getter f) const {
        return detail::copy_out(where, [&](uint8_t *b, size_t cap, size_t *len) { return f(h_.get(), b, cap, len); });
    }

    handle<agentloop_agent> h_;
};

/* ---- the callback driver --------------------------------------------------------- */

/// agentloop_reply: what the model callback of driver::run fills. Borrowed for the
/// callback's duration; not owned, not copyable.
class reply {
  public:
    explicit reply(agentloop_reply *c) noexcept : c_(c) {}
    reply(const reply &) = delete;
    reply &operator=(const reply &) = delete;

    /// agentloop_reply_set_text.
    void set_text(std::string_view text) {
        detail::check(agentloop_reply_set_text(c_, detail::ptr(text), text.size()), "agentloop_reply_set_text");
    }
    /// agentloop_reply_add_call: `arguments` JSON.
    void add_call(std::string_view name, std::string_view arguments) {
        detail::check(agentloop_reply_add_call(c_, detail::ptr(name), name.size(), detail::ptr(arguments),
                                               arguments.size()),
                      "agentloop_reply_add_call");
    }
    /// agentloop_reply_set_output_tokens.
    void set_output_tokens(uint64_t tokens) {
        detail::check(agentloop_reply_set_output_tokens(c_, tokens), "agentloop_reply_set_output_tokens");
    }
    /// agentloop_reply_set_error: the model failed.
    void set_error(std::string_view message) {
        detail::check(agentloop_reply_set_error(c_, detail::ptr(message), message.size()),
                      "agentloop_reply_set_error");
    }
    /// agentloop_reply_request: the provider's request body for this turn.
    std::string request(agentloop_provider provider, std::string_view options) {
        return detail::copy_out("agentloop_reply_request", [&](uint8_t *b, size_t cap, size_t *len) {
            return agentloop_reply_request(c_, provider, detail::ptr(options), options.size(), b, cap, len);
        });
    }
    /// agentloop_reply_parse: fills the reply from the provider's answer; `secret` is the
    /// API key the request was sent with (redacted from an error; empty: none).
    void parse(agentloop_provider provider, uint32_t status, std::string_view body,
               std::string_view secret = {}) {
        detail::check(agentloop_reply_parse(c_, provider, status, detail::ptr(body), body.size(),
                                            detail::ptr(secret), secret.size()),
                      "agentloop_reply_parse");
    }
    /// agentloop_reply_set_provider_json.
    void set_provider_json(std::string_view json) {
        detail::check(agentloop_reply_set_provider_json(c_, detail::ptr(json), json.size()),
                      "agentloop_reply_set_provider_json");
    }

    agentloop_reply *get() const noexcept { return c_; }

  private:
    agentloop_reply *c_;
};

/// agentloop_tool_result: what a tool callback of driver::run fills. Borrowed for the
/// callback's duration.
class tool_result {
  public:
    explicit tool_result(agentloop_tool_result *c) noexcept : c_(c) {}
    tool_result(const tool_result &) = delete;
    tool_result &operator=(const tool_result &) = delete;

    /// agentloop_tool_result_set_value: the tool's value (JSON).
    void set_value(std::string_view json) {
        detail::check(agentloop_tool_result_set_value(c_, detail::ptr(json), json.size()),
                      "agentloop_tool_result_set_value");
    }
    /// agentloop_tool_result_set_error: the tool's failure.
    void set_error(std::string_view message) {
        detail::check(agentloop_tool_result_set_error(c_, detail::ptr(message), message.size()),
                      "agentloop_tool_result_set_error");
    }

    agentloop_tool_result *get() const noexcept { return c_; }

  private:
    agentloop_tool_result *c_;
};

namespace driver {

/// The model: the conversation and tools as JSON; fills the reply.
using model_fn = std::function<void(std::string_view messages, std::string_view manifest, reply &)>;
/// A tool: its canonical JSON arguments; fills the result.
using tool_fn = std::function<void(std::string_view arguments, tool_result &)>;
/// Asked at each check point: true cancels.
using cancel_fn = std::function<bool()>;
/// Takes each record line in order.
using record_fn = std::function<void(std::string_view line)>;

/// A tool for driver::run (agentloop_tool): the strings are copied when the run starts.
struct tool_spec {
    std::string name;
    std::string description;
    std::string schema;  ///< a JSON Schema document (docs/schemas.md)
    uint64_t limit = 0;  ///< most calls in a run; 0: none
    tool_fn run;
};

namespace detail {

/// What the trampolines share during one run: the callbacks and the first exception.
struct run_state {
    const model_fn *model;
    const cancel_fn *cancel;
    const record_fn *record;
    std::exception_ptr failure;

    void keep(std::exception_ptr e) noexcept {
        if (!failure) failure = std::move(e);
    }
};

struct tool_slot {
    run_state *state;
    const tool_spec *spec;
};

inline std::string_view view(const uint8_t *p, size_t len) noexcept { return agentloop::detail::lent(p, len); }

inline void message_of(std::exception_ptr e, std::string &out) noexcept {
    try {
        std::rethrow_exception(e);
    } catch (const std::exception &x) {
        try {
            out = x.what();
        } catch (...) {
        }
    } catch (...) {
    }
}

inline void model_trampoline(void *userdata, const uint8_t *m, size_t m_len, const uint8_t *t,
                                          size_t t_len, agentloop_reply *c) noexcept {
    run_state *state = static_cast<run_state *>(userdata);
    try {
        reply r(c);
        (*state->model)(view(m, m_len), view(t, t_len), r);
    } catch (...) {
        state->keep(std::current_exception());
        std::string why = "the model callback threw";
        message_of(std::current_exception(), why);
        agentloop_reply_set_error(c, agentloop::detail::ptr(why), why.size());
    }
}

inline void tool_trampoline(void *userdata, const uint8_t *a, size_t a_len, agentloop_tool_result *c) noexcept {
    tool_slot *slot = static_cast<tool_slot *>(userdata);
    try {
        tool_result r(c);
        slot->spec->run(view(a, a_len), r);
    } catch (...) {
        slot->state->keep(std::current_exception());
        std::string why = "the tool callback threw";
        message_of(std::current_exception(), why);
        agentloop_tool_result_set_error(c, agentloop::detail::ptr(why), why.size());
    }
}

inline bool cancel_trampoline(void *userdata) noexcept {
    run_state *state = static_cast<run_state *>(userdata);
    if (state->failure) return true;
    if (state->cancel == nullptr || !*state->cancel) return false;
    try {
        return (*state->cancel)();
    } catch (...) {
        state->keep(std::current_exception());
        return true;
    }
}

inline uint32_t record_trampoline(void *userdata, const uint8_t *line, size_t len) noexcept {
    run_state *state = static_cast<run_state *>(userdata);
    try {
        (*state->record)(view(line, len));
        return 0;
    } catch (...) {
        state->keep(std::current_exception());
        return 1;
    }
}

/// The C tools for `tools`, each with a slot pointing back at `state`.
inline std::vector<agentloop_tool> c_tools(const std::vector<tool_spec> &tools, run_state &state,
                                           std::vector<tool_slot> &slots) {
    slots.clear();
    slots.reserve(tools.size());
    std::vector<agentloop_tool> out;
    out.reserve(tools.size());
    for (const tool_spec &t : tools) {
        slots.push_back(tool_slot{&state, &t});
        agentloop_tool c{};
        c.name = agentloop::detail::ptr(t.name);
        c.name_len = t.name.size();
        c.description = agentloop::detail::ptr(t.description);
        c.description_len = t.description.size();
        c.schema = agentloop::detail::ptr(t.schema);
        c.schema_len = t.schema.size();
        c.limit = t.limit;
        // A tool without a function is given no callback: the C call refuses it
        // (NULL_PARAMETER) before anything runs.
        c.callback = t.run ? tool_trampoline : nullptr;
        c.userdata = &slots.back();
        out.push_back(c);
    }
    return out;
}

inline agentloop::outcome finish(agentloop_result r, const char *where, run_state &state,
                                 const agentloop_outcome &o) {
    if (state.failure) std::rethrow_exception(state.failure);
    agentloop::detail::check(r, where);
    return agentloop::outcome{static_cast<agentloop_stop>(o.reason), o.steps, o.tokens, o.unrun_calls,
                              o.tool_calls};
}

}  // namespace detail

/// agentloop_driver_run: runs the loop to its end, each record line to `record`. An
/// exception from a callback stops the run (see the top of this header) and is
/// rethrown here.
inline agentloop::outcome run(std::string_view task, const budgets &limits, const model_fn &model,
                              const std::vector<tool_spec> &tools, const record_fn &record,
                              const cancel_fn &cancel = cancel_fn()) {
    detail::run_state state{&model, &cancel, &record, nullptr};
    std::vector<detail::tool_slot> slots;
    std::vector<agentloop_tool> c = detail::c_tools(tools, state, slots);
    agentloop_budgets b = limits.c();
    agentloop_outcome o{};
    agentloop_result r = agentloop_driver_run(
        agentloop::detail::ptr(task), task.size(), &b, model ? detail::model_trampoline : nullptr, &state,
        c.empty() ? nullptr : c.data(), c.size(), detail::cancel_trampoline, &state,
        record ? detail::record_trampoline : nullptr, &state, &o);
    return detail::finish(r, "agentloop_driver_run", state, o);
}

/// agentloop_driver_run_to_writer: as run, each record appended to `to`.
inline agentloop::outcome run_to_writer(writer &to, std::string_view task, const budgets &limits,
                                        const model_fn &model, const std::vector<tool_spec> &tools,
                                        const cancel_fn &cancel = cancel_fn()) {
    detail::run_state state{&model, &cancel, nullptr, nullptr};
    std::vector<detail::tool_slot> slots;
    std::vector<agentloop_tool> c = detail::c_tools(tools, state, slots);
    agentloop_budgets b = limits.c();
    agentloop_outcome o{};
    agentloop_result r = agentloop_driver_run_to_writer(
        to.get(), agentloop::detail::ptr(task), task.size(), &b, model ? detail::model_trampoline : nullptr,
        &state, c.empty() ? nullptr : c.data(), c.size(), detail::cancel_trampoline, &state, &o);
    return detail::finish(r, "agentloop_driver_run_to_writer", state, o);
}

}  // namespace driver

/* The handles move without throwing and never copy (a copy would free twice). */
static_assert(std::is_nothrow_move_constructible<chain>::value && !std::is_copy_constructible<chain>::value,
              "chain");
static_assert(std::is_nothrow_move_assignable<report>::value && !std::is_copy_constructible<report>::value,
              "report");
static_assert(std::is_nothrow_move_constructible<agent>::value && std::is_nothrow_move_assignable<agent>::value,
              "agent");
static_assert(std::is_nothrow_move_constructible<writer>::value && std::is_nothrow_move_constructible<verifier>::value &&
                  std::is_nothrow_move_constructible<schema>::value,
              "writer, verifier, schema");
static_assert(std::is_nothrow_copy_constructible<error>::value, "error");

}  // namespace agentloop

#endif  // AGENTLOOP_HPP
