// cpp_example.cpp: C++17 through include/agentloop.hpp, the header-only RAII wrapper.
//
//   cpp_example DIR
//
// Writes into DIR (which must exist):
//   spec.jsonl    the SPEC's three-record transcript, made with agentloop::chain
//   writer.jsonl  the same records appended to a file with agentloop::writer
//   loop.jsonl    a two-turn run of the agent handle (a scripted model, an echo tool)
//   driver.jsonl  the same run through agentloop::driver::run with C++ callbacks
// and checks on the way what a broken wrapper would get wrong: canonical bytes, the
// verifier's reports of a good and a tampered transcript (fault kind, index, line,
// detail), streaming in any chunking, proofs, schemas, a provider request, resume, and
// that each bad input throws agentloop::error with the right code (and, where the C
// API gives one, the library's sentence). ffi/tests/ffi/c_examples.rs compares the files
// with what Rust writes. Exit 0 when every check held, 1 when one failed.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentloop.hpp"

namespace {

int failures = 0;

void expect(bool ok, const char *what) {
    if (!ok) {
        std::fprintf(stderr, "cpp_example: FAILED: %s\n", what);
        failures++;
    }
}

// Runs `f`, which must throw agentloop::error with `code` (and a non-empty detail
// when `with_detail`).
template <class F>
void expect_error(agentloop_result code, bool with_detail, const char *what, F &&f) {
    try {
        f();
    } catch (const agentloop::error &e) {
        if (e.code() != code || (with_detail && e.detail().empty())) {
            std::fprintf(stderr, "cpp_example: FAILED: %s: got %s (%s)\n", what,
                         agentloop::result_str(e.code()), e.what());
            failures++;
        } else {
            std::printf("cpp_example: refused as expected: %s\n", e.what());
        }
        return;
    }
    std::fprintf(stderr, "cpp_example: FAILED: %s: nothing was thrown\n", what);
    failures++;
}

void write_file(const std::string &path, const std::string &bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

const char *const SPEC[3][2] = {
    {"task", R"({"task":"add 2 and 40"})"},
    {"assistant", R"({"tool_calls":[{"name":"add","arguments":{"b":40,"a":2}}],"text":""})"},
    {"tool", R"({"value":{"sum":42},"ok":true,"name":"add"})"},
};

const char *const ECHO_SCHEMA =
    R"({"type":"object","properties":{"say":{"type":"string"}},"required":["say"]})";
const char *const TASK = "Say hi through the echo tool.";

// The scripted model: turn 0 asks for echo, turn 1 ends.
std::pair<std::string, std::string> scripted(int turn) {
    if (turn == 0) return {"Echoing.", R"([{"name":"echo","arguments":{"say":"hi"}}])"};
    return {"It said hi.", ""};
}

// The run through the agent handle; returns the transcript.
std::string run_agent() {
    agentloop::agent agent(TASK);
    agent.add_tool("echo", "Returns its arguments.", ECHO_SCHEMA);
    agentloop::chain chain;
    std::string transcript;
    int turn = 0;
    for (;;) {
        agentloop_need need = agent.poll();
        while (auto line = agent.take_record(chain)) transcript += *line;
        if (need == AGENTLOOP_NEED_DONE) break;
        if (need == AGENTLOOP_NEED_MODEL_REPLY) {
            auto reply = scripted(turn++);
            agent.feed_reply(reply.first, reply.second);
        } else if (need == AGENTLOOP_NEED_TOOL_RESULT) {
            expect(agent.call_name() == "echo", "the call's name");
            expect(agent.call_arguments() == R"({"say":"hi"})", "the call's arguments");
            agent.feed_tool_result(agent.call_arguments());
        }
    }
    agentloop::outcome end = agent.outcome();
    expect(end.reason == AGENTLOOP_STOP_NO_TOOL_CALLS && end.steps == 2 && end.tool_calls == 1,
           "the agent's outcome");
    expect(agent.stop_error().empty(), "no stop error");
    expect_error(AGENTLOOP_RESULT_INVALID_STATE, false, "a reply fed after the end",
                 [&] { agent.feed_reply("late"); });
    return transcript;
}

// The same run through the callback driver.
std::string run_driver() {
    int turn = 0;
    std::string transcript;
    agentloop::driver::tool_spec echo{"echo", "Returns its arguments.", ECHO_SCHEMA, 0,
                                      [](std::string_view args, agentloop::tool_result &result) {
                                          result.set_value(args);
                                      }};
    agentloop::outcome end = agentloop::driver::run(
        TASK, agentloop::budgets(),
        [&](std::string_view messages, std::string_view manifest, agentloop::reply &reply) {
            expect(messages.find(TASK) != std::string_view::npos, "the model sees the task");
            expect(manifest.find("\"echo\"") != std::string_view::npos, "the model sees the tool");
            auto scripted_reply = scripted(turn++);
            reply.set_text(scripted_reply.first);
            if (!scripted_reply.second.empty()) reply.add_call("echo", R"({"say":"hi"})");
        },
        {echo}, [&](std::string_view line) { transcript += line; });
    expect(end.reason == AGENTLOOP_STOP_NO_TOOL_CALLS && end.steps == 2, "the driver's outcome");
    return transcript;
}

// A tool that throws: the run stops (cancelled), the exception comes out of run, and
// what was recorded is a whole transcript that verifies.
void a_throwing_tool_stops_the_run() {
    std::string transcript;
    agentloop::driver::tool_spec boom{"boom", "Throws.", R"({"type":"object"})", 0,
                                      [](std::string_view, agentloop::tool_result &) {
                                          throw std::runtime_error("boom");
                                      }};
    bool thrown = false;
    try {
        agentloop::driver::run(
            "throw", agentloop::budgets(),
            [](std::string_view, std::string_view, agentloop::reply &reply) {
                reply.add_call("boom", "{}");
            },
            {boom}, [&](std::string_view line) { transcript += line; });
    } catch (const std::runtime_error &e) {
        thrown = std::string(e.what()) == "boom";
    }
    expect(thrown, "the tool's exception comes out of driver::run");
    agentloop::report report = agentloop::transcript::verify_buffer(transcript);
    expect(report.ok() && report.count() == 4, "the stopped run's transcript verifies");
    expect(transcript.find(R"("reason":"cancelled")") != std::string::npos, "it stopped cancelled");
    expect(transcript.find("boom") != std::string::npos, "the tool's failure is recorded");
}

void check_verify(const std::string &transcript, const agentloop::hash &head) {
    agentloop::report report = agentloop::transcript::verify_buffer(transcript);
    expect(report.ok() && report.count() == 3 && report.fault_count() == 0, "the transcript verifies");
    expect(report.head() && *report.head() == head, "the report's head is the chain's");
    expect(report.head()->to_hex() ==
               "8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6",
           "the head's hex");
    expect(agentloop::hash::from_hex(head.to_hex()) == head, "hex round trip");
    expect(report.root().has_value(), "a Merkle root");
    for (size_t chunk : {size_t{1}, size_t{7}, size_t{4096}}) {
        agentloop::verifier verifier;
        for (size_t at = 0; at < transcript.size(); at += chunk)
            verifier.push(std::string_view(transcript).substr(at, chunk));
        agentloop::report streamed = verifier.finish();
        expect(streamed.ok() && streamed.count() == 3 && streamed.head() == report.head(),
               "streaming gives the same report");
        expect_error(AGENTLOOP_RESULT_INVALID_STATE, false, "a push after finish",
                     [&] { verifier.push("x"); });
    }

    // One byte changed in record 2's payload: a hash_mismatch at index 2, line 3.
    std::string tampered = transcript;
    tampered.replace(tampered.find("\"sum\":42"), 8, "\"sum\":43");
    agentloop::report bad = agentloop::transcript::verify_buffer(tampered);
    std::vector<agentloop::fault> faults = bad.faults();
    expect(!bad.ok() && faults.size() == 1, "the tampered transcript has one fault");
    if (!faults.empty()) {
        const agentloop::fault &f = faults[0];
        expect(f.kind == AGENTLOOP_FAULT_KIND_HASH_MISMATCH && f.index == 2 && f.line == 3,
               "a hash_mismatch at record 2, line 3");
        expect(f.detail.rfind("stored hash 8428b0f390a2bdfa", 0) == 0, "the fault's detail");
        std::printf("cpp_example: tampered: line %lld: %s: %s\n", static_cast<long long>(f.line),
                    agentloop::fault_kind_str(f.kind), f.detail.c_str());
    }
    expect_error(AGENTLOOP_RESULT_INDEX_OUT_OF_RANGE, false, "a fault past the count",
                 [&] { bad.fault(1); });

    // A checkpoint of 5 records: truncated.
    agentloop::verify_options options;
    options.checkpoint(5);
    expect(!agentloop::transcript::verify_buffer(transcript, options).ok(), "truncated");
}

void check_proofs(const std::string &transcript) {
    std::string checkpoint = agentloop::transcript::checkpoint(transcript);
    std::string proof = agentloop::transcript::prove_inclusion(transcript, 1);
    expect(agentloop::proof::verify_inclusion(proof), "the inclusion proof holds");
    expect(agentloop::proof::explain(proof).empty(), "nothing to explain");
    // One changed byte of the record the proof carries (on its "extra " line).
    std::string tampered = proof;
    size_t extra = tampered.find("extra ");
    expect(extra != std::string::npos && extra + 10 < tampered.size(), "the proof carries its record");
    if (extra != std::string::npos && extra + 10 < tampered.size())
        tampered[extra + 10] = tampered[extra + 10] == 'A' ? 'B' : 'A';
    expect(!agentloop::proof::verify_inclusion(tampered), "a tampered proof does not hold");
    expect(!agentloop::proof::explain(tampered).empty(), "and it says why");

    std::string first_two = transcript.substr(0, transcript.find('\n', transcript.find('\n') + 1) + 1);
    std::string old_checkpoint = agentloop::transcript::checkpoint(first_two);
    std::string consistency = agentloop::transcript::prove_consistency(transcript, 2);
    expect(agentloop::proof::verify_consistency(consistency, old_checkpoint), "consistency holds");
    std::vector<std::string> both{old_checkpoint, checkpoint};
    expect(agentloop::transcript::verify_checkpoints(transcript, both).ok(), "both checkpoints hold");
    expect_error(AGENTLOOP_RESULT_INDEX_OUT_OF_RANGE, false, "a proof of record 3 of 3",
                 [&] { agentloop::transcript::prove_inclusion(transcript, 3); });
    expect_error(AGENTLOOP_RESULT_ANCHOR_MALFORMED, false, "a proof that is not one",
                 [&] { agentloop::proof::verify_inclusion("not a proof"); });
}

void check_schemas_and_tools() {
    agentloop::schema integer(R"({"type":"integer"})");
    expect(integer.validate("1") && !integer.validate("\"x\""), "the schema validates");
    expect(integer.violations("1").empty() && !integer.violations("\"x\"").empty(), "violations");
    expect_error(AGENTLOOP_RESULT_SCHEMA_REFUSED, true, "a refused schema",
                 [] { agentloop::schema refused(R"({"type":5})"); });
    expect(agentloop::tool::explain("ok", R"({"type":"object"})").empty(), "a good tool");
    agentloop::agent agent("t");
    expect_error(AGENTLOOP_RESULT_NOT_PROVIDER_SAFE, true, "a tool name providers refuse",
                 [&] { agent.add_tool("not ok", "", R"({"type":"object"})"); });
}

void check_provider_and_resume(const std::string &loop) {
    agentloop::agent agent(TASK);
    agent.add_tool("echo", "Returns its arguments.", ECHO_SCHEMA);
    expect(agent.poll() == AGENTLOOP_NEED_MODEL_REPLY, "a new agent asks the model");
    std::string body = agent.request(AGENTLOOP_PROVIDER_OPENAI, R"({"model":"m"})");
    expect(body.find(R"("model":"m")") != std::string::npos, "the request body names the model");
    expect(agent.request_error().empty(), "no request error");
    expect_error(AGENTLOOP_RESULT_REQUEST_REFUSED, true, "options without a model",
                 [&] { agent.request(AGENTLOOP_PROVIDER_OPENAI, "{}"); });
    expect_error(AGENTLOOP_RESULT_INVALID_ARGUMENT, false, "an unknown provider", [&] {
        agent.request(static_cast<agentloop_provider>(99), R"({"model":"m"})");
    });

    // Resume the finished run: it goes on after its stop record.
    agentloop::agent again(TASK);
    again.add_tool("echo", "Returns its arguments.", ECHO_SCHEMA);
    expect_error(AGENTLOOP_RESULT_DOES_NOT_VERIFY, true, "a torn transcript",
                 [&] { again.resume(loop.substr(0, loop.size() - 1)); });
    agentloop::resume_point at = again.resume(loop);
    expect(at.next_seq == 5 && at.head == *agentloop::transcript::verify_buffer(loop).head(),
           "resume gives the next seq and the head");
    agentloop::chain chain = agentloop::chain::resume(at.next_seq, at.head);
    again.poll();
    auto line = again.take_record(chain);
    expect(line && line->find(R"("kind":"resume")") != std::string::npos, "a resume record");
}

void check_misuse() {
    expect(agentloop::json::canonicalize(R"({"b":1,"a":[1.0,"\u00e9",1e21]})") ==
               "{\"a\":[1,\"\xc3\xa9\",1e+21],\"b\":1}",
           "canonical bytes");
    expect_error(AGENTLOOP_RESULT_INVALID_JSON, false, "canonicalize bad JSON",
                 [] { agentloop::json::canonicalize("{"); });
    expect_error(AGENTLOOP_RESULT_NO_CANONICAL_FORM, false, "a number with no canonical form",
                 [] { agentloop::json::canonicalize("9007199254740993"); });
    agentloop::chain chain;
    expect_error(AGENTLOOP_RESULT_INVALID_ARGUMENT, false, "an empty kind",
                 [&] { chain.append("", "{}"); });
    expect(chain.count() == 0, "a refused append changes nothing");
    // A moved-from handle is NULL: its calls are refused, never undefined.
    agentloop::chain moved = std::move(chain);
    expect(moved.count() == 0, "the moved-to chain works");
    expect_error(AGENTLOOP_RESULT_NULL_PARAMETER, false, "a moved-from chain",
                 [&] { chain.count(); });  // NOLINT(bugprone-use-after-move): on purpose
    expect_error(AGENTLOOP_RESULT_INVALID_ARGUMENT, false, "a hash that is not hex",
                 [] { agentloop::hash::from_hex("zz"); });
    expect_error(AGENTLOOP_RESULT_INVALID_ARGUMENT, false, "an empty path",
                 [] { agentloop::writer w(""); });
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: cpp_example DIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    try {
        agentloop::chain chain;
        std::string spec;
        for (const auto &record : SPEC) spec += chain.append(record[0], record[1]);
        expect(chain.count() == 3, "three records");
        write_file(dir + "/spec.jsonl", spec);
        check_verify(spec, chain.head());

        const std::string path = dir + "/writer.jsonl";
        std::remove(path.c_str());
        {
            agentloop::writer writer(path);
            for (const auto &record : SPEC) writer.append(record[0], record[1]);
            expect(writer.count() == 3 && writer.head() == chain.head(), "the writer's head");
            writer.sync();
        }
        expect(agentloop::transcript::verify_file(path).ok(), "the writer's file verifies");
        expect(agentloop::transcript::repair(path).removed == 0, "nothing to repair");

        check_proofs(spec);
        check_schemas_and_tools();

        std::string loop = run_agent();
        std::string driven = run_driver();
        expect(loop == driven, "the agent handle and the driver write the same bytes");
        write_file(dir + "/loop.jsonl", loop);
        write_file(dir + "/driver.jsonl", driven);
        a_throwing_tool_stops_the_run();
        check_provider_and_resume(loop);
        check_misuse();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "cpp_example: unexpected: %s\n", e.what());
        return 1;
    }
    if (failures != 0) return 1;
    std::printf("cpp_example: ok (agentloop %s)\n", agentloop::library::version());
    return 0;
}
